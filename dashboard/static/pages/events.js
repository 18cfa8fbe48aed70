// Speed-dating events: the lobby, the rooms and the timer, live, and the
// met-graph drawn as a directed graph.
import { h, clear, secs, section, stat } from '../dom.js';
import { live } from '../app.js';
import { metGraph } from '../charts.js';

export function show(app, overview, args) {
  app.append(h('h1', {}, 'Speed dating'));
  if (!overview.pairing) { app.append(h('p', { class: 'muted' }, 'This server runs no speed-dating events.')); return; }
  const chosen = args[0] || '';
  const err = h('p', { class: 'error' });
  const list = h('div', { id: 'events' }, h('p', { class: 'muted' }, 'Waiting for the first update…'));
  const detail = h('div', { id: 'event' });
  app.append(err, list, detail);
  let timer = 0;
  live(chosen ? { page: 'events', event: chosen } : { page: 'events' }, (snap) => {
    err.textContent = '';
    clear(list).append(...(snap.events.length ? [h('ul', { class: 'eventtabs' }, snap.events.map((e) => h('li', { class: e.id === chosen ? 'here' : '' },
      h('a', { href: '#/events/' + encodeURIComponent(e.id) }, e.name || e.id, ' ', h('span', { class: 'muted' }, `${e.phase} · round ${e.round} · ${e.participants} present`)))))]
      : [h('p', { class: 'muted' }, 'No event.')]),
    ...(snap.total > snap.events.length ? [h('p', { class: 'muted' }, `and ${snap.total - snap.events.length} more`)] : []));
    if (!chosen) { clear(detail).append(h('p', { class: 'muted' }, 'Pick an event.')); return; }
    if (snap.event) {
      clearInterval(timer);
      clear(detail).append(eventBox(snap.event));
      // The timer counts down between updates on the page's own clock.
      const started = Date.now();
      const el = detail.querySelector('.timer');
      if (el && snap.event.remaining_seconds > 0) {
        timer = setInterval(() => {
          const left = Math.max(0, snap.event.remaining_seconds - (Date.now() - started) / 1000);
          el.textContent = secs(Math.round(left));
          if (!left) clearInterval(timer);
        }, 1000);
      }
    }
  }, (e) => { err.textContent = e.message; });
}

function eventBox(e) {
  const phase = e.status || e.phase;
  const rooms = [];
  for (let n = 1; n <= e.rooms; n++) {
    const p = e.pairs.find((x) => x.room === n);
    rooms.push(h('div', { class: 'room' + (p ? ' busy' : '') }, h('div', { class: 'muted' }, 'room ' + n),
      p ? h('div', {}, [p.a, p.b, p.c].filter(Boolean).join(' ↔ ')) : h('div', { class: 'muted' }, 'empty')));
  }
  return h('div', { class: 'event-cols' },
    section(e.name || e.id,
      h('div', { class: 'stats' },
        stat('phase', e.phase, phase),
        stat('round', e.round),
        stat(e.phase === 'countdown' ? 'round starts in' : 'round ends in', h('span', { class: 'timer' }, e.remaining_seconds > 0 ? secs(e.remaining_seconds) : '–')),
        stat('present', e.participants.length),
        stat('in the lobby', e.lobby.length, `a round starts at ${e.min_lobby}`),
        stat('rooms', `${e.pairs.length} / ${e.rooms}`, `rounds of ${secs(e.round_seconds)}`)),
      h('h3', {}, 'Lobby'),
      e.lobby.length ? h('div', { class: 'chips' }, e.lobby.map((p) => h('span', { class: 'chip' }, p))) : h('p', { class: 'muted' }, 'empty'),
      e.away && e.away.length ? [h('h3', {}, 'Away'), h('div', { class: 'chips' }, e.away.map((p) => h('span', { class: 'chip away' }, p)))] : null,
      h('h3', {}, 'Rooms'),
      h('div', { class: 'rooms' }, rooms)),
    section(`Who has met whom (after round ${e.graph_round})`,
      metGraph(e.graph, { size: 400 }),
      h('p', { class: 'muted small' }, 'An arrow goes from a person to someone their record says they have met; a pair that met shows two arrows, one each way. Grey: gone.')));
}
