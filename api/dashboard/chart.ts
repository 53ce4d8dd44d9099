// A key's requests per UTC day as a small bar chart: inline SVG rendered on the server, so the page
// needs no script and loads nothing.
import { html, type Html } from '../presenters/html.js';

const BAR = 4;
const GAP = 1;
const HEIGHT = 24;

/** The `n` UTC days that end with `today` (YYYY-MM-DD), oldest first. */
export function lastDays(today: string, n: number): string[] {
  const end = Date.parse(`${today}T00:00:00Z`);
  return Array.from({ length: n }, (_, i) => new Date(end - (n - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

/** One bar per day, scaled to the busiest day; each bar's title says its day and count. */
export function usageChart(days: readonly string[], counts: ReadonlyMap<string, number> | undefined): Html {
  const values = days.map((day) => counts?.get(day) ?? 0);
  const peak = Math.max(1, ...values);
  const total = values.reduce((a, b) => a + b, 0);
  const width = days.length * (BAR + GAP) - GAP;
  const bars = days.map((day, i) => {
    const n = values[i]!;
    // A day with any request shows at least a 2-pixel bar; an idle day a 1-pixel baseline.
    const h = n === 0 ? 1 : Math.max(2, Math.round((n / peak) * HEIGHT));
    return html`<rect class="${n === 0 ? 'idle' : 'used'}" x="${i * (BAR + GAP)}" y="${HEIGHT - h}" width="${BAR}" height="${h}"><title>${day}: ${n}</title></rect>`;
  });
  return html`<svg class="chart" width="${width}" height="${HEIGHT}" viewBox="0 0 ${width} ${HEIGHT}" role="img" aria-label="${total} requests in the last ${days.length} days, at most ${Math.max(...values)} a day">${bars}</svg>`;
}
