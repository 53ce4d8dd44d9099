// Clients that give up: does work for requests nobody waits for any more crowd out the rest?
//   node --import tsx bench/search/impatient-clients.ts [--engine embedded|elasticsearch] [--server-dir DIR]
// Starts the API (from --server-dir, default this checkout, so an older revision can be measured with
// the same load), then for --seconds runs
//   - --clients impatient clients, each sending the heavy query and giving up after --timeout-ms (the
//     connection closed, as a client or gateway timeout does), then sending it again at once;
//   - one probe client sending a cheap search (a rare surname) one after another, never giving up;
// and reports the probe's latencies during the load (answers of 200 only), how long the first probe
// after the load took (the backlog left behind), and answers other than 200. embedded: the 1M index of
// bench/search/embedded.ts; elasticsearch: the corpus bench/search/api.ts loads, at ELASTICSEARCH_URL.
// Results: docs/benchmarks.md "Reliability under load".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createBenchKeys, startBenchApi } from '../api-server.js';
import { percentile } from '../percentile.js';
import { SURNAMES } from './generate.js';

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'embedded' },
    'server-dir': { type: 'string' },
    heavy: { type: 'string' },
    clients: { type: 'string', default: '4' },
    'timeout-ms': { type: 'string', default: '500' },
    seconds: { type: 'string', default: '15' },
    docs: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '20240611' },
    dir: { type: 'string', default: process.env.PDI_BENCH_DIR || path.join(os.tmpdir(), 'pdi-bench') },
  },
});
const CLIENTS = Number(args.clients);
const TIMEOUT_MS = Number(args['timeout-ms']);
const SECONDS = Number(args.seconds);
// Two common terms: ~0.4-1.4 s on the embedded engine at 1M documents, ~140 ms on Elasticsearch.
const HEAVY = args.heavy ?? (args.engine === 'embedded' ? 'προμήθεια σύμβαση' : 'ανάθεση δήμος');
const RARE = SURNAMES[700];
const progress = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-impatient-'));
const engineEnv: Record<string, string> = {};
if (args.engine === 'embedded') {
  const file = path.join(args.dir!, `embedded-${args.docs}-${args.seed}.sqlite`);
  if (!fs.existsSync(`${file}.done.json`)) throw new Error(`build it first: node --import tsx bench/search/embedded.ts --docs ${args.docs}`);
  fs.symlinkSync(file, path.join(dataDir, 'index.db'));
} else {
  const url = process.env.ELASTICSEARCH_URL;
  if (!url) throw new Error('ELASTICSEARCH_URL is not set (scripts/elasticsearch.sh start prints it)');
  Object.assign(engineEnv, { ELASTICSEARCH_URL: url, PDI_INDEX_PREFIX: `bench${args.docs}` });
}
const keys = createBenchKeys(dataDir);
let nextKey = 0;
const auth = () => ({ Authorization: `Bearer ${keys[nextKey++ % keys.length]}` });

const serverDir = args['server-dir'] ? path.resolve(args['server-dir']) : undefined;
const { url: base } = await startBenchApi(dataDir, engineEnv, serverDir);
const searchUrl = (q: string) => `${base}/v1/search?q=${encodeURIComponent(q)}&limit=100`;

/** Answers other than 200, by status (an overloaded engine answers 503). */
const failures: Record<string, number> = {};

/** One search: its latency in ms, null when it was given up, 'failed' for an answer other than 200. */
async function timed(q: string, timeoutMs?: number): Promise<number | null | 'failed'> {
  const started = performance.now();
  try {
    const res = await fetch(searchUrl(q), { headers: auth(), signal: timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined });
    await res.arrayBuffer();
    if (res.status !== 200) {
      const kind = `${q === RARE ? 'probe' : 'heavy'} ${res.status}`;
      failures[kind] = (failures[kind] ?? 0) + 1;
      return 'failed';
    }
    return performance.now() - started;
  } catch (err) {
    if ((err as Error).name === 'TimeoutError') return null;
    throw err;
  }
}

// Warm-up: both queries once, unhurried.
await timed(RARE);
await timed(HEAVY);
const alone: number[] = [];
for (let i = 0; i < 20; i++) alone.push((await timed(RARE)) as number);

progress(`${CLIENTS} impatient clients (${TIMEOUT_MS} ms) on "${HEAVY}", probe "${RARE}", ${SECONDS} s, server from ${serverDir}`);
const end = performance.now() + SECONDS * 1000;
let givenUp = 0;
let answered = 0;
const impatient = Array.from({ length: CLIENTS }, async () => {
  while (performance.now() < end) {
    const outcome = await timed(HEAVY, TIMEOUT_MS);
    if (outcome === null) givenUp++;
    else if (outcome !== 'failed') answered++;
  }
});
const probe: number[] = [];
const probing = (async () => {
  while (performance.now() < end) {
    const ms = await timed(RARE);
    if (typeof ms === 'number') probe.push(ms);
  }
})();
await Promise.all([...impatient, probing]);
const afterStarted = performance.now();
await timed(RARE);
const after = performance.now() - afterStarted;

// In ms to 0.1; none measured gives NaN, which JSON writes as null.
const pct = (xs: number[], p: number) =>
  +percentile(
    [...xs].sort((a, b) => a - b),
    p,
  ).toFixed(1);
process.stdout.write(
  `${JSON.stringify(
    {
      engine: args.engine,
      server_dir: serverDir ?? 'this checkout',
      heavy: HEAVY,
      probe: RARE,
      clients: CLIENTS,
      timeout_ms: TIMEOUT_MS,
      seconds: SECONDS,
      probe_alone_ms: { p50: pct(alone, 50), p99: pct(alone, 99) },
      heavy_given_up: givenUp,
      heavy_answered: answered,
      probe_under_load: { answered: probe.length, p50_ms: pct(probe, 50), p99_ms: pct(probe, 99), max_ms: pct(probe, 100) },
      first_probe_after_load_ms: +after.toFixed(1),
      failures,
      load_average: os.loadavg(),
    },
    null,
    2,
  )}\n`,
);
fs.rmSync(dataDir, { recursive: true, force: true });
