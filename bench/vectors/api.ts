// ask, similar and entity against search, through the HTTP API, in one run, against the targets below (ask and similar cost about a search).
//   node --import tsx bench/vectors/api.ts --data-dir DIR [--seconds 20] [--rare Λεοντέλλης]
// DIR: a data folder whose index was built with the real model (bench/vectors/add-vectors.ts, then
// `pdi reindex` with PDI_MODEL_DIR); with ELASTICSEARCH_URL and PDI_INDEX_PREFIX set, that engine. The API
// runs with the model, so ask embeds each question. wrk, 10 connections, 2 s warm-up, keys rotated:
//   search    GET /v1/search?q=<question>&limit=10, the judged questions in turn (54 in the 2026-11 runs, 112 since)
//   ask       POST /v1/ask {question, limit: 5}, the same questions in turn (target: p50 ≤ 2x, p99 ≤ 2.5x search)
//   similar   GET /v1/similar/<id>, 200 documents in turn (target: p50 ≤ 1x search)
//   rare      GET /v1/search?q=<rare term>&limit=100 (--page N: limit=N, for it and the --search cases)
//   entity    GET /v1/entity/<afm>, up to 200 distinct ΑΦΜs of the entity index in turn, when it has any (target: p50 ≤ 1x rare)
// --search TEXT (repeatable) adds a search of TEXT (limit 100), --afm AFM (repeatable) the entity of one ΑΦΜ,
// both set against rare; each search's total is asked once first (a baseline that finds nothing measures nothing),
// and --matching keeps only the judged questions whose search finds documents, for both search and ask.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultModelDir } from '../../lib/embedding/index.js';
import { openSqlite } from '../../lib/sqlite.js';
import { createBenchKeys, startBenchApi } from '../api-server.js';
import { wrkPercentile, wrkRequestsPerSecond } from '../wrk.js';

const { values: args } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    seconds: { type: 'string', default: '20' },
    rare: { type: 'string', default: 'Λεοντέλλης' },
    search: { type: 'string', multiple: true, default: [] },
    afm: { type: 'string', multiple: true, default: [] },
    matching: { type: 'boolean', default: false },
    page: { type: 'string', default: '100' },
  },
});
const dataDir = args['data-dir'];
if (!dataDir) throw new Error('--data-dir is required');
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const progress = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-vectors-api-'));

const { queries } = JSON.parse(fs.readFileSync(path.join(root, 'test/fixtures/relevance/queries.json'), 'utf8')) as { queries: { query: string }[] };
const questions = queries.map((q) => q.query);
const docs = openSqlite(path.join(dataDir, 'documents.db'));
const count = docs.prepare('SELECT count(*) FROM documents').pluck().get() as number;
// 200 documents spread over the store (every count/200-th by source_id).
const ids = docs
  .prepare('SELECT source_id FROM documents WHERE rowid % ? = 0 LIMIT 200')
  .pluck()
  .all(Math.max(1, Math.floor(count / 200))) as string[];
// 200 ΑΦΜs spread over the distinct ones (as users look up entities, not documents): at 1M most
// contractors have a few hundred documents, the commonest ~140,000 (bench/entity/add-afms.ts).
const allAfms = docs.prepare("SELECT DISTINCT key FROM entity_keys WHERE kind = 'afm' ORDER BY key").pluck().all() as string[];
const afms = allAfms.filter((_, i) => i % Math.max(1, Math.ceil(allAfms.length / 200)) === 0);
docs.close();

const file = (name: string, lines: string[]) => {
  const f = path.join(work, name);
  fs.writeFileSync(f, `${lines.join('\n')}\n`);
  return f;
};
const keysFile = file('keys.txt', createBenchKeys(dataDir));
const modelDir = process.env.PDI_MODEL_DIR || defaultModelDir();
if (!fs.existsSync(path.join(modelDir, 'config.json'))) throw new Error(`no model in ${modelDir}: run scripts/fetch-model.sh`);
const engineEnv: Record<string, string> = process.env.ELASTICSEARCH_URL
  ? { ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL, PDI_INDEX_PREFIX: process.env.PDI_INDEX_PREFIX ?? '' }
  : {};
const { port, stop } = await startBenchApi(dataDir, { ...engineEnv, PDI_MODEL_DIR: modelDir });

interface Case {
  name: string;
  url: string;
  script: string;
  env: Record<string, string>;
}

function run(c: Case) {
  const env = { ...process.env, PDI_BENCH_KEYS: keysFile, ...c.env };
  const loadBefore = os.loadavg();
  const script = path.join(root, 'bench', c.script);
  execFileSync('wrk', ['-t1', '-c10', '-d2s', '-s', script, c.url], { env });
  const out = execFileSync('wrk', ['-t1', '-c10', `-d${args.seconds}s`, '--latency', '-s', script, c.url], { encoding: 'utf8', env });
  return {
    case: c.name,
    requests_per_second: wrkRequestsPerSecond(out),
    p50_ms: wrkPercentile(out, 50),
    p99_ms: wrkPercentile(out, 99),
    non_2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    // 1/5/15-minute load before the warm-up and at the end of the measured seconds.
    load_before: loadBefore.map((l) => +l.toFixed(2)),
    load_after: os.loadavg().map((l) => +l.toFixed(2)),
  };
}

const base = `http://127.0.0.1:${port}`;
// How many documents each search finds, and each extra ΑΦΜ's entity: asked once, one at a time, each with
// the next key (ten at once on one key meet its per-second limit).
const keys = fs.readFileSync(keysFile, 'utf8').trim().split('\n');
let sent = 0;
const get = async (p: string) => {
  const r = await fetch(`${base}${p}`, { headers: { authorization: `Bearer ${keys[sent++ % keys.length]}` } });
  if (!r.ok) throw new Error(`${p}: HTTP ${r.status}`);
  return (await r.json()) as Record<string, unknown>;
};
const totalOf = async (q: string, limit: number) => (await get(`/v1/search?q=${encodeURIComponent(q)}&limit=${limit}`)).total as number;
const questionTotals: number[] = [];
for (const q of questions) questionTotals.push(await totalOf(q, 10));
const searchTotals: Record<string, number> = {};
for (const q of args.search!) searchTotals[q] = await totalOf(q, Number(args.page));
const entityTotals: Record<string, unknown> = {};
for (const a of args.afm!) entityTotals[a] = (await get(`/v1/entity/${a}`)).total;
// --matching: only the questions that find documents (a search finding nothing is no baseline).
const asked = args.matching ? questions.filter((_, i) => questionTotals[i] > 0) : questions;
const totals = {
  questions: questionTotals,
  questions_asked: asked.length,
  questions_finding_none: questionTotals.filter((t) => t === 0).length,
  questions_median: [...questionTotals].sort((a, b) => a - b)[Math.floor(questionTotals.length / 2)],
  rare: await totalOf(args.rare!, Number(args.page)),
  searches: searchTotals,
  entities: entityTotals,
};
progress(`totals: ${JSON.stringify(totals).slice(0, 2000)}`);

const cases: Case[] = [
  {
    name: 'search (questions)',
    url: base,
    script: 'rotate-paths.lua',
    env: {
      PDI_BENCH_PATHS: file(
        'search.txt',
        asked.map((q) => `/v1/search?q=${encodeURIComponent(q)}&limit=10`),
      ),
    },
  },
  {
    name: 'ask (questions)',
    url: `${base}/v1/ask`,
    script: 'rotate-bodies.lua',
    env: {
      PDI_BENCH_BODIES: file(
        'ask.txt',
        asked.map((q) => JSON.stringify({ question: q, limit: 5 })),
      ),
    },
  },
  {
    name: 'similar',
    url: base,
    script: 'rotate-paths.lua',
    env: {
      PDI_BENCH_PATHS: file(
        'similar.txt',
        ids.map((id) => `/v1/similar/${encodeURIComponent(id)}`),
      ),
    },
  },
  {
    name: `rare-term search \`${args.rare}\``,
    url: `${base}/v1/search?q=${encodeURIComponent(args.rare!)}&limit=${args.page}`,
    script: 'rotate-keys.lua',
    env: {},
  },
];
const extraSearches = args.search!.map((q) => ({
  name: `search \`${q}\``,
  url: `${base}/v1/search?q=${encodeURIComponent(q)}&limit=${args.page}`,
  script: 'rotate-keys.lua',
  env: {},
}));
const extraEntities = args.afm!.map((a) => ({ name: `entity by ΑΦΜ ${a}`, url: `${base}/v1/entity/${a}`, script: 'rotate-keys.lua', env: {} }));
if (afms.length)
  cases.push({
    name: `entity by ΑΦΜ, ${afms.length} in turn`,
    url: base,
    script: 'rotate-paths.lua',
    env: {
      PDI_BENCH_PATHS: file(
        'entity.txt',
        afms.map((a) => `/v1/entity/${a}`),
      ),
    },
  });

cases.push(...extraSearches, ...extraEntities);

const results: ReturnType<typeof run>[] = [];
try {
  for (const c of cases) {
    const row = run(c);
    progress(JSON.stringify(row));
    results.push(row);
  }
} finally {
  stop();
  fs.rmSync(work, { recursive: true, force: true });
}
const ratio = (a: number | null | undefined, b: number | null | undefined) => (a && b ? +(a / b).toFixed(2) : null);
const [search, ask, similar, rare] = results;
const entity = afms.length ? results[4] : undefined;
const extras = results.slice(afms.length ? 5 : 4);
process.stdout.write(
  `${JSON.stringify(
    {
      engine: engineEnv.ELASTICSEARCH_URL ? 'elasticsearch' : 'embedded',
      documents: count,
      seconds: Number(args.seconds),
      page: Number(args.page),
      connections: 10,
      load_average: os.loadavg(),
      totals,
      results,
      ask_p50_over_search: ratio(ask.p50_ms, search.p50_ms),
      ask_p99_over_search: ratio(ask.p99_ms, search.p99_ms),
      similar_p50_over_search: ratio(similar.p50_ms, search.p50_ms),
      entity_p50_over_rare: ratio(entity?.p50_ms, rare.p50_ms),
      extra_over_rare: extras.map((r) => ({ case: r.case, p50: ratio(r.p50_ms, rare.p50_ms), p99: ratio(r.p99_ms, rare.p99_ms) })),
    },
    null,
    2,
  )}\n`,
);
process.exit(0);
