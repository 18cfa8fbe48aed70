// Small DOM helpers. Text from the server (ids, names) only ever goes in
// through textContent, never as HTML.
const svgNS = 'http://www.w3.org/2000/svg';

// h makes an element: h('div', {class: 'x', onclick: f}, 'text', child…).
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  return fill(el, attrs, children);
}

// s makes an SVG element the same way.
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(svgNS, tag);
  return fill(el, attrs, children);
}

function fill(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'value') el.value = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function clear(el) {
  el.replaceChildren();
  return el;
}

// secs renders seconds for people: 0.4 s, 12 s, 3 min 5 s, 2 h 1 min.
export function secs(x) {
  if (x === undefined || x === null || Number.isNaN(x)) return '–';
  if (x < 10) return (Math.round(x * 10) / 10) + ' s';
  if (x < 60) return Math.round(x) + ' s';
  if (x < 3600) return Math.floor(x / 60) + ' min ' + Math.round(x % 60) + ' s';
  return Math.floor(x / 3600) + ' h ' + Math.round((x % 3600) / 60) + ' min';
}

// nanos renders a Go duration (JSON nanoseconds).
export function nanos(n) { return secs(n / 1e9); }

export function pct(x) { return Math.round(x * 100) + '%'; }

export function q2(x) { return (Math.round(x * 100) / 100).toFixed(2); }

export function time(t) {
  const d = new Date(t);
  return d.toLocaleTimeString([], { hour12: false });
}

// section is a titled box.
export function section(title, ...children) {
  return h('section', { class: 'box' }, h('h2', {}, title), ...children);
}

export function stat(label, value, note) {
  return h('div', { class: 'stat' }, h('div', { class: 'v' }, value), h('div', { class: 'l' }, label), note ? h('div', { class: 'n' }, note) : null);
}
