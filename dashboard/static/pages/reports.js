// Reports: who reported whom, for what and when, the counts per reason,
// and the players whose reports reach a reason's threshold (marked low
// priority). Read a page at a time, oldest cursor first; "Next page" reads
// on.
import { h, clear, section, stat, time } from '../dom.js';
import { api } from '../app.js';

export function show(app, overview) {
  app.append(h('h1', {}, 'Reports'));
  if (!overview.reports) { app.append(h('p', { class: 'muted' }, 'This server keeps no encounter history.')); return; }
  const body = h('div', { id: 'reports' }, h('p', { class: 'muted' }, 'Reading…'));
  const cursors = [''];
  const load = async (after) => {
    try {
      const res = await api('reports?after=' + encodeURIComponent(after));
      clear(body).append(
        h('div', { class: 'stats' },
          stat('reports on this page', res.reports.length),
          ...Object.keys(res.thresholds || {}).sort().map((r) =>
            stat(r, res.summary.by_reason[r] || 0, 'threshold ' + res.thresholds[r]))),
        section('Over a threshold (low priority)',
          res.summary.over.length ? overTable(res.summary.over) : h('p', { class: 'muted', id: 'none-over' }, 'Nobody.')),
        section('Reports',
          res.reports.length ? reportTable(res.reports) : h('p', { class: 'muted', id: 'no-reports' }, 'No report within the window.'),
          h('div', {},
            cursors.length > 1 ? h('button', { type: 'button', id: 'first-page', onclick: () => { cursors.length = 1; load(''); } }, 'First page') : null,
            res.next ? h('button', { type: 'button', id: 'next-page', onclick: () => { cursors.push(res.next); load(res.next); } }, 'Next page') : null)));
    } catch (e) {
      clear(body).append(h('p', { class: 'error' }, e.message));
    }
  };
  app.append(h('div', { class: 'titlebar' }, h('button', { type: 'button', id: 'refresh', onclick: () => load(cursors[cursors.length - 1]) }, 'Refresh')), body);
  load('');
}

function overTable(over) {
  return h('table', { class: 'over' },
    h('tr', {}, ['player', 'reason', 'reporters', 'threshold'].map((t) => h('th', {}, t))),
    over.map((o) => h('tr', { class: 'over-row', 'data-player': o.player, 'data-reason': o.reason },
      h('td', {}, o.player), h('td', {}, o.reason), h('td', {}, String(o.reporters)), h('td', {}, String(o.threshold)))));
}

function reportTable(reports) {
  return h('table', { class: 'reports' },
    h('tr', {}, ['player', 'reported by', 'reason', 'note', 'match', 'when'].map((t) => h('th', {}, t))),
    reports.map((r) => h('tr', { class: 'report', 'data-player': r.player, 'data-reason': r.reason },
      h('td', {}, r.player),
      h('td', {}, r.reporter),
      h('td', {}, r.reason),
      h('td', { class: 'small' }, r.note || '–'),
      h('td', { class: 'small' }, r.ref),
      h('td', { class: 'small muted' }, time(r.at)))));
}
