// Aggregates, facets and export against the plain search of the same query, through the HTTP API, in
// one run, on either engine (ELASTICSEARCH_URL set: Elasticsearch):
//   node --import tsx bench/analysis.ts [--data DIR] [--query "δύο λέξεις"] [--seconds 10]
// --data: a data folder already loaded (the grown corpus: bench/README.md, `pdi reindex` into it);
// without it, the demo corpus is loaded through the real pipeline into a fresh folder.
// wrk with 10 connections on GET /v1/search?q=<query>&limit=10, then the aggregate of that query by
// supplier, the same search with five facets, and the aggregate of the whole corpus by year then source.
// Then one export of the whole corpus (NDJSON) read as fast as it comes: documents per second, and the
// server's RSS from the first document to the last (read from /proc every 100 ms).
// Targets: aggregate by supplier and faceted search p50 ≤ 3x the search's; year × source ≤ 5x; export
// ≥ 5,000 documents a second, RSS within ±64 MiB. Needs wrk (apt-get install wrk) and Linux's /proc.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadDemo } from '../ingest/demo.js';
import { openRuntime } from '../ingest/runtime.js';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { createBenchKeys, startBenchApi } from './api-server.js';
import { wrkPercentile, wrkRequestsPerSecond } from './wrk.js';

const { values: args } = parseArgs({
  options: { data: { type: 'string' }, query: { type: 'string', default: 'προμήθεια υλικών' }, seconds: { type: 'string', default: '10' } },
});
const SECONDS = Number(args.seconds);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const progress = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

const dataDir = args.data ? path.resolve(args.data) : fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-analysis-'));
const prefix = process.env.PDI_INDEX_PREFIX ?? `benchanalysis${process.pid}`;
const env: Record<string, string> = process.env.ELASTICSEARCH_URL ? { ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL, PDI_INDEX_PREFIX: prefix } : {};
if (!args.data) {
  const runtime = await openRuntime(loadConfig({ ...env, PDI_DATA_DIR: dataDir, LOG_LEVEL: 'silent', PDI_MODEL_DIR: '' }), createLogger('silent'));
  progress('loading the demo corpus');
  await loadDemo(runtime);
  await runtime.close();
}
const keys = createBenchKeys(dataDir);
const keysFile = path.join(os.tmpdir(), `pdi-bench-analysis-keys-${process.pid}.txt`);
fs.writeFileSync(keysFile, `${keys.join('\n')}\n`);
const api = await startBenchApi(dataDir, env);

function viaApi(pathAndQuery: string) {
  const url = `${api.url}${pathAndQuery}`;
  const wrkEnv = { ...process.env, PDI_BENCH_KEYS: keysFile };
  const script = path.join(root, 'bench/rotate-keys.lua');
  // A request is waited for (30 s, not wrk's 2 s): one given up on is still worked on by the server,
  // and what follows waits behind it.
  execFileSync('wrk', ['-t1', '-c10', '-d2s', '--timeout', '30s', '-s', script, url], { env: wrkEnv });
  const out = execFileSync('wrk', ['-t1', '-c10', `-d${SECONDS}s`, '--timeout', '30s', '--latency', '-s', script, url], { encoding: 'utf8', env: wrkEnv });
  return { requests_per_second: wrkRequestsPerSecond(out), p50_ms: wrkPercentile(out, 50), p99_ms: wrkPercentile(out, 99) };
}

/** The server's resident memory in MiB. */
const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${api.pid}/status`, 'utf8'))![1]) / 1024;

/** One whole-corpus export read as fast as it arrives: rows, seconds, and the RSS range while it streamed. */
async function exportRun() {
  const res = await fetch(`${api.url}/v1/export?format=ndjson`, { headers: { Authorization: `Bearer ${keys[0]}` } });
  // An error's JSON body has no newline: it read as 0 rows when the export waited past the engine
  // deadline behind aggregates wrk had given up on.
  if (res.status !== 200) throw new Error(`the export answered ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  let rows = 0;
  let first: number | null = null;
  const samples: number[] = [];
  const sampler = setInterval(() => first !== null && samples.push(rss()), 100);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (first === null) {
      first = performance.now();
      samples.push(rss());
    }
    for (const byte of value) if (byte === 10) rows++;
  }
  clearInterval(sampler);
  samples.push(rss());
  const seconds = (performance.now() - first!) / 1000;
  return {
    rows,
    seconds: +seconds.toFixed(2),
    documents_per_second: Math.round(rows / seconds),
    rss_mib: { min: Math.min(...samples), max: Math.max(...samples) },
  };
}

const q = encodeURIComponent(args.query!);
const results: Record<string, Record<string, unknown>> = {};
try {
  const cases: [string, string][] = [
    ['search', `/v1/search?q=${q}&limit=10`],
    ['aggregate_by_supplier', `/v1/aggregate?q=${q}&group_by=supplier`],
    ['faceted_search', `/v1/search?q=${q}&limit=10&facets=source,year,cpv_division,buyer,supplier`],
    ['aggregate_year_source', '/v1/aggregate?group_by=year&then_by=source'],
  ];
  for (const [name, p] of cases) {
    results[name] = viaApi(p);
    progress(`${name} ${JSON.stringify(results[name])}`);
  }
  results.export = await exportRun();
  progress(`export ${JSON.stringify(results.export)}`);
} finally {
  api.stop();
  fs.rmSync(keysFile, { force: true });
}
const ratio = (name: string) => +((results[name]!.p50_ms as number) / (results.search!.p50_ms as number)).toFixed(2);
const exported = results.export as { rss_mib: { min: number; max: number } };
process.stdout.write(
  `${JSON.stringify(
    {
      engine: env.ELASTICSEARCH_URL ? 'elasticsearch' : 'embedded',
      query: args.query,
      seconds: SECONDS,
      connections: 10,
      load_average: os.loadavg(),
      results,
      aggregate_by_supplier_p50_ratio: ratio('aggregate_by_supplier'),
      faceted_search_p50_ratio: ratio('faceted_search'),
      aggregate_year_source_p50_ratio: ratio('aggregate_year_source'),
      export_rss_range_mib: +(exported.rss_mib.max - exported.rss_mib.min).toFixed(1),
    },
    null,
    2,
  )}\n`,
);
if (!args.data) {
  if (env.ELASTICSEARCH_URL) await fetch(`${env.ELASTICSEARCH_URL}/${prefix}*`, { method: 'DELETE' }).catch(() => undefined);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
