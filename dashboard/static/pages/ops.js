// Operations: what an operator does during a launch — cancel tickets,
// release a stuck match, start, end or pause a speed-dating round,
// rebalance an opponent finder — each confirmed on the page before it runs
// and noted in the action log below (who, what, what came of it); then the
// cluster's nodes with what each runs, and the store's data per kind with
// the retention passes.
import { h, clear, secs, section, time } from '../dom.js';
import { api, live } from '../app.js';

export function show(app, overview) {
  const log = h('div', { id: 'action-log' }, h('p', { class: 'muted' }, 'Reading…'));
  const nodes = h('div', { id: 'nodes' }, h('p', { class: 'muted' }, 'Reading…'));
  const retention = h('div', { id: 'retention' }, h('p', { class: 'muted' }, 'Reading…'));
  const events = h('select', { id: 'event-id', 'aria-label': 'event' }, h('option', { value: '' }, 'the event…'));
  const refresh = () => Promise.all([
    show1(log, 'actions', actionTable),
    show1(nodes, 'nodes', nodeTable),
    show1(retention, 'retention', retentionTables),
  ]);
  app.append(h('div', { class: 'titlebar' }, h('h1', {}, 'Operations'), h('button', { type: 'button', id: 'refresh', onclick: refresh }, 'Refresh')),
    section('Actions', h('div', { class: 'actions' },
      cancelForm(refresh), releaseForm(refresh),
      overview.pairing ? eventForm(events, refresh) : null,
      overview.finders.length ? rebalanceForm(overview.finders, refresh) : null)),
    section('Action log', log),
    section('Nodes', nodes),
    section('Data and retention', retention));
  refresh();
  if (overview.pairing) {
    // The events to choose from stay current through the events stream.
    live({ page: 'events' }, (snap) => {
      const was = events.value;
      clear(events).append(h('option', { value: '' }, 'the event…'),
        ...snap.events.map((e) => h('option', { value: e.id }, `${e.name || e.id} (${e.phase}, round ${e.round})`)));
      events.value = was;
    });
  }
}

async function show1(el, path, draw) {
  try {
    clear(el).append(draw(await api(path)));
  } catch (e) {
    clear(el).append(h('p', { class: 'error' }, e.message));
  }
}

// action is one form: its fields, a button that asks for confirmation
// (saying what will happen) and then calls the endpoint, and the result.
function action(id, title, fields, button, ask, call, done) {
  const result = h('p', { class: 'result small' });
  const confirmBox = h('div', { class: 'confirm', hidden: true });
  const form = h('form', { id, class: 'action' }, h('h3', {}, title), ...fields,
    h('div', { class: 'row' }, h('button', { type: 'submit', class: 'go' }, button)), confirmBox, result);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    result.textContent = '';
    let what;
    try { what = ask(); } catch (e) { result.className = 'result small error'; result.textContent = e.message; return; }
    clear(confirmBox).append(h('p', {}, what),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'yes', onclick: async () => {
          confirmBox.hidden = true;
          try {
            const msg = await call();
            result.className = 'result small ok';
            result.textContent = msg;
          } catch (e) {
            result.className = 'result small error';
            result.textContent = e.message;
          }
          done();
        } }, 'Yes, do it'),
        h('button', { type: 'button', class: 'no', onclick: () => { confirmBox.hidden = true; } }, 'No')));
    confirmBox.hidden = false;
  });
  return form;
}

function cancelForm(done) {
  const ids = h('textarea', { id: 'cancel-ids', placeholder: 'ticket ids, separated by spaces or lines', 'aria-label': 'ticket ids' });
  const list = () => ids.value.split(/[\s,]+/).filter(Boolean);
  return action('cancel', 'Cancel tickets', [ids], 'Cancel tickets…',
    () => {
      const l = list();
      if (!l.length) throw new Error('Give at least one ticket id.');
      return `Cancel ${l.length === 1 ? 'ticket ' + l[0] : l.length + ' tickets (' + l.join(', ') + ')'}? Their players leave the queue.`;
    },
    async () => {
      const res = await api('actions/cancel', { method: 'POST', body: { ids: list() } });
      const ok = res.results.filter((r) => r.state).length;
      const refused = res.results.filter((r) => r.code).map((r) => `${r.id}: ${r.message}`);
      return `${ok} cancelled` + (refused.length ? `; refused: ${refused.join('; ')}` : '.');
    }, done);
}

function releaseForm(done) {
  const id = h('input', { id: 'release-id', placeholder: 'match id', 'aria-label': 'match id' });
  const requeue = h('input', { id: 'release-requeue', type: 'checkbox', checked: true });
  const reason = h('input', { id: 'release-reason', placeholder: 'reason (optional)', 'aria-label': 'reason' });
  return action('release', 'Release a stuck match', [id, h('label', { class: 'row' }, requeue, 'put its tickets back in their pool (else cancel them)'), reason], 'Release…',
    () => {
      if (!id.value.trim()) throw new Error('Give the match id.');
      return `Release match ${id.value.trim()}, ${requeue.checked ? 'its tickets back in their pool with their age' : 'its tickets cancelled'}?`;
    },
    async () => {
      await api('actions/release', { method: 'POST', body: { match_id: id.value.trim(), requeue: requeue.checked, reason: reason.value.trim() } });
      return `Match ${id.value.trim()} released.`;
    }, done);
}

const eventWords = { start_round: 'Start a round', end_round: 'End the round', pause: 'Pause the timers', resume: 'Resume the timers' };

function eventForm(events, done) {
  const what = h('select', { id: 'event-action', 'aria-label': 'what to do' }, Object.entries(eventWords).map(([v, t]) => h('option', { value: v }, t)));
  return action('event', 'Speed-dating round', [h('div', { class: 'row' }, events, what)], 'Do it…',
    () => {
      if (!events.value) throw new Error('Choose the event.');
      return `${eventWords[what.value]} of event ${events.value} now?`;
    },
    async () => {
      const res = await api('actions/event', { method: 'POST', body: { event: events.value, action: what.value } });
      return `Event ${res.event}: round ${res.round}, ${res.status}.`;
    }, done);
}

function rebalanceForm(finders, done) {
  const finder = h('select', { id: 'finder', 'aria-label': 'finder' }, finders.map((f) => h('option', { value: f }, f)));
  return action('rebalance', 'Rebalance an opponent finder', [finder], 'Rebalance…',
    () => `Resize the buckets of finder ${finder.value} to the players sampled so far?`,
    async () => {
      const res = await api('actions/rebalance', { method: 'POST', body: { finder: finder.value } });
      return res.resized ? `Resized to ${res.buckets} buckets from ${Math.round(res.samples)} samples.` : `Not resized: too few samples (${Math.round(res.samples)}).`;
    }, done);
}

function actionTable(res) {
  if (!res.actions.length) return h('p', { class: 'muted' }, 'No action yet.');
  return h('table', { class: 'actions-log' },
    h('tr', {}, ['at', 'who', 'what', 'outcome'].map((t) => h('th', {}, t))),
    res.actions.map((a) => h('tr', { class: 'action' + (a.ok ? '' : ' failed') },
      h('td', {}, new Date(a.at).toLocaleDateString([], { month: 'short', day: 'numeric' }) + ' ' + time(a.at)), h('td', {}, a.who), h('td', {}, a.what), h('td', {}, a.outcome))));
}

function nodeTable(res) {
  if (!res.cluster) return h('p', { class: 'muted' }, 'One node: this server runs every queue (a cluster shares a PostgreSQL store).');
  return h('div', {},
    h('table', { class: 'nodes' },
      h('tr', {}, ['node', 'address', 'heartbeat', 'started', 'runs'].map((t) => h('th', {}, t))),
      res.nodes.map((n) => h('tr', { class: 'node' + (n.live ? '' : ' failed'), 'data-id': n.id },
        h('td', {}, n.id), h('td', {}, n.addr),
        h('td', {}, secs(n.heartbeat_age_seconds) + ' ago' + (n.live ? '' : ' (lapsed)')),
        h('td', {}, time(n.started)),
        h('td', {}, n.holds.length ? n.holds.map((l) => h('span', { class: 'lease', title: 'token ' + l.token }, l.name)) : h('span', { class: 'muted' }, 'nothing'))))),
    res.unheld.length ? h('p', { class: 'muted' }, 'Held by no live node: ' + res.unheld.map((l) => l.name).join(', ')) : null);
}

function bytes(n) {
  if (n < 1024) return n + ' B';
  if (n < 1 << 20) return (n / 1024).toFixed(1) + ' KB';
  if (n < 1 << 30) return (n / (1 << 20)).toFixed(1) + ' MB';
  return (n / (1 << 30)).toFixed(2) + ' GB';
}

function retentionTables(res) {
  if (!res.retention) return h('p', { class: 'muted' }, 'This server runs no retention.');
  const kinds = res.kinds.map((k) => k.kind);
  return h('div', {},
    h('table', { class: 'kinds' },
      h('tr', {}, ['kind', 'rows', 'size', 'oldest kept', 'kept for'].map((t) => h('th', {}, t))),
      res.kinds.map((k) => h('tr', { class: 'kind', 'data-kind': k.kind },
        h('td', {}, k.kind), h('td', {}, k.rows), h('td', {}, bytes(k.bytes)),
        h('td', {}, k.oldest ? new Date(k.oldest).toLocaleString([], { hour12: false }) : '–'),
        h('td', {}, k.keep_seconds === undefined ? 'for ever' : k.keep_seconds >= 86400 ? Math.round(k.keep_seconds / 8640) / 10 + ' days' : secs(k.keep_seconds))))),
    h('h3', {}, res.running ? 'Passes on this node (it runs retention)' : 'Passes on this node (another node runs retention, or none ran yet)'),
    res.passes.length ? h('table', { class: 'passes' },
      h('tr', {}, [h('th', {}, 'at'), h('th', {}, 'took'), ...kinds.map((k) => h('th', {}, k + ' removed')), h('th', {}, '')]),
      res.passes.map((p) => h('tr', { class: 'pass' + (p.failed ? ' failed' : '') },
        h('td', {}, time(p.at)), h('td', {}, secs(p.took_seconds)),
        ...kinds.map((k) => h('td', {}, p.removed[k] === undefined ? '–' : `${p.removed[k]}` + (p.related[k] ? ` (+${p.related[k]})` : ''))),
        h('td', { class: 'small' }, p.failed || ''))))
      : h('p', { class: 'muted' }, 'No pass yet.'));
}
