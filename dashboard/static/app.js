// The dashboard's shell: the key, calls to the data endpoints, the one live
// stream of the page shown, and the router between pages.
import { h, clear } from './dom.js';
import * as queues from './pages/queues.js';
import * as tickets from './pages/tickets.js';
import * as rulesets from './pages/rulesets.js';
import * as events from './pages/events.js';
import * as finders from './pages/finders.js';
import * as lobbies from './pages/lobbies.js';
import * as ops from './pages/ops.js';
import * as rollouts from './pages/rollouts.js';
import * as parties from './pages/parties.js';
import * as reports from './pages/reports.js';

const pages = { queues, tickets, rulesets, rollouts, events, finders, lobbies, parties, reports, ops };
const keyName = 'cupid-dashboard-key';

// ApiError carries the server's {code, field, message} and its problems.
export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
  }
}

function headers(extra) {
  const hd = Object.assign({}, extra);
  const key = sessionStorage.getItem(keyName);
  if (key) hd.Authorization = 'Bearer ' + key;
  return hd;
}

// api calls a data endpoint and returns its JSON; a 401 or 403 asks for
// the key again.
export async function api(path, opts = {}) {
  const init = { method: opts.method || 'GET', headers: headers(opts.body !== undefined ? { 'Content-Type': 'application/json' } : {}) };
  if (opts.body !== undefined) init.body = JSON.stringify(opts.body);
  const res = await fetch('api/' + path, init);
  let body = null;
  try { body = await res.json(); } catch (e) { body = null; }
  if (res.status === 401 || res.status === 403) {
    askKey(body && body.message);
  }
  if (!res.ok) throw new ApiError(res.status, body);
  return body;
}

// Live is one server-sent event stream read with fetch(), so the key goes
// in a header. It reconnects after a drop, waiting longer each time (1 s
// up to 15 s); it never polls.
class Live {
  constructor(query, onData, onError) {
    this.query = query;
    this.onData = onData;
    this.onError = onError;
    this.ctrl = new AbortController();
    this.backoff = 1000;
    this.run();
  }
  close() { this.ctrl.abort(); setLive(false); }
  async run() {
    while (!this.ctrl.signal.aborted) {
      try {
        const res = await fetch('api/stream?' + new URLSearchParams(this.query), { headers: headers({}), signal: this.ctrl.signal });
        if (!res.ok) {
          let body = null;
          try { body = await res.json(); } catch (e) { body = null; }
          if (res.status === 401 || res.status === 403) { askKey(body && body.message); setLive(false); return; }
          this.onError(new ApiError(res.status, body));
          if (res.status >= 400 && res.status < 500 && res.status !== 429) { setLive(false); return; }
        } else {
          setLive(true);
          this.backoff = 1000;
          await this.read(res.body.getReader());
        }
      } catch (e) {
        if (this.ctrl.signal.aborted) return;
      }
      setLive(false);
      await new Promise((r) => setTimeout(r, this.backoff));
      this.backoff = Math.min(this.backoff * 2, 15000);
    }
  }
  async read(reader) {
    const dec = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true });
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let kind = 'message';
        const data = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) kind = line.slice(7);
          else if (line.startsWith('data: ')) data.push(line.slice(6));
        }
        if (!data.length) continue;
        const msg = JSON.parse(data.join('\n'));
        if (kind === 'error') this.onError(new ApiError(0, msg));
        else this.onData(msg);
      }
    }
  }
}

let current = null; // the shown page's live stream

// live opens the page's stream, closing the one before.
export function live(query, onData, onError) {
  if (current) current.close();
  current = new Live(query, onData, onError || (() => {}));
  return current;
}

function setLive(on) {
  const el = document.getElementById('live');
  el.hidden = on === null;
  el.className = 'live ' + (on ? 'on' : 'off');
  el.textContent = on ? 'live' : 'offline';
}

let overview = null;

function askKey(message) {
  const box = document.getElementById('login');
  if (!box.hidden) return;
  if (current) current.close();
  document.getElementById('login-error').textContent = sessionStorage.getItem(keyName) ? (message || 'That key was refused.') : '';
  box.hidden = false;
  document.getElementById('login-key').focus();
}

async function start() {
  document.getElementById('login-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    sessionStorage.setItem(keyName, document.getElementById('login-key').value.trim());
    document.getElementById('login').hidden = true;
    overview = null;
    route();
  });
  document.getElementById('logout').addEventListener('click', () => {
    sessionStorage.removeItem(keyName);
    location.reload();
  });
  window.addEventListener('hashchange', route);
  route();
}

async function route() {
  const app = document.getElementById('app');
  const [, name, ...rest] = (location.hash || '#/queues').split('/');
  const page = pages[name] ? name : 'queues';
  for (const a of document.querySelectorAll('#nav a')) a.classList.toggle('here', a.dataset.page === page);
  if (current) { current.close(); current = null; }
  setLive(null); // a page without a stream shows no live state
  if (!overview) {
    try {
      overview = await api('overview');
    } catch (e) {
      clear(app).append(h('p', { class: 'error' }, e.status === 401 || e.status === 403 ? 'An admin key is needed.' : 'The server did not answer: ' + e.message));
      return;
    }
  }
  document.getElementById('logout').hidden = !overview.auth;
  clear(app);
  pages[page].show(app, overview, rest.map(decodeURIComponent));
}

start();
