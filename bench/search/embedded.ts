// Search benchmark, embedded engine. Builds (or reuses) an index of N synthetic documents (generate.ts) with
// one rebuild() per source — the real reindex path — then measures provider.search latency for a rare term,
// the most common term, two-term queries and a few more, sequentially and with 10 async callers.
//
//   npx tsx bench/search/embedded.ts [--docs 1000000] [--seed 20240611] [--dir DIR] [--iterations 200]
//
// The index lives in DIR (default $PDI_BENCH_DIR or <tmp>/pdi-bench) as embedded-<N>-<seed>.sqlite and is
// reused when a marker file says it was completely built with the same N, seed and engine versions.
// Text only: no embeddings are written (vector search is measured in docs/machine-limits.md §4).
//
// better-sqlite3 is synchronous: in one process, "10 concurrent callers" take turns on one thread. The
// concurrent figures therefore include queueing behind the other callers (what a client of a busy API
// process would see), and the throughput equals the sequential one. Both are reported.
import { existsSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Database } from '../../lib/sqlite.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { SCHEMA_VERSION } from '../../lib/search/embedded/schema.js';
import { TEXT_VERSION, parseQuery, toMatch } from '../../lib/search/embedded/text.js';
import { percentile } from '../percentile.js';
import { Generator, SURNAMES, sourceRanges } from './generate.js';

const { values: args } = parseArgs({
  options: {
    docs: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '20240611' },
    dir: { type: 'string', default: process.env.PDI_BENCH_DIR || path.join(os.tmpdir(), 'pdi-bench') },
    iterations: { type: 'string', default: '200' },
  },
});
const N = Number(args.docs);
const SEED = Number(args.seed);
const ITERATIONS = Number(args.iterations);
const DIMENSION = 384;
// Text only (no vectors are written); labelled with the fallback embedder's id so that the API, which
// opens its index with that id when no model is configured, can serve it (bench/search/api.ts).
const MODEL = 'pdi/hashing-384';

const progress = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const load = () => os.loadavg().map((x) => Math.round(x * 100) / 100);

mkdirSync(args.dir!, { recursive: true });
const file = path.join(args.dir!, `embedded-${N}-${SEED}.sqlite`);
const markerFile = `${file}.done.json`;
const versions = { schema: SCHEMA_VERSION, text: TEXT_VERSION };

interface Marker {
  n: number;
  seed: number;
  versions: typeof versions;
  build_seconds: number;
  per_source: object;
  load_during_build: number[][];
}

async function build(gen: Generator): Promise<Marker> {
  for (const f of [file, `${file}-wal`, `${file}-shm`, markerFile]) rmSync(f, { force: true });
  const provider = new EmbeddedProvider({ file, dimension: DIMENSION, embeddingModel: MODEL });
  await provider.init();
  const started = performance.now();
  const perSource: Record<string, object> = {};
  const loads: number[][] = [load()];
  for (const { source, from, to } of sourceRanges(N)) {
    const t0 = performance.now();
    let done = 0;
    async function* batches() {
      for await (const batch of gen.batches(from, to, 5000)) {
        yield batch;
        done += batch.length;
        if (done % 100_000 < 5000) progress(`${source}: ${done}/${to - from} documents`);
      }
    }
    const result = await provider.rebuild(source, batches());
    const seconds = (performance.now() - t0) / 1000;
    perSource[source] = { documents: result.documents, seconds: Math.round(seconds * 10) / 10, index: result.index };
    loads.push(load());
    progress(`${source}: rebuilt ${result.documents} in ${seconds.toFixed(1)} s (lists built so far: ${provider.counters.listsBuilt})`);
  }
  await provider.close();
  const marker: Marker = {
    n: N,
    seed: SEED,
    versions,
    build_seconds: Math.round((performance.now() - started) / 100) / 10,
    per_source: perSource,
    load_during_build: loads,
  };
  writeFileSync(markerFile, JSON.stringify(marker, null, 2));
  return marker;
}

const round = (x: number) => Math.round(x * 100) / 100;

function summary(latencies: number[]) {
  const s = [...latencies].sort((a, b) => a - b);
  return { n: s.length, p50_ms: round(percentile(s, 50)), p99_ms: round(percentile(s, 99)), max_ms: round(s[s.length - 1]) };
}

async function main(): Promise<void> {
  const gen = new Generator(N, SEED);
  let marker: Marker | null = null;
  if (existsSync(markerFile) && existsSync(file)) {
    const m = JSON.parse(readFileSync(markerFile, 'utf8')) as Marker;
    if (m.n === N && m.seed === SEED && JSON.stringify(m.versions) === JSON.stringify(versions)) marker = m;
  }
  const reused = marker !== null;
  if (!marker) {
    progress(`building ${N} documents into ${file} (load ${load().join(' ')})`);
    marker = await build(gen);
  } else progress(`reusing ${file}`);

  // Document frequencies for the report (FTS5 COUNT, outside the timed part).
  const raw = new Database(file, { readonly: true });
  const sets = raw.prepare(`SELECT source, gen FROM generations WHERE state = 'serving'`).all() as { source: string; gen: number }[];
  const df = (match: string) =>
    sets.reduce(
      (sum, s) =>
        sum + (raw.prepare(`SELECT count(*) FROM "s_${s.source}_${s.gen}_fts" WHERE "s_${s.source}_${s.gen}_fts" MATCH ?`).pluck().get(match) as number),
      0,
    );

  const rare = SURNAMES[700];
  const queries: { name: string; text: string; target?: string }[] = [
    { name: 'rare term (tail surname)', text: rare, target: 'p50 <= 30 ms' },
    { name: 'most common term', text: gen.vocab[0], target: 'p99 <= 150 ms' },
    { name: 'most common content word', text: 'προμήθεια' },
    { name: 'same, typed in capitals', text: 'ΠΡΟΜΗΘΕΙΑ' },
    { name: 'two-term, selective (mid + surname)', text: `καθαριότητας ${SURNAMES[40]}`, target: 'p50 <= 30 ms' },
    { name: 'two-term, mid (docs/machine-limits.md: ανάθεση AND δήμος)', text: 'ανάθεση δήμος', target: 'p50 <= 30 ms' },
    { name: 'two-term, rare + common', text: `${rare} προμήθεια` },
    { name: 'two-term, common + common', text: 'προμήθεια σύμβαση' },
    { name: 'phrase', text: '"σύμβαση προμήθειας"' },
    { name: 'prefix', text: 'προμηθ*' },
  ];
  const dfs = Object.fromEntries(queries.map((q) => [q.name, null as number | null]));

  const provider = new EmbeddedProvider({ file, dimension: DIMENSION, embeddingModel: MODEL });
  await provider.init();
  const baseline = new EmbeddedProvider({ file, dimension: DIMENSION, embeddingModel: MODEL, tuning: { hotMinDf: Number.POSITIVE_INFINITY } });
  await baseline.init();

  const results: Record<string, object> = {};
  const loadBefore = load();
  for (const q of queries) {
    const first = await provider.search({ text: q.text, limit: 100, offset: 0 });
    for (let i = 0; i < 3; i++) await provider.search({ text: q.text, limit: 100, offset: 0 });
    // Sequential: one call at a time, latency = service time. Capped at ~20 s per query.
    const seq: number[] = [];
    const deadline = performance.now() + 20_000;
    for (let i = 0; i < ITERATIONS && performance.now() < deadline; i++) {
      const t0 = performance.now();
      await provider.search({ text: q.text, limit: 100, offset: 0 });
      seq.push(performance.now() - t0);
    }
    // 10 async callers, closed loop: each marks the request, yields to the event loop (as a request arriving
    // over HTTP would), then calls search; latency includes waiting behind the other callers.
    const conc: number[] = [];
    const perCaller = Math.max(5, Math.ceil(Math.min(ITERATIONS, seq.length) / 10));
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        for (let i = 0; i < perCaller; i++) {
          const t0 = performance.now();
          await new Promise((resolve) => setImmediate(resolve));
          await provider.search({ text: q.text, limit: 100, offset: 0 });
          conc.push(performance.now() - t0);
        }
      }),
    );
    const wall = (performance.now() - started) / 1000;
    dfs[q.name] = df(toMatch(parseQuery(q.text)));
    results[q.name] = {
      query: q.text,
      target: q.target ?? null,
      total: first.total,
      sequential: summary(seq),
      concurrent_10_callers: { ...summary(conc), queries_per_second: Math.round(conc.length / wall) },
    };
    progress(`${q.name}: total ${first.total}, sequential p50 ${summary(seq).p50_ms} ms p99 ${summary(seq).p99_ms} ms`);
  }

  // Reference: the same engine without the common-term lists (plain ORDER BY bm25 on FTS5).
  const reference: Record<string, object> = {};
  for (const q of queries.filter((x) => /most common|common \+ common/.test(x.name))) {
    const lat: number[] = [];
    for (let i = 0; i < 12; i++) {
      const t0 = performance.now();
      await baseline.search({ text: q.text, limit: 100, offset: 0 });
      lat.push(performance.now() - t0);
    }
    reference[q.name] = { query: q.text, ...summary(lat.slice(2)) };
  }
  // Deeper pages of the most common term: pages 1-12 come from the list, later ones from FTS5.
  const deep: Record<string, object> = {};
  for (const offset of [0, 1000, 1100, 5000]) {
    const lat: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      await provider.search({ text: gen.vocab[0], limit: 100, offset });
      lat.push(performance.now() - t0);
    }
    deep[`offset ${offset}`] = summary(lat.slice(2));
  }

  const out = {
    engine: 'embedded',
    documents: N,
    seed: SEED,
    index_file: file,
    index_bytes: statSync(file).size,
    index_reused: reused,
    build: marker,
    machine: {
      cpus: os.cpus().length,
      model: os.cpus()[0]?.model,
      node: process.version,
      sqlite: raw.prepare('select sqlite_version()').pluck().get() as string,
    },
    load_average: { before: loadBefore, after: load() },
    limit: 100,
    iterations: ITERATIONS,
    document_frequency: dfs,
    results,
    reference_without_lists: reference,
    deep_pages_most_common_term: deep,
    counters: provider.counters,
  };
  raw.close();
  await provider.close();
  await baseline.close();
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
