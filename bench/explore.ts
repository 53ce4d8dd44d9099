// The explore page's cost on the demo corpus (or a loaded folder: --data), on loopback, in one run:
//   node --import tsx bench/explore.ts [--data DIR] [--loads 7]
// - each view's HTML: 20 GETs in a row from Node, p50 and p90 ms;
// - the page's assets as served, and gzip-compressed (what a compressing proxy in front would send);
// - each view in Chromium, its assets cached as after a first visit: from navigation to its first paint
//   (the frame and the form) and to the view drawn with the API's answer (the page's performance mark
//   `explore-ready`), against the span of the API requests it made (the first's start to the last's
//   end; the first's start is the page's own start-up), p50 of `loads` loads.
// Targets: a view's HTML within 300 ms and drawn within 1.5x its API requests' span (the grown corpus),
// the assets under 150 KB compressed. Needs Chromium (apt-get install chromium).
import os from 'node:os';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { exploreAssets } from '../api/explore/routes.js';
import { demoApi, demoViews, progress, signIn } from './explore-demo.js';
import { percentile } from './percentile.js';

const { values: args } = parseArgs({ options: { data: { type: 'string' }, loads: { type: 'string', default: '7' } } });
const LOADS = Number(args.loads);
const HTML_GETS = 20;

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const round = (ms: number) => +ms.toFixed(1);

const loadAverageBefore = os.loadavg();
const demo = await demoApi(args.data);
const out: Record<string, unknown> = {};
try {
  const views = await demoViews(demo.api, demo.key);

  const html: Record<string, { p50_ms: number; p90_ms: number; bytes: number }> = {};
  for (const view of views) {
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < HTML_GETS; i++) {
      const started = performance.now();
      const res = await fetch(`${demo.api.url}${view.path}`);
      bytes = (await res.arrayBuffer()).byteLength;
      times.push(performance.now() - started);
    }
    html[view.name] = { p50_ms: round(percentile(sorted(times), 50)), p90_ms: round(percentile(sorted(times), 90)), bytes };
    progress(`html ${view.name} ${JSON.stringify(html[view.name])}`);
  }
  out.html = html;

  const { base, files } = exploreAssets();
  let served = 0;
  let gzipped = 0;
  for (const name of files.keys()) {
    const body = Buffer.from(await (await fetch(`${demo.api.url}${base}/${name}`)).arrayBuffer());
    served += body.length;
    gzipped += gzipSync(body).length;
  }
  out.assets = { files: files.size, bytes: served, gzip_bytes: gzipped };
  progress(`assets ${JSON.stringify(out.assets)}`);

  const page = await demo.browser.newPage({ viewport: { width: 1280, height: 900 } });
  await signIn(page, demo.api.url, demo.key);
  const drawn: Record<string, { first_paint_p50_ms: number; api_start_p50_ms: number; api_p50_ms: number; drawn_p50_ms: number; ratio: number }> = {};
  for (const view of views) {
    const paints: number[] = [];
    const starts: number[] = [];
    const ready: number[] = [];
    const spans: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      await page.goto(`${demo.api.url}${view.path}`);
      await page.waitForSelector('body[data-state="ready"]');
      const t = await page.evaluate(() => {
        const api = performance.getEntriesByType('resource').filter((e) => new URL(e.name).pathname.startsWith('/v1/')) as PerformanceResourceTiming[];
        return {
          paint: performance.getEntriesByName('first-contentful-paint')[0]!.startTime,
          ready: performance.getEntriesByName('explore-ready')[0]!.startTime,
          start: Math.min(...api.map((e) => e.startTime)),
          span: Math.max(...api.map((e) => e.responseEnd)) - Math.min(...api.map((e) => e.startTime)),
        };
      });
      paints.push(t.paint);
      starts.push(t.start);
      ready.push(t.ready);
      spans.push(t.span);
    }
    const drawnP50 = percentile(sorted(ready), 50);
    const apiP50 = percentile(sorted(spans), 50);
    drawn[view.name] = {
      first_paint_p50_ms: round(percentile(sorted(paints), 50)),
      api_start_p50_ms: round(percentile(sorted(starts), 50)),
      api_p50_ms: round(apiP50),
      drawn_p50_ms: round(drawnP50),
      ratio: +(drawnP50 / apiP50).toFixed(2),
    };
    progress(`drawn ${view.name} ${JSON.stringify(drawn[view.name])}`);
  }
  out.drawn = drawn;
} finally {
  await demo.close();
}
process.stdout.write(
  `${JSON.stringify({ corpus: args.data ?? 'demo', loads: LOADS, load_average: { before: loadAverageBefore, after: os.loadavg() }, ...out }, null, 2)}\n`,
);
