// Tickets and matches: find a ticket by id or player, its state, wait and
// why it still waits; the recent matches. The ticket shown updates live.
import { h, clear, secs, time, q2, section } from '../dom.js';
import { api, live } from '../app.js';
import { matchTable } from './queues.js';

export function show(app, overview, args) {
  const input = h('input', { id: 'find', placeholder: 'ticket id or player id', autocomplete: 'off', value: args[0] || '' });
  const kind = h('select', { id: 'find-kind' }, h('option', { value: 'player' }, 'player'), h('option', { value: 'id' }, 'ticket id'));
  const found = h('div', { id: 'found' });
  const ticketBox = h('div', { id: 'ticket' });
  const recent = h('div', { id: 'recent' }, h('p', { class: 'muted' }, 'Waiting for the first update…'));
  const err = h('p', { class: 'error' });
  const form = h('form', { class: 'find', onsubmit: (ev) => { ev.preventDefault(); find(); } }, kind, input, h('button', { type: 'submit' }, 'Find'));
  app.append(h('h1', {}, 'Tickets & matches'), form, err, found, ticketBox, section('Recent matches', recent));

  let watching = '';
  const watch = (id) => {
    watching = id;
    live(id ? { page: 'matches', ticket: id } : { page: 'matches' }, (snap) => {
      clear(recent).append(snap.recent.length ? matchTable(snap.recent) : h('p', { class: 'muted' }, 'No match yet.'));
      if (snap.ticket) clear(ticketBox).append(ticketCard(snap.ticket));
    }, (e) => { err.textContent = e.message; });
  };

  async function find() {
    err.textContent = '';
    clear(found);
    const v = input.value.trim();
    if (!v) { err.textContent = 'Type a ticket id or a player id.'; return; }
    try {
      const res = await api('tickets?' + new URLSearchParams({ [kind.value]: v }));
      if (!res.tickets.length) { found.append(h('p', { class: 'muted' }, `No ticket of ${v} waiting or in the recent matches.`)); return; }
      if (res.tickets.length > 1) {
        found.append(h('ul', { class: 'found' }, res.tickets.map((t) => h('li', {},
          h('a', { href: '#', onclick: (ev) => { ev.preventDefault(); watch(t.id); } }, t.id), ` ${t.queue} · ${t.state.toLowerCase()} · waited ${secs(t.wait_seconds)}`))));
      }
      clear(ticketBox).append(ticketCard(res.tickets[0]));
      watch(res.tickets[0].id);
    } catch (e) {
      err.textContent = e.message;
    }
  }
  if (args[0]) { kind.value = 'id'; find(); } else watch('');
  return watching;
}

function ticketCard(t) {
  const rows = [
    ['state', h('b', { class: 'state ' + t.state }, t.state)],
    ['queue key', t.key],
    ['players', t.players.map((p) => p.id).join(', ')],
    ['created', time(t.created_at)],
    [t.state === 'waiting' ? 'waiting for' : 'waited', secs(t.wait_seconds)],
  ];
  if (t.state === 'waiting') rows.push(['expires', time(t.expires_at)]);
  if (t.reason) rows.push(['reason', t.reason]);
  if (t.match) rows.push(['match', `${t.match.id} · quality ${q2(t.match.quality.score)}`]);
  const side = h('div', {});
  if (t.why && t.why.length) {
    side.append(h('h3', {}, 'Why is it still waiting?'), h('ul', { class: 'why' }, t.why.map((w) => h('li', {}, w))));
  }
  if (t.match) {
    side.append(h('h3', {}, 'Teams'), h('ul', {}, t.match.teams.map((team, i) => h('li', {}, `team ${i + 1}: ${team.player_ids.join(', ')}`))));
  }
  return section('Ticket ' + t.id, h('div', { class: 'ticket-grid' },
    h('table', { class: 'kv' }, rows.map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, v)))), side));
}
