// The page's charts, drawn as SVG with no library: columns (a value by year), horizontal bars (the
// largest buckets or counterparties) and a timeline of documents. Each bar carries its key and value
// as data attributes, and each chart comes with its numbers as a table, for a screen reader and for
// anyone who wants the figures.
import { el, svg } from './dom.js';
import { L } from './text.js';

/** The figures of a chart as a table under a disclosure. */
function numbersTable(items, keyHeading, valueHeading, format) {
  return el(
    'details',
    { class: 'numbers' },
    el('summary', {}, L.chartTable),
    el(
      'table',
      {},
      el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, keyHeading), el('th', { scope: 'col', class: 'num' }, valueHeading))),
      el(
        'tbody',
        {},
        items.map((item) => el('tr', {}, el('th', { scope: 'row' }, item.label), el('td', { class: 'num' }, format(item.value)))),
      ),
    ),
  );
}

/**
 * Columns, one per item in the order given, scaled to the largest: `items` are `{ key, label, value }`,
 * each column labelled with `short(value)` (the title and the table say `format(value)`). The SVG
 * scales to the figure's width, at most its viewBox's, so its text keeps its size on a desktop.
 */
export function columnChart({ id, caption, items, format, short, keyHeading, valueHeading }) {
  const width = Math.max(480, items.length * 64);
  const height = 220;
  const top = 24;
  const bottom = 28;
  const peak = Math.max(1, ...items.map((i) => i.value));
  const slot = width / Math.max(1, items.length);
  const bars = items.map((item, i) => {
    const h = item.value <= 0 ? 1 : Math.max(2, ((height - top - bottom) * item.value) / peak);
    const x = i * slot + slot * 0.15;
    return svg(
      'g',
      { class: 'column', 'data-key': item.key, 'data-value': item.value },
      svg('title', {}, `${item.label}: ${format(item.value)}`),
      svg('rect', { x: x.toFixed(1), y: (height - bottom - h).toFixed(1), width: (slot * 0.7).toFixed(1), height: h.toFixed(1) }),
      svg('text', { x: (x + slot * 0.35).toFixed(1), y: (height - bottom - h - 6).toFixed(1), class: 'value', 'text-anchor': 'middle' }, short(item.value)),
      svg('text', { x: (x + slot * 0.35).toFixed(1), y: height - 8, class: 'axis', 'text-anchor': 'middle' }, item.label),
    );
  });
  const summary = items.map((i) => `${i.label}: ${format(i.value)}`).join('; ');
  return el(
    'figure',
    { id, class: 'chart' },
    el('figcaption', {}, caption),
    svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `${caption}. ${summary}` }, bars),
    numbersTable(items, keyHeading, valueHeading, format),
  );
}

/**
 * Horizontal bars, largest first as given: `items` are `{ key, label, value, href? }`. Each row is a
 * label (a link when `href`), a bar in its own SVG and the value, so the text wraps on a phone.
 */
export function barChart({ id, caption, items, format, keyHeading, valueHeading }) {
  const peak = Math.max(1, ...items.map((i) => i.value));
  const rows = items.map((item) =>
    el(
      'li',
      { 'data-key': item.key, 'data-value': item.value },
      el('span', { class: 'bar-label' }, item.href ? el('a', { href: item.href }, item.label) : item.label),
      svg(
        'svg',
        { class: 'bar', viewBox: '0 0 100 10', preserveAspectRatio: 'none', 'aria-hidden': 'true', focusable: 'false' },
        svg('rect', { width: Math.max(0.5, (100 * item.value) / peak).toFixed(2), height: 10 }),
      ),
      el('span', { class: 'bar-value' }, format(item.value)),
    ),
  );
  return el(
    'figure',
    { id, class: 'chart' },
    el('figcaption', {}, caption),
    el('ol', { class: 'bars' }, rows),
    numbersTable(items, keyHeading, valueHeading, format),
  );
}

const DAY_MS = 86_400_000;

/**
 * Documents as dots on a time axis from the first to the last date, a row per category, each dot
 * titled with its date and title; `docs` are metadata records. Year ticks along the axis.
 */
export function timeline({ id, caption, docs }) {
  const width = 1000;
  const categories = [...new Set(docs.map((d) => d.doc_category))].sort();
  const row = 18;
  const axis = 20 + categories.length * row;
  const height = axis + 24;
  const times = docs.map((d) => Date.parse(d.published_at));
  const from = Math.min(...times) - DAY_MS * 15;
  const to = Math.max(...times) + DAY_MS * 15;
  const left = 170;
  const x = (t) => left + ((width - left - 10) * (t - from)) / Math.max(1, to - from);
  const ticks = [];
  // Years over a long span, quarters over a year or more, else months: a dozen labels at most.
  const days = (to - from) / DAY_MS;
  const step = days > 3 * 365 ? 12 : days > 365 ? 3 : 1;
  const start = new Date(from);
  for (let m = start.getUTCFullYear() * 12 + start.getUTCMonth() + 1; ; m++) {
    const at = Date.UTC(Math.floor(m / 12), m % 12, 1);
    if (at > to) break;
    if (m % step !== 0) continue;
    const tx = x(at);
    const text = step === 12 ? String(Math.floor(m / 12)) : new Date(at).toISOString().slice(0, 7);
    ticks.push(svg('line', { x1: tx.toFixed(1), x2: tx.toFixed(1), y1: 10, y2: axis, class: 'tick' }));
    // A label that would run past the right edge is left out; its line still shows.
    if (tx < width - 35) ticks.push(svg('text', { x: tx.toFixed(1), y: axis + 16, class: 'axis', 'text-anchor': 'middle' }, text));
  }
  const rows = categories.map((c, i) => svg('text', { x: 0, y: 20 + i * row + 4, class: 'axis' }, c));
  const dots = docs.map((d, i) =>
    svg(
      'circle',
      { cx: x(times[i]).toFixed(1), cy: 20 + categories.indexOf(d.doc_category) * row, r: 5, class: `dot source-${d.source}` },
      svg('title', {}, `${d.published_at.slice(0, 10)} · ${d.title}`),
    ),
  );
  return el(
    'figure',
    { id, class: 'chart timeline' },
    el('figcaption', {}, caption),
    svg(
      'svg',
      { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `${L.timeline}: ${caption}` },
      svg('line', { x1: left, x2: width - 10, y1: axis, y2: axis, class: 'baseline' }),
      ticks,
      rows,
      dots,
    ),
  );
}
