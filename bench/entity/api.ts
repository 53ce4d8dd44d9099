// Entity resolution against a rare-term search, through the HTTP API, in one run, at demo scale:
//   node --import tsx bench/entity/api.ts [--seconds 10]     (with ELASTICSEARCH_URL set: that engine)
// Loads the demo corpus (data/demo) through the real pipeline into a fresh data folder, then drives
// wrk with 10 connections on GET /v1/search?q=<rare term> (a title word of two documents), on
// GET /v1/entity/{afm} (the ΑΦΜ with the most documents), on the ΑΦΜs of the corpus in turn and on a
// name: each a lookup of the aggregates kept at write time. Target: entity by ΑΦΜ p50 within 1x of the rare-term search (a lookup costs no more than a search).
// Needs wrk (apt-get install wrk).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadDemo } from '../../ingest/demo.js';
import { openRuntime } from '../../ingest/runtime.js';
import { loadConfig } from '../../lib/config.js';
import { tokens } from '../../lib/greek.js';
import { createLogger } from '../../lib/logger.js';
import { createBenchKeys, startBenchApi } from '../api-server.js';
import { wrkPercentile, wrkRequestsPerSecond } from '../wrk.js';

const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '10' } } });
const SECONDS = Number(args.seconds);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const progress = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-entity-'));
const prefix = `benchentity${process.pid}`;
const env: Record<string, string> = process.env.ELASTICSEARCH_URL ? { ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL, PDI_INDEX_PREFIX: prefix } : {};
const runtime = await openRuntime(loadConfig({ ...env, PDI_DATA_DIR: dataDir, LOG_LEVEL: 'silent', PDI_MODEL_DIR: '' }), createLogger('silent'));
progress('loading the demo corpus');
const load = await loadDemo(runtime);
const documents = load.runs.reduce((n, r) => n + r.new, 0);
const db = runtime.documents.db;
const afms = db.prepare("SELECT DISTINCT key FROM entity_keys WHERE kind = 'afm' ORDER BY key").pluck().all() as string[];
const [afm, afmDocs] = db.prepare("SELECT key, count(*) AS n FROM entity_keys WHERE kind = 'afm' GROUP BY key ORDER BY n DESC, key LIMIT 1").raw().get() as [
  string,
  number,
];
const name = 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ';
// The rarest title words (in two documents), longest first: a word a search finds in a few documents.
const df = new Map<string, number>();
for (const title of db.prepare("SELECT json_extract(doc, '$.title') FROM documents").pluck().all() as string[]) {
  for (const w of new Set(tokens(title))) df.set(w, (df.get(w) ?? 0) + 1);
}
const rare = [...df].filter(([w, n]) => n === 2 && /^\p{L}{6,}$/u.test(w)).sort((a, b) => b[0].length - a[0].length || (a[0] < b[0] ? -1 : 1))[0]![0];
await runtime.close();

const keysFile = path.join(dataDir, 'keys.txt');
fs.writeFileSync(keysFile, `${createBenchKeys(dataDir).join('\n')}\n`);
const { port, stop } = await startBenchApi(dataDir, env);

const pathsFile = path.join(dataDir, 'paths.txt');
fs.writeFileSync(pathsFile, `${afms.map((a) => `/v1/entity/${a}`).join('\n')}\n`);

/** wrk on one path, or (`rotate`) on the ΑΦΜ paths in turn. */
function viaApi(pathAndQuery: string, rotate = false) {
  const url = `http://127.0.0.1:${port}${pathAndQuery}`;
  const wrkEnv = { ...process.env, PDI_BENCH_KEYS: keysFile, PDI_BENCH_PATHS: pathsFile };
  const script = path.join(root, rotate ? 'bench/rotate-paths.lua' : 'bench/rotate-keys.lua');
  execFileSync('wrk', ['-t1', '-c10', '-d2s', '-s', script, url], { env: wrkEnv });
  const out = execFileSync('wrk', ['-t1', '-c10', `-d${SECONDS}s`, '--latency', '-s', script, url], { encoding: 'utf8', env: wrkEnv });
  return {
    requests_per_second: wrkRequestsPerSecond(out),
    p50_ms: wrkPercentile(out, 50),
    p99_ms: wrkPercentile(out, 99),
    non_2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
  };
}

const results: Record<string, unknown>[] = [];
try {
  const cases = [
    { name: `rare-term search \`${rare}\``, path: `/v1/search?q=${encodeURIComponent(rare)}&limit=100` },
    { name: `entity by ΑΦΜ ${afm} (${afmDocs} documents)`, path: `/v1/entity/${afm}` },
    { name: `entity by ΑΦΜ, ${afms.length} ΑΦΜs in turn`, path: '/', rotate: true },
    { name: `entity by name \`${name}\``, path: `/v1/entity/${encodeURIComponent(name)}?type=name` },
  ];
  for (const c of cases) {
    const row = { case: c.name, ...viaApi(c.path, c.rotate) };
    progress(JSON.stringify(row));
    results.push(row);
  }
} finally {
  stop();
}
const p50 = (i: number) => results[i]!.p50_ms as number;
process.stdout.write(
  `${JSON.stringify(
    {
      engine: env.ELASTICSEARCH_URL ? 'elasticsearch' : 'embedded',
      documents,
      seconds: SECONDS,
      connections: 10,
      load_average: os.loadavg(),
      results,
      entity_afm_p50_ratio: +(p50(1) / p50(0)).toFixed(2),
      entity_afm_uncached_p50_ratio: +(p50(2) / p50(0)).toFixed(2),
    },
    null,
    2,
  )}\n`,
);
if (env.ELASTICSEARCH_URL) await fetch(`${env.ELASTICSEARCH_URL}/${prefix}*`, { method: 'DELETE' }).catch(() => undefined);
fs.rmSync(dataDir, { recursive: true, force: true });
