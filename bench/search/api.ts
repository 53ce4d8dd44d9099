// Search latency through the HTTP API against the same queries sent to the engine directly, in one run.
//   node --import tsx bench/search/api.ts --engine embedded|elasticsearch [--docs 1000000] [--seconds 10]
// embedded: uses the index built by bench/search/embedded.ts (same --docs and --seed).
// elasticsearch: needs ELASTICSEARCH_URL; loads the corpus once into production's layout (one index of
// every source) under the prefix `bench<docs>`.
// "Direct" = provider.search() (the same metadata view the API asks for) in this process with 10
// concurrent callers (the engine and its client,
// no HTTP API); "API" = wrk with 10 connections on GET /v1/search (restify, auth, quota, presenter).
// Needs wrk (apt-get install wrk).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { createBenchKeys, startBenchApi } from '../api-server.js';
import { percentile } from '../percentile.js';
import { wrkPercentile, wrkRequestsPerSecond } from '../wrk.js';
import { loadCorpus } from './corpus.js';
import { Generator, SURNAMES } from './generate.js';

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'embedded' },
    docs: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '20240611' },
    seconds: { type: 'string', default: '10' },
    dir: { type: 'string', default: process.env.PDI_BENCH_DIR || path.join(os.tmpdir(), 'pdi-bench') },
  },
});
const N = Number(args.docs);
const SEED = Number(args.seed);
const SECONDS = Number(args.seconds);
/** The id of the fallback embedder: what the API opens an index with when no model is configured. */
const MODEL = 'pdi/hashing-384';
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const progress = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

const gen = new Generator(N, SEED);
const queries = [
  { name: 'rare term', text: SURNAMES[700] },
  { name: 'most common term', text: gen.vocab[0] },
  { name: 'two-term query', text: 'ανάθεση δήμος' },
];

async function openEngine(dataDir: string): Promise<{ provider: SearchProvider; env: Record<string, string> }> {
  if (args.engine === 'embedded') {
    const file = path.join(args.dir!, `embedded-${N}-${SEED}.sqlite`);
    if (!fs.existsSync(`${file}.done.json`)) throw new Error(`build it first: node --import tsx bench/search/embedded.ts --docs ${N}`);
    fs.symlinkSync(file, path.join(dataDir, 'index.db'));
    const provider = new EmbeddedProvider({ file, dimension: 384, embeddingModel: MODEL });
    await provider.init();
    return { provider, env: {} };
  }
  const url = process.env.ELASTICSEARCH_URL;
  if (!url) throw new Error('ELASTICSEARCH_URL is not set (scripts/elasticsearch.sh start prints it)');
  const prefix = `bench${N}`;
  const provider = new ElasticsearchProvider({ url, prefix, dimension: 384, embeddingModel: MODEL, requestTimeoutMs: 120_000 });
  await provider.init();
  await loadCorpus(provider, gen, progress);
  return { provider, env: { ELASTICSEARCH_URL: url, PDI_INDEX_PREFIX: prefix } };
}

async function direct(provider: SearchProvider, text: string) {
  for (let i = 0; i < 5; i++) await provider.search({ text, limit: 100, offset: 0, view: 'metadata' });
  const lat: number[] = [];
  const deadline = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        await provider.search({ text, limit: 100, offset: 0, view: 'metadata' });
        lat.push(performance.now() - t0);
      }
    }),
  );
  lat.sort((a, b) => a - b);
  return { requests: lat.length, p50_ms: +percentile(lat, 50).toFixed(2), p99_ms: +percentile(lat, 99).toFixed(2) };
}

function viaApi(port: number, keysFile: string, text: string) {
  const url = `http://127.0.0.1:${port}/v1/search?q=${encodeURIComponent(text)}&limit=100`;
  const env = { ...process.env, PDI_BENCH_KEYS: keysFile };
  const script = path.join(root, 'bench/rotate-keys.lua');
  execFileSync('wrk', ['-t1', '-c10', '-d2s', '-s', script, url], { env });
  const out = execFileSync('wrk', ['-t1', '-c10', `-d${SECONDS}s`, '--latency', '-s', script, url], { encoding: 'utf8', env });
  return {
    requests_per_second: wrkRequestsPerSecond(out),
    p50_ms: wrkPercentile(out, 50),
    p99_ms: wrkPercentile(out, 99),
    non_2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
  };
}

function ratio(api: number | null, direct: number): number | null {
  return api === null ? null : +(api / direct).toFixed(2);
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-api-'));
const { provider, env } = await openEngine(dataDir);
// wrk's rotate-keys.lua reads the keys from a file.
const keysFile = path.join(dataDir, 'keys.txt');
fs.writeFileSync(keysFile, `${createBenchKeys(dataDir).join('\n')}\n`);
const { port, stop } = await startBenchApi(dataDir, env);

const results = [];
try {
  for (const q of queries) {
    const d = await direct(provider, q.text);
    const a = viaApi(port, keysFile, q.text);
    const total = (await provider.search({ text: q.text, limit: 1, offset: 0 })).total;
    const row = { query: q.name, text: q.text, total, direct: d, api: a, p50_ratio: ratio(a.p50_ms, d.p50_ms), p99_ratio: ratio(a.p99_ms, d.p99_ms) };
    progress(JSON.stringify(row));
    results.push(row);
  }
} finally {
  stop();
  await provider.close();
}
process.stdout.write(
  `${JSON.stringify({ engine: args.engine, documents: N, seconds: SECONDS, connections: 10, load_average: os.loadavg(), results }, null, 2)}\n`,
);
fs.rmSync(dataDir, { recursive: true, force: true });
