// Queues: waiting now, arrivals and matches per minute, waits, quality and
// its parts, for each queue and its keys; live.
import { h, clear, secs, q2, stat, section, time, nanos } from '../dom.js';
import { bars, histogram, meter } from '../charts.js';
import { live } from '../app.js';

export function show(app) {
  const body = h('div', { id: 'queues' }, h('p', { class: 'muted' }, 'Waiting for the first update…'));
  const err = h('p', { class: 'error' });
  app.append(h('h1', {}, 'Queues'), err, body);
  live({ page: 'queues' }, (snap) => {
    err.textContent = '';
    clear(body).append(...snap.queues.map(queueBox), recentBox(snap.recent));
  }, (e) => { err.textContent = e.message; });
}

function queueBox(q) {
  const box = section(q.queue,
    h('div', { class: 'stats' },
      stat('waiting now', h('span', { class: 'waiting', 'data-queue': q.queue }, q.waiting), q.players + ' players'),
      stat('arrivals / min', q.arrivals.last_minute),
      stat('matches / min', q.matches.last_minute),
      stat('oldest wait', secs(q.oldest_wait_seconds)),
      stat('wait p50 / p90 / p99', `${secs(q.wait.p50_seconds)} / ${secs(q.wait.p90_seconds)} / ${secs(q.wait.p99_seconds)}`, q.wait.samples + ' matched tickets, last hour'),
      stat('quality', q.quality.matches ? q2(q.quality.mean) : '–', q.quality.matches + ' matches, last hour'),
      stat('ruleset', 'v' + (q.ruleset_version || '?'))),
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
