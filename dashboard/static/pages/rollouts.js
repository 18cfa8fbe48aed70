// Roll-outs: each queue's shadow beside the live ruleset (per queue key:
// matches, waits, quality, skill gap, ping, expiries) and its canary (both
// sides' figures over the guard's window, the guards' last word), with
// promote and roll back, each confirmed before it runs and noted in the
// action log. Shadows and canaries are started from the API or the CLI.
import { h, clear, secs, section, q2, time } from '../dom.js';
import { api } from '../app.js';

export function show(app) {
  const body = h('div', { id: 'rollouts' }, h('p', { class: 'muted' }, 'Reading…'));
  // The last decision's outcome stays above the boxes, which a refresh
  // draws again.
  const result = h('p', { id: 'rollout-result', class: 'result' });
  const refresh = async () => {
    try {
      const res = await api('rollouts');
      if (!res.rollouts.length) {
        clear(body).append(h('p', { class: 'muted', id: 'no-rollouts' }, 'No queue runs a shadow or a canary. Start one with ',
          h('code', {}, 'cupid ruleset shadow start'), ' or ', h('code', {}, 'cupid ruleset canary start'), '.'));
        return;
      }
      clear(body).append(...res.rollouts.map((r) => queueBox(r, refresh, result)));
    } catch (e) {
      clear(body).append(h('p', { class: 'error' }, e.message));
    }
  };
  app.append(h('div', { class: 'titlebar' }, h('h1', {}, 'Roll-outs'), h('button', { type: 'button', id: 'refresh', onclick: refresh }, 'Refresh')), result, body);
  refresh();
}

function queueBox(r, refresh, result) {
  const box = section(r.queue,
    r.owned ? null : h('p', { class: 'muted small' }, 'Another node runs this queue\'s pools and holds its figures; this node shows the state only.'),
    r.canary ? canaryPart(r.queue, r.canary, refresh, result) : null,
    r.shadow ? shadowPart(r.shadow) : null);
  box.dataset.queue = r.queue;
  return box;
}

const stateWords = { running: 'running', rolled_back: 'rolled back', promoted: 'promoted' };

function canaryPart(queue, c, refresh, result) {
  const g = c.guard;
  const guards = [g.wait_margin > 0 ? `wait p90 at most ${Math.round(g.wait_margin * 100)} % longer` : null,
    g.quality_margin > 0 ? `mean quality at most ${q2(g.quality_margin)} lower` : null].filter(Boolean).join(', ');
  const wait = (f, x) => (f.samples ? secs(x) : '–');
  const row = (label, f) => h('tr', {}, h('th', {}, label), h('td', { class: 'samples' }, f.samples), h('td', {}, f.matches),
    h('td', {}, wait(f, f.wait_p50_seconds)), h('td', { class: 'p90' }, wait(f, f.wait_p90_seconds)), h('td', {}, wait(f, f.wait_p99_seconds)),
    h('td', { class: 'quality' }, f.matches ? q2(f.mean_quality) : '–'));
  const part = h('div', { class: 'canary' },
    h('h3', {}, 'Canary ', h('span', { class: 'state canary-state ' + c.state }, stateWords[c.state] || c.state)),
    h('p', { class: 'small' }, `${Math.round(c.share * 100)} % of new tickets since ${time(c.started)}`,
      c.decided ? `, decided at ${time(c.decided)}` : '',
      ` · guards over the last ${secs(c.window_seconds)}, from ${g.min_samples} matched tickets a side: ${guards}`),
    h('p', { class: 'guard-word' + (c.state === 'rolled_back' ? ' error' : '') }, c.reason || '–'),
    h('table', { class: 'sides' },
      h('tr', {}, h('th', {}, ''), h('th', {}, 'matched tickets'), h('th', {}, 'matches'), h('th', {}, 'wait p50'), h('th', {}, 'wait p90'),
        h('th', {}, 'wait p99'), h('th', {}, 'mean quality')),
      row('live', c.live), row('canary', c.canary)));
  part.querySelectorAll('tr')[2].classList.add('canary-side');
  if (c.state === 'running') {
    part.append(decision(queue, refresh, result));
  }
  return part;
}

// decision is the promote and roll-back buttons, a reason, and the
// question each asks before it runs.
function decision(queue, refresh, result) {
  const reason = h('input', { class: 'reason', placeholder: 'reason (noted in the ruleset history)', 'aria-label': 'reason' });
  const confirmBox = h('div', { class: 'confirm', hidden: true });
  const ask = (action, question) => {
    result.textContent = '';
    clear(confirmBox).append(h('p', {}, question),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'yes', onclick: async () => {
          confirmBox.hidden = true;
          try {
            const res = await api('actions/canary', { method: 'POST', body: { queue, action, reason: reason.value.trim() } });
            result.className = 'result ok';
            result.textContent = `The canary of ${queue} is ${res.outcome}.`;
            refresh();
          } catch (e) {
            result.className = 'result error';
            result.textContent = e.message;
          }
        } }, 'Yes, do it'),
        h('button', { type: 'button', class: 'no', onclick: () => { confirmBox.hidden = true; } }, 'No')));
    confirmBox.hidden = false;
  };
  return h('div', { class: 'decide actions-row' },
    h('div', { class: 'row' }, reason,
      h('button', { type: 'button', class: 'promote', onclick: () => ask('promote',
        `Promote the canary of ${queue}? Its candidate becomes the queue's ruleset (a new version) for every new ticket.`) }, 'Promote…'),
      h('button', { type: 'button', class: 'rollback', onclick: () => ask('rollback',
        `Roll back the canary of ${queue}? New tickets all go to the live ruleset; its waiting tickets are matched under it.`) }, 'Roll back…')),
    confirmBox);
}

function shadowPart(s) {
  const rows = [
    ['matches', (f) => f.matches || 0],
    ['wait p50', (f) => (f.wait.samples ? secs(f.wait.p50_seconds) : '–')],
    ['wait p90', (f) => (f.wait.samples ? secs(f.wait.p90_seconds) : '–')],
    ['wait p99', (f) => (f.wait.samples ? secs(f.wait.p99_seconds) : '–')],
    ['mean quality', (f) => (f.quality.matches ? q2(f.quality.mean) : '–')],
    ['skill gap (mean)', (f) => (f.skill_gap.count ? Math.round(f.skill_gap.mean) : '–')],
    ['ping (mean ms)', (f) => (f.ping_ms.count ? Math.round(f.ping_ms.mean) : '–')],
    ['expired', (f) => f.expired || 0],
    ['taken by live', (f, side) => (side === 'shadow' ? f.taken_by_live || 0 : '')],
    ['refused', (f, side) => (side === 'shadow' ? f.refused || 0 : '')],
  ];
  return h('div', { class: 'shadow' },
    h('h3', {}, 'Shadow'),
    h('p', { class: 'small' }, `since ${time(s.started)}, figures over the last ${secs(s.window_seconds)}; the shadow commits nothing`),
    s.keys.length ? s.keys.map((k) => h('table', { class: 'shadow-key', 'data-key': k.key },
      h('tr', {}, h('th', {}, k.key), h('th', {}, 'live'), h('th', {}, 'shadow')),
      rows.map(([label, f]) => h('tr', { class: 'm-' + label.split(' ')[0] }, h('th', {}, label),
        h('td', { class: 'side-live' }, f(k.live, 'live')), h('td', { class: 'side-shadow' }, f(k.shadow, 'shadow'))))))
      : h('p', { class: 'muted' }, 'No ticket has arrived since the shadow started.'));
}
