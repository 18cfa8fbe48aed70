// Charts drawn as SVG: bars over time, a distribution, fill bars and the
// met-graph.
import { s, h } from './dom.js';

// bars draws one or two series of counts per minute, oldest first, the
// second as a line over the first's bars. opts.from labels the left end
// ('60 min ago' by default) and opts.titles each bar's time.
export function bars(series, opts = {}) {
  const w = opts.width || 320, hgt = opts.height || 70, pad = 2;
  const a = series[0] || [], b = series[1] || [];
  const top = Math.max(1, ...a, ...b);
  const bw = (w - pad * 2) / Math.max(a.length, 1);
  const svg = s('svg', { viewBox: `0 0 ${w} ${hgt + 14}`, class: 'chart', role: 'img', 'aria-label': opts.label || 'chart' });
  a.forEach((v, i) => {
    const bh = (v / top) * hgt;
    const when = opts.titles ? opts.titles[i] : `${a.length - 1 - i} min ago`;
    svg.append(s('rect', { x: pad + i * bw + 0.5, y: hgt - bh, width: Math.max(bw - 1, 1), height: bh, class: 'bar-a' }, s('title', {}, `${when}: ${v}${b.length ? ' / ' + b[i] : ''}`)));
  });
  if (b.length) {
    const pts = b.map((v, i) => `${pad + i * bw + bw / 2},${hgt - (v / top) * hgt}`).join(' ');
    svg.append(s('polyline', { points: pts, class: 'line-b' }));
  }
  svg.append(s('line', { x1: 0, y1: hgt + 0.5, x2: w, y2: hgt + 0.5, class: 'base' }));
  svg.append(s('text', { x: pad, y: hgt + 12, class: 'axis' }, opts.from || '60 min ago'));
  svg.append(s('text', { x: w - pad, y: hgt + 12, class: 'axis', 'text-anchor': 'end' }, 'now'));
  svg.append(s('text', { x: pad, y: 9, class: 'axis' }, 'max ' + top));
  return svg;
}

// histogram draws a distribution over [0,1] in bins.
export function histogram(bins, opts = {}) {
  const w = opts.width || 200, hgt = opts.height || 50;
  const top = Math.max(1, ...bins);
  const bw = w / bins.length;
  const svg = s('svg', { viewBox: `0 0 ${w} ${hgt + 14}`, class: 'chart', role: 'img', 'aria-label': opts.label || 'distribution' });
  bins.forEach((v, i) => {
    const bh = (v / top) * hgt;
    svg.append(s('rect', { x: i * bw + 1, y: hgt - bh, width: bw - 2, height: bh, class: 'bar-q' }, s('title', {}, `${(i / bins.length).toFixed(1)}–${((i + 1) / bins.length).toFixed(1)}: ${v}`)));
  });
  svg.append(s('line', { x1: 0, y1: hgt + 0.5, x2: w, y2: hgt + 0.5, class: 'base' }));
  for (const t of [0, 0.5, 1]) {
    svg.append(s('text', { x: t * w, y: hgt + 12, class: 'axis', 'text-anchor': t === 0 ? 'start' : t === 1 ? 'end' : 'middle' }, String(t)));
  }
  svg.append(s('text', { x: 0, y: 9, class: 'axis' }, 'max ' + top));
  return svg;
}

// meter is a fill bar: value of max.
export function meter(value, max, label, plain) {
  const f = max > 0 ? Math.min(value / max, 1) : 0;
  const svg = s('svg', { viewBox: '0 0 100 10', class: 'meter', preserveAspectRatio: 'none', role: 'img', 'aria-label': label || '' });
  svg.append(s('rect', { x: 0, y: 0, width: 100, height: 10, class: 'meter-bg' }));
  svg.append(s('rect', { x: 0, y: 0, width: 100 * f, height: 10, class: f > 0.9 && !plain ? 'meter-hi' : 'meter-fg' }));
  return svg;
}

// metGraph draws who met whom: the people present on a circle, each edge
// an arrow from the one whose record it is to the one met. A pair that met
// both ways (the usual case) is drawn as two arcs, bent apart.
export function metGraph(graph, opts = {}) {
  const size = opts.size || 420, r = size / 2 - 46, cx = size / 2, cy = size / 2;
  const people = [...new Set([...(graph.participants || []), ...(graph.edges || []).flatMap((e) => [e.from, e.to])])].sort();
  const present = new Set(graph.participants || []);
  const pos = new Map();
  people.forEach((p, i) => {
    const a = (2 * Math.PI * i) / Math.max(people.length, 1) - Math.PI / 2;
    pos.set(p, [cx + r * Math.cos(a), cy + r * Math.sin(a)]);
  });
  const svg = s('svg', { viewBox: `0 0 ${size} ${size}`, class: 'metgraph', role: 'img', 'aria-label': 'met-graph' });
  svg.append(s('defs', {}, s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
    s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }))));
  const nodeR = 14;
  for (const e of graph.edges || []) {
    const [x1, y1] = pos.get(e.from), [x2, y2] = pos.get(e.to);
    const dx = x2 - x1, dy = y2 - y1, d = Math.hypot(dx, dy) || 1;
    // Start and end on the circles' rims; bend to the right of the
    // direction, so the reverse edge bends the other way.
    const ux = dx / d, uy = dy / d;
    const sx = x1 + ux * nodeR, sy = y1 + uy * nodeR, ex = x2 - ux * (nodeR + 2), ey = y2 - uy * (nodeR + 2);
    const bend = Math.min(24, d / 5);
    const mx = (sx + ex) / 2 - uy * bend, my = (sy + ey) / 2 + ux * bend;
    svg.append(s('path', { d: `M${sx},${sy} Q${mx},${my} ${ex},${ey}`, class: 'edge', 'marker-end': 'url(#arrow)', 'data-from': e.from, 'data-to': e.to },
      s('title', {}, `${e.from} has met ${e.to}`)));
  }
  for (const p of people) {
    const [x, y] = pos.get(p);
    const g = s('g', { class: 'node' + (present.has(p) ? '' : ' gone'), 'data-id': p });
    g.append(s('circle', { cx: x, cy: y, r: nodeR }));
    const lx = cx + (r + nodeR + 6) * ((x - cx) / r), ly = cy + (r + nodeR + 6) * ((y - cy) / r);
    g.append(s('text', { x: lx, y: ly + 4, 'text-anchor': x < cx - 5 ? 'end' : x > cx + 5 ? 'start' : 'middle' }, p.length > 14 ? p.slice(0, 13) + '…' : p));
    g.append(s('title', {}, p + (present.has(p) ? '' : ' (gone)')));
    svg.append(g);
  }
  if (!people.length) svg.append(s('text', { x: cx, y: cy, 'text-anchor': 'middle', class: 'axis' }, 'nobody yet'));
  return h('div', { class: 'graph-wrap' }, svg);
}
