// Queues: waiting now, arrivals and matches per minute, waits, quality and
// its parts, for each queue and its keys; live.
import { h, clear, secs, q2, stat, section, time, nanos } from '../dom.js';
import { bars, histogram, meter } from '../charts.js';
import { live, api } from '../app.js';

// The time ranges of the picker: the last hour is live, from the server's
// memory; the others are read from the history the server keeps in its
// store (GET history), once when picked.
const ranges = [['1h', 'last hour'], ['6h', '6 h'], ['24h', '24 h'], ['7d', '7 d']];

export function show(app, overview) {
  const body = h('div', { id: 'queues' }, h('p', { class: 'muted' }, 'Waiting for the first update…'));
  const err = h('p', { class: 'error' });
  const state = { range: '1h', history: {}, snap: null };
  const render = () => { if (state.snap) clear(body).append(...state.snap.queues.map((q) => queueBox(q, state)), recentBox(state.snap.recent)); };
  const picker = h('div', { class: 'ranges', id: 'ranges', role: 'group', 'aria-label': 'time range' },
    ranges.map(([r, label]) => h('button', { type: 'button', class: 'range' + (r === state.range ? ' here' : ''), 'data-range': r, onclick: () => pick(r) }, label)));
  async function pick(r) {
    state.range = r;
    for (const b of picker.querySelectorAll('button')) b.classList.toggle('here', b.dataset.range === r);
    state.history = {};
    if (r !== '1h') {
      try {
        const got = await Promise.all(overview.queues.map((q) => api(`history?queue=${encodeURIComponent(q)}&range=${r}`)));
        if (state.range !== r) return; // another range was picked meanwhile
        for (const hist of got) state.history[hist.queue] = hist;
        err.textContent = '';
      } catch (e) { err.textContent = e.message; }
    }
    render();
  }
  app.append(h('div', { class: 'titlebar' }, h('h1', {}, 'Queues'), picker), err, body);
  live({ page: 'queues' }, (snap) => {
    err.textContent = '';
    state.snap = snap;
    render();
  }, (e) => { err.textContent = e.message; });
}

// estimateWords says a queue's wait estimate: about 40 s, 80 % within 15 s–1 min 30 s.
function estimateWords(e) {
  if (!e) return ['–', 'too few recent tickets to tell'];
  const high = e.high_seconds !== undefined ? secs(e.high_seconds) : 'longer';
  return ['about ' + secs(e.expected_seconds), `${Math.round(e.coverage * 100)} % within ${secs(e.low_seconds)}–${high} (${e.samples} tickets)`];
}

// historyFigures draws a range read from the store: arrivals and matches
// per step, the waits' p50 and p90, and the mean quality over the range.
function historyFigures(hist, label) {
  const ps = hist.points;
  const titles = ps.map((p) => new Date(p.at).toLocaleString([], { hour12: false, month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }));
  const step = hist.step_seconds >= 3600 ? (hist.step_seconds / 3600) + ' h' : (hist.step_seconds / 60) + ' min';
  let arrivals = 0, matches = 0, scored = 0, quality = 0, waited = 0, p50 = 0, p90 = 0;
  for (const p of ps) {
    arrivals += p.arrivals; matches += p.matches;
    scored += p.scored; quality += p.quality * p.scored;
    waited += p.waited; p50 += p.p50_seconds * p.waited; p90 += p.p90_seconds * p.waited;
  }
  return h('div', { class: 'history', 'data-range': hist.range },
    h('div', { class: 'stats' },
      stat('arrivals, ' + label, h('span', { class: 'h-arrivals' }, arrivals)),
      stat('matches, ' + label, h('span', { class: 'h-matches' }, matches)),
      stat('wait p50 / p90', waited ? `${secs(p50 / waited)} / ${secs(p90 / waited)}` : '–', waited + ' matched tickets (minutes averaged)'),
      stat('quality', scored ? q2(quality / scored) : '–', scored + ' matches')),
    h('div', { class: 'charts two' },
      h('figure', {}, bars([ps.map((p) => p.arrivals), ps.map((p) => p.matches)], { label: 'arrivals and matches', from: label + ' ago', titles }),
        h('figcaption', {}, h('span', { class: 'key-a' }, 'arrivals'), ' and ', h('span', { class: 'key-b' }, 'matches'), ` per ${step}, from the store`)),
      h('figure', {}, bars([ps.map((p) => Math.round(p.p50_seconds)), ps.map((p) => Math.round(p.p90_seconds))], { label: 'waits', from: label + ' ago', titles }),
        h('figcaption', {}, 'wait ', h('span', { class: 'key-a' }, 'p50'), ' and ', h('span', { class: 'key-b' }, 'p90'), ` in seconds, per ${step}`))));
}

function queueBox(q, state) {
  const est = estimateWords(q.estimate);
  const hist = state && state.range !== '1h' ? state.history[q.queue] : null;
  const label = state ? ranges.find(([r]) => r === state.range)[1] : '';
  const box = section(q.queue,
    h('div', { class: 'stats' },
      stat('waiting now', h('span', { class: 'waiting', 'data-queue': q.queue }, q.waiting), q.players + ' players'),
      stat('arrivals / min', q.arrivals.last_minute),
      stat('matches / min', q.matches.last_minute),
      stat('oldest wait', secs(q.oldest_wait_seconds)),
      stat('wait p50 / p90 / p99', `${secs(q.wait.p50_seconds)} / ${secs(q.wait.p90_seconds)} / ${secs(q.wait.p99_seconds)}`, q.wait.samples + ' matched tickets, last hour'),
      stat('quality', q.quality.matches ? q2(q.quality.mean) : '–', q.quality.matches + ' matches, last hour'),
      stat('wait estimate', h('span', { class: 'estimate', 'data-queue': q.queue }, est[0]), est[1]),
      stat('ruleset', 'v' + (q.ruleset_version || '?'))),
    hist ? historyFigures(hist, label) : null,
    state && state.range !== '1h' && !hist ? h('p', { class: 'muted' }, 'Reading the history…') : null,
    h('div', { class: 'charts' },
      h('figure', {}, bars([q.arrivals.per_minute, q.matches.per_minute], { label: 'arrivals and matches per minute' }),
        h('figcaption', {}, h('span', { class: 'key-a' }, 'arrivals'), ' and ', h('span', { class: 'key-b' }, 'matches'), ' per minute')),
      h('figure', {}, histogram(q.quality.bins, { label: 'match quality' }), h('figcaption', {}, 'match quality, 0 to 1')),
      h('figure', { class: 'parts' }, h('table', {},
        h('tr', {}, h('th', {}, 'quality part'), h('th', {}, 'mean'), h('th', {}, '')),
        q.quality.parts.length ? q.quality.parts.map((p) => h('tr', {}, h('td', {}, p.name), h('td', {}, q2(p.mean)), h('td', { class: 'w' }, meter(p.mean, 1, p.name, true))))
          : h('tr', {}, h('td', { colspan: 3, class: 'muted' }, 'no matches in the last hour'))),
      h('figcaption', {}, 'the parts the score is averaged from'))));
  if (q.keys.length) { // a queue with one plain key has no rows of its own
    box.append(h('table', { class: 'keys' },
      h('tr', {}, ['queue key', 'waiting', 'matches / min', 'wait p50', 'wait p90', 'quality', 'ruleset'].map((t) => h('th', {}, t))),
      q.keys.map((k) => h('tr', {}, h('td', {}, k.key), h('td', {}, k.waiting), h('td', {}, k.matches.last_minute),
        h('td', {}, secs(k.wait.p50_seconds)), h('td', {}, secs(k.wait.p90_seconds)),
        h('td', {}, k.quality.matches ? q2(k.quality.mean) : '–'), h('td', {}, k.ruleset_version ? 'v' + k.ruleset_version : '')))));
  }
  return box;
}

export function recentBox(recent, title) {
  return section(title || 'Recent matches', recent.length ? matchTable(recent) : h('p', { class: 'muted' }, 'No match yet.'));
}

// matchTable lists matches with their teams, each player's wait and the
// quality parts.
export function matchTable(recent) {
  return h('table', { class: 'matches' },
    h('tr', {}, ['at', 'queue key', 'quality', 'teams (wait of each player)', 'parts'].map((t) => h('th', {}, t))),
    recent.map((m) => h('tr', { class: 'match', 'data-id': m.id },
      h('td', {}, time(m.at)),
      h('td', {}, m.key, m.region ? h('div', { class: 'muted' }, m.region) : null),
      h('td', {}, h('b', {}, q2(m.score))),
      h('td', {}, m.teams.map((t, i) => h('div', { class: 'team' }, h('span', { class: 'muted' }, 'team ' + (i + 1) + ': '),
        playersOf(m, t)))),
      h('td', { class: 'small' }, (m.parts || []).map((p) => `${p.name} ${q2(p.score)}`).join(' · ')))));
}

// playersOf lists a team's players; each has his ticket's wait when the
// team's tickets are one player each, else the tickets' waits follow.
function playersOf(m, t) {
  const waits = m.waits || {};
  if (t.tickets.length === t.players.length) {
    return t.players.map((p, i) => h('span', { class: 'player' }, p, ' ', h('span', { class: 'muted' }, waits[t.tickets[i]] !== undefined ? nanos(waits[t.tickets[i]]) : '?'), m.roles && m.roles[p] ? ' (' + m.roles[p] + ')' : ''));
  }
  return [t.players.map((p) => h('span', { class: 'player' }, p, m.roles && m.roles[p] ? ' (' + m.roles[p] + ')' : '')),
    h('span', { class: 'muted' }, ' · tickets waited ', t.tickets.map((id) => waits[id] !== undefined ? nanos(waits[id]) : '?').join(', '))];
}
