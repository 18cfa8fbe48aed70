// Lobbies (custom games): every lobby the server holds, live ones first,
// with its teams, who is ready, and the match a started lobby became; live.
import { h, clear, section, stat } from '../dom.js';
import { live } from '../app.js';

export function show(app, overview) {
  app.append(h('h1', {}, 'Lobbies'));
  if (!overview.lobbies) { app.append(h('p', { class: 'muted' }, 'This server runs no lobbies.')); return; }
  const err = h('p', { class: 'error' });
  const summary = h('div', { class: 'stats', id: 'lobby-stats' });
  const body = h('div', { id: 'lobbies' }, h('p', { class: 'muted' }, 'Waiting for the first update…'));
  app.append(err, summary, body);
  live({ page: 'lobbies' }, (snap) => {
    err.textContent = '';
    const n = (s) => snap.states[s] || 0;
    clear(summary).append(stat('open', n('open'), `${n('starting')} starting`), stat('started', n('started'), 'in the last 10 minutes'),
      stat('closed', n('closed'), 'in the last 10 minutes'));
    if (!snap.lobbies.length) { clear(body).append(h('p', { class: 'muted' }, 'No lobby.')); return; }
    clear(body).append(...snap.lobbies.map(lobbyBox),
      ...(snap.total > snap.lobbies.length ? [h('p', { class: 'muted' }, `and ${snap.total - snap.lobbies.length} more`)] : []));
  }, (e) => { err.textContent = e.message; });
}

function lobbyBox(l) {
  const attrs = Object.entries(l.attributes || {}).map(([k, v]) => `${k}=${v}`).join(', ');
  const state = l.state + (l.locked ? ' · locked' : '') + (l.visibility === 'private' ? ' · private' : '');
  return section(`${l.name || l.id}`,
    h('p', { class: 'muted small' }, `${l.queue} · host ${l.host} · ${state} · ${l.seats - l.free} of ${l.seats} seats`,
      attrs ? ` · ${attrs}` : '', l.match_id ? ` · match ${l.match_id}` : '', l.reason ? ` · ${l.reason}` : ''),
    h('table', { class: 'lobby' },
      h('tr', {}, l.teams.map((_, i) => h('th', {}, `team ${i}`))),
      h('tr', {}, l.teams.map((t) => h('td', {}, t.length ? t.map((m) => h('div', { class: m.ready ? '' : 'muted' }, m.id, m.ready ? ' ✓' : '')) : h('span', { class: 'muted' }, 'empty'))))));
}
