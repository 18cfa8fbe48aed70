// Opponent finders: the buckets by label, their fill against capacity,
// and the queries, offers and fake opponents; live.
import { h, clear, section, stat, pct } from '../dom.js';
import { live } from '../app.js';
import { meter } from '../charts.js';

export function show(app, overview) {
  app.append(h('h1', {}, 'Opponent finders'));
  if (!overview.finders.length) { app.append(h('p', { class: 'muted' }, 'This server runs no opponent finders.')); return; }
  const err = h('p', { class: 'error' });
  const body = h('div', { id: 'finders' }, h('p', { class: 'muted' }, 'Waiting for the first update…'));
  app.append(err, body);
  live({ page: 'finders' }, (snap) => {
    err.textContent = '';
    clear(body).append(...snap.finders.map(finderBox));
  }, (e) => { err.textContent = e.message; });
}

function finderBox(f) {
  const c = f.counters;
  return section(f.name,
    h('div', { class: 'stats' },
      stat('players cached', f.players, `${f.entries} entries`),
      stat('fill', f.capacity ? pct(f.entries / f.capacity) : '–', `${f.entries} of ${f.capacity} slots (cache ${f.cache_size})`),
      stat('buckets', f.buckets, f.has_sizing_model ? 'sized by a model' : 'even sizes'),
      stat('queries', c.queries, `${c.invalid_queries} refused`),
      stat('offers', c.successes, `${c.offer_removed} removed after an offer`),
      stat('fakes', c.fakes, `${c.none_found} found none`)),
    h('table', { class: 'buckets' },
      h('tr', {}, ['bucket (its labels)', 'fill', '', 'entries / slots', 'samples'].map((t) => h('th', {}, t))),
      f.per_bucket.map((b) => h('tr', {}, h('td', {}, b.label, h('div', { class: 'muted small' }, b.key)),
        h('td', { class: 'w' }, meter(b.entries, b.size, b.label)), h('td', {}, pct(b.fill)), h('td', {}, `${b.entries} / ${b.size}`), h('td', {}, Math.round(b.samples))))));
}
