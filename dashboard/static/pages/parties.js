// Parties: who plays with whom, who is ready, which parties wait in a
// queue or are in a match; live.
import { h, clear, section, stat, time } from '../dom.js';
import { live } from '../app.js';

export function show(app, overview) {
  app.append(h('h1', {}, 'Parties'));
  if (!overview.parties) { app.append(h('p', { class: 'muted' }, 'This server runs no parties.')); return; }
  const err = h('p', { class: 'error' });
  const body = h('div', { id: 'parties' }, h('p', { class: 'muted' }, 'Waiting for the first update…'));
  app.append(err, body);
  live({ page: 'parties' }, (snap) => {
    err.textContent = '';
    clear(body).append(
      h('div', { class: 'stats' },
        stat('parties', snap.total),
        stat('members', snap.members),
        stat('pending invites', snap.invites),
        stat('queued or in a match', snap.queued)),
      section('Parties',
        snap.parties.length ? partyTable(snap.parties) : h('p', { class: 'muted' }, 'No party.'),
        ...(snap.total > snap.parties.length ? [h('p', { class: 'muted' }, `and ${snap.total - snap.parties.length} more`)] : [])));
  }, (e) => { err.textContent = e.message; });
}

function partyTable(parties) {
  return h('table', { class: 'parties' },
    h('tr', {}, ['leader', 'members (✓ ready)', 'invited', 'state', 'ticket / match', 'since'].map((t) => h('th', {}, t))),
    parties.map((p) => h('tr', { class: 'party', 'data-party': p.id, 'data-phase': p.phase },
      h('td', {}, p.leader),
      h('td', { class: 'members' }, p.members.map((m) => m.id + (m.ready ? ' ✓' : '')).join(', ')),
      h('td', {}, p.invites.join(', ') || '–'),
      h('td', { class: 'phase' }, p.phase + (p.queue ? ' in ' + p.queue : '')),
      h('td', { class: 'small' }, p.match_id ? h('a', { href: '#/tickets' }, 'match …' + p.match_id.slice(-8)) : (p.ticket_id ? 'ticket …' + p.ticket_id.slice(-8) : '–')),
      h('td', { class: 'small muted' }, time(p.created_at)))));
}
