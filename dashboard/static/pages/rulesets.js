// Rulesets: each queue's ruleset and its versions; an editor that checks
// as you type and marks every problem at its line and column; a try of
// the ruleset over sample tickets in virtual time; and putting it live.
import { h, clear, time, q2, section } from '../dom.js';
import { api } from '../app.js';

const sample = [
  { id: 'ann', at: 0, attributes: { mmr: 1500 } },
  { id: 'bob', at: 2, attributes: { mmr: 1580 } },
  { id: 'cid', at: 4, attributes: { mmr: 2100 } },
];

export function show(app, overview, args) {
  const queue = overview.queues.includes(args[0]) ? args[0] : overview.queues[0];
  const tabs = h('nav', { class: 'tabs' }, overview.queues.map((q) => h('a', { href: '#/rulesets/' + encodeURIComponent(q), class: q === queue ? 'here' : '' }, q)));
  const err = h('p', { class: 'error' });
  const gutter = h('div', { class: 'gutter', id: 'gutter' });
  const editor = h('textarea', { id: 'editor', spellcheck: 'false', wrap: 'off', autocomplete: 'off' });
  const problems = h('ul', { class: 'problems', id: 'problems' });
  const status = h('span', { id: 'check-status', class: 'muted' });
  const tickets = h('textarea', { id: 'sample', spellcheck: 'false', rows: 8 });
  tickets.value = JSON.stringify(sample, null, 1);
  const tryOut = h('div', { id: 'try-out' });
  const history = h('div', { id: 'history' });
  let version = 0;

  const put = h('button', { id: 'put', onclick: putLive }, 'Put live');
  // Import…: a FlexMatch rule set, a Nakama request or an Open Match
  // profile, converted on the server into the editor, with its report.
  const importFrom = h('select', { id: 'import-from', title: 'the product the file comes from' },
    ['flexmatch', 'nakama', 'openmatch'].map((p) => h('option', { value: p }, p)));
  const importFile = h('input', { type: 'file', id: 'import-file', accept: '.json,.txt', hidden: 'hidden', onchange: importIt });
  const importBtn = h('button', { id: 'import', onclick: () => importFile.click() }, 'Import…');
  const importOut = h('div', { id: 'import-out' });
  app.append(h('h1', {}, 'Rulesets'), tabs, err,
    h('div', { class: 'cols' },
      h('div', { class: 'col-main' },
        section('Ruleset of ' + queue,
          h('div', { class: 'editor' }, gutter, editor),
          h('div', { class: 'bar' }, status, importFrom, importBtn, importFile, put),
          problems, importOut),
        section('Try it on sample tickets',
          h('p', { class: 'muted' }, 'Tickets as "cupid ruleset try" takes them: id, at (second of arrival), attributes, party, options, latencies, cancel. The engine runs in virtual time; nothing is stored.'),
          tickets, h('div', { class: 'bar' }, h('button', { id: 'try', onclick: tryIt }, 'Try')), tryOut)),
      h('div', { class: 'col-side' }, section('Versions', history))));

  editor.addEventListener('input', () => { gutterLines(); schedule(); });
  editor.addEventListener('scroll', () => { gutter.scrollTop = editor.scrollTop; });
  editor.addEventListener('keydown', (ev) => {
    if (ev.key === 'Tab') { ev.preventDefault(); editor.setRangeText('  ', editor.selectionStart, editor.selectionEnd, 'end'); gutterLines(); schedule(); }
  });

  let marks = new Map(); // line → messages
  function gutterLines() {
    const n = editor.value.split('\n').length;
    clear(gutter);
    for (let i = 1; i <= n; i++) {
      const msgs = marks.get(i);
      gutter.append(h('div', { class: msgs ? 'ln bad' : 'ln', 'data-line': i, title: msgs ? msgs.join('\n') : null }, i));
    }
    gutter.scrollTop = editor.scrollTop;
  }

  let timer = 0, seq = 0;
  function schedule() {
    clearTimeout(timer);
    status.textContent = 'checking…';
    timer = setTimeout(check, 250);
  }
  async function check() {
    const my = ++seq;
    try {
      const res = await api('check', { method: 'POST', body: { ruleset: editor.value } });
      if (my !== seq) return; // typed on meanwhile
      showProblems(res.problems);
    } catch (e) {
      status.textContent = e.message;
    }
  }
  function showProblems(ps) {
    marks = new Map();
    clear(problems);
    for (const p of ps) {
      if (p.line > 0) marks.set(p.line, [...(marks.get(p.line) || []), p.message]);
      const where = p.line > 0 ? `line ${p.line}, column ${p.column}` : 'ruleset';
      problems.append(h('li', { class: 'problem', 'data-line': p.line, 'data-column': p.column },
        h('a', { href: '#', onclick: (ev) => { ev.preventDefault(); goTo(p.line, p.column); } }, where), ': ', p.path ? h('code', {}, p.path) : null, p.path ? ': ' : '', p.message));
    }
    status.textContent = ps.length ? `${ps.length} problem${ps.length > 1 ? 's' : ''}` : 'valid';
    status.className = ps.length ? 'error' : 'ok';
    put.disabled = ps.length > 0;
    gutterLines();
  }
  function goTo(line, col) {
    const lines = editor.value.split('\n');
    let at = 0;
    for (let i = 0; i < line - 1 && i < lines.length; i++) at += lines[i].length + 1;
    at += Math.max(col - 1, 0);
    editor.focus();
    editor.setSelectionRange(at, at + 1);
    const lh = editor.scrollHeight / Math.max(lines.length, 1);
    editor.scrollTop = Math.max(0, (line - 5) * lh);
  }

  async function load(keepText) {
    try {
      const res = await api('rulesets/' + encodeURIComponent(queue));
      version = res.version;
      if (!keepText) { editor.value = res.ruleset; showProblems([]); }
      put.textContent = `Put live as v${version + 1}`;
      clear(history).append(h('ol', { class: 'versions', reversed: true }, [...res.history].reverse().map((v) => h('li', {},
        h('b', {}, 'v' + v.version), v.version === version ? ' (live)' : '', ' ', h('span', { class: 'muted' }, `${time(v.at)} · ${v.via === 'editor' ? 'from this editor' : 'seen live'}`), ' ',
        h('a', { href: '#', onclick: (ev) => { ev.preventDefault(); editor.value = v.ruleset; gutterLines(); schedule(); } }, 'load')))));
    } catch (e) {
      err.textContent = e.message;
    }
  }

  async function putLive() {
    err.textContent = '';
    try {
      const res = await api('rulesets/' + encodeURIComponent(queue), { method: 'PUT', body: { ruleset: editor.value, expected_version: version } });
      status.textContent = `v${res.version} is live`;
      status.className = 'ok';
      await load(true);
    } catch (e) {
      if (e.body.problems) showProblems(e.body.problems);
      err.textContent = e.message;
    }
  }

  async function importIt() {
    const file = importFile.files[0];
    importFile.value = '';
    if (!file) return;
    clear(importOut);
    try {
      const res = await api('import', { method: 'POST', body: { from: importFrom.value, source: await file.text() } });
      if (res.ruleset) { editor.value = res.ruleset; gutterLines(); schedule(); }
      importOut.append(
        h('p', { class: res.outcome === 'exact' ? 'ok' : 'error' }, `${file.name}: ${res.outcome}` + (res.ruleset ? ', now in the editor (not live yet)' : '')),
        h('pre', { class: 'report', id: 'import-report' }, res.report),
        res.queues ? h('pre', { class: 'report' }, res.queues) : null);
    } catch (e) {
      importOut.append(h('p', { class: 'error' }, e.message));
    }
  }

  async function tryIt() {
    clear(tryOut);
    let ts;
    try { ts = JSON.parse(tickets.value); } catch (e) { tryOut.append(h('p', { class: 'error' }, 'The sample tickets are not JSON: ' + e.message)); return; }
    try {
      const res = await api('try', { method: 'POST', body: { ruleset: editor.value, tickets: ts } });
      const r = res.report;
      tryOut.append(
        h('table', { class: 'matches' }, h('tr', {}, ['at', 'teams', 'quality', 'waits'].map((t) => h('th', {}, t))),
          (r.matches || []).map((m) => h('tr', { class: 'try-match' }, h('td', {}, m.at + ' s'), h('td', {}, m.teams.map((t) => t.join(' + ')).join(' vs ')),
            h('td', {}, q2(m.quality)), h('td', {}, Object.entries(m.waits || {}).map(([k, v]) => `${k} ${v} s`).join(', '))))),
        (r.waiting || []).length ? h('ul', { class: 'why' }, r.waiting.map((w) => h('li', {}, h('b', {}, w.id), ' waits: ', w.summary))) : null,
        h('pre', { class: 'report' }, res.text));
    } catch (e) {
      if (e.body.problems) showProblems(e.body.problems);
      tryOut.append(h('p', { class: 'error' }, e.message));
    }
  }

  gutterLines();
  load(false);
}
