// The embedded engine's vector search at scale: latency and recall@10 against exact search (targets: recall@10 ≥ 0.95, p50 ≤ 2x a rare-term search).
//   node --import tsx bench/vectors/knn.ts [--docs 1000000] [--seed 20240611] [--held-out 100] [--seconds 20]
// With ELASTICSEARCH_URL set, Elasticsearch instead (index prefix benchknn<docs>, kept between runs):
// recall of its HNSW graph with the num_candidates and rescoring ask and similar send (queries.ts buildKnn).
// Builds (once, cached in ~/.cache/pdi/bench-vectors/) an index of `docs` documents split across the
// sources as bench/search/generate.ts splits them, each with a vector of the real model's distribution
// (sample.ts) and a text of one word shared by 200 documents, through rebuild() per source (the
// reindex path). Queries: the judged questions embedded by the model, and `held-out` derived vectors
// not in the index (as similar asks with a stored vector). Exact answers come from a scan of every vector
// in JS. Measured one call at a time on the calling thread: kNN at k = 10 and 50, kNN filtered to the
// smallest source, and a rare-term search (a word of 200 documents, limit 100, the yardstick of that target);
// then (embedded) 10 concurrent kNN calls through 2 reader threads for `seconds`, with the process's RSS
// before the pool started and at most during the calls (the process also holds the model and the queries).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { IndexedDocument } from '../../index-mappings/document.js';
import type { SourceName } from '../../index-mappings/sources.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { percentile } from '../percentile.js';
import { sourceRanges } from '../search/generate.js';
import { cacheRoot, derivedVector, loadModel, questionVectors, realSample } from './sample.js';

const { values: args } = parseArgs({
  options: {
    docs: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '20240611' },
    'held-out': { type: 'string', default: '100' },
    seconds: { type: 'string', default: '20' },
    // Only these graph depths (tuning.vectorCandidates), one call at a time: no yardstick, no concurrent run.
    candidates: { type: 'string' },
  },
});
const N = Number(args.docs);
const SEED = Number(args.seed);
const progress = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

const model = await loadModel();
const sample = await realSample(model);
const D = sample[0].length;
const dir = path.join(cacheRoot, 'bench-vectors');
fs.mkdirSync(dir, { recursive: true });
// Schema 4 (one vector index for every source) and the shared words: not the files of earlier runs.
const file = path.join(dir, `knn-${N}-${SEED}-s4-w200.db`);
const es = process.env.ELASTICSEARCH_URL;
const open = (readers = 0): SearchProvider =>
  es
    ? new ElasticsearchProvider({ url: es, prefix: `benchknn${N}`, dimension: D, embeddingModel: model.id })
    : new EmbeddedProvider({ file, dimension: D, embeddingModel: model.id, readers });
const RARE_WORDS = Math.max(1, Math.round(N / 200));
const rareWord = (i: number) => `λέξη${i % RARE_WORDS}`;
const ranges = sourceRanges(N);
const smallest = [...ranges].sort((a, b) => a.to - a.from - (b.to - b.from))[0];

function document(source: SourceName, i: number): IndexedDocument {
  const published = new Date(Date.UTC(2019, 0, 1) + (i % 2_000_000) * 60_000).toISOString().replace('.000Z', 'Z');
  return {
    source_id: `${source}:V${i}`,
    source,
    country: 'GR',
    title: `v${i}`,
    doc_type: 'decision',
    doc_category: 'procurement',
    published_at: published,
    source_url: `https://example.org/${i}`,
    language: 'el',
    quality_score: 0.5,
    content: rareWord(i),
    summary: '',
    entities: { afm: [], ada: [], names: [] },
    parties: [],
    procedure_type: null,
    tenders_received: null,
    act_date: null,
    amount: null,
    cpv: [],
    region: null,
    sector: null,
    indexed_at: published,
    content_hash: `v-${SEED}-${i}`,
    original: null,
    embedding: Array.from(derivedVector(sample, SEED, i)),
  };
}

let provider = open();
await provider.init();
if ((await provider.stats()).total_documents !== N) {
  await provider.close();
  if (!es) for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  provider = open();
  await provider.init();
  for (const { source, from, to } of ranges) {
    const started = performance.now();
    await provider.rebuild(
      source,
      (async function* () {
        for (let i = from; i < to; i += 5000) yield Array.from({ length: Math.min(to, i + 5000) - i }, (_, j) => document(source, i + j));
      })(),
    );
    progress(`${source}: ${to - from} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
}

// Queries and their exact ten, of every source and of the smallest (cached beside the index).
const questions = await questionVectors(model);
const heldOut = Array.from({ length: Number(args['held-out']) }, (_, i) => derivedVector(sample, SEED + 1, i));
const queries = [...questions.map((q) => q.vector), ...heldOut];
const exactFile = `${file}.exact-${queries.length}.json`;
let exact: { all: string[][]; smallest: string[][] };
if (fs.existsSync(exactFile)) exact = JSON.parse(fs.readFileSync(exactFile, 'utf8'));
else {
  progress('exact search of every query over every vector (JS)');
  const best = { all: queries.map(() => [] as { s: number; i: number }[]), smallest: queries.map(() => [] as { s: number; i: number }[]) };
  const v = new Float32Array(D);
  const keep = (top: { s: number; i: number }[], s: number, i: number) => {
    if (top.length < 10 || s > top[top.length - 1].s) {
      top.push({ s, i });
      top.sort((a, b) => b.s - a.s);
      if (top.length > 10) top.pop();
    }
  };
  for (let i = 0; i < N; i++) {
    derivedVector(sample, SEED, i, v);
    const inSmallest = i >= smallest.from && i < smallest.to;
    for (let q = 0; q < queries.length; q++) {
      let s = 0;
      const qv = queries[q];
      for (let j = 0; j < D; j++) s += qv[j] * v[j];
      keep(best.all[q], s, i);
      if (inSmallest) keep(best.smallest[q], s, i);
    }
  }
  const sourceOf = (i: number) => ranges.find((r) => i >= r.from && i < r.to)!.source;
  const named = (tops: { i: number }[][]) => tops.map((top) => top.map((x) => `${sourceOf(x.i)}:V${x.i}`));
  exact = { all: named(best.all), smallest: named(best.smallest) };
  fs.writeFileSync(exactFile, JSON.stringify(exact));
}

async function measure(provider: SearchProvider, k: number, source?: SourceName) {
  const ms: number[] = [];
  let found = 0;
  for (let q = 0; q < queries.length; q++) {
    const started = performance.now();
    const hits = await provider.knn({ vector: Array.from(queries[q]), limit: k, filters: { source } });
    ms.push(performance.now() - started);
    const want = new Set((source ? exact.smallest : exact.all)[q]);
    found += hits.slice(0, 10).filter((h) => want.has(h.doc.source_id)).length;
  }
  ms.sort((a, b) => a - b);
  return {
    case: `knn k=${k}${source ? ` source=${source}` : ''}`,
    queries: queries.length,
    p50_ms: +percentile(ms, 50).toFixed(2),
    p99_ms: +percentile(ms, 99).toFixed(2),
    recall_at_10: +(found / (10 * queries.length)).toFixed(3),
  };
}

/** The yardstick: a search for a word of 200 documents, limit 100, 200 words in turn. */
async function rare(provider: SearchProvider) {
  const ms: number[] = [];
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    await provider.search({ text: rareWord(i * 17), limit: 100, offset: 0 });
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  return {
    case: `rare-term search (${Math.round(N / RARE_WORDS)} matches, limit 100)`,
    queries: ms.length,
    p50_ms: +percentile(ms, 50).toFixed(2),
    p99_ms: +percentile(ms, 99).toFixed(2),
  };
}

/** 10 kNN calls (k = 50) at a time through the reader threads for `seconds`; RSS sampled every 100 ms. */
async function underLoad(provider: SearchProvider, seconds: number) {
  const ms: number[] = [];
  const before = process.memoryUsage().rss;
  let rss = before;
  const sampler = setInterval(() => {
    rss = Math.max(rss, process.memoryUsage().rss);
  }, 100);
  const until = performance.now() + seconds * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (performance.now() < until) {
        const q = queries[next++ % queries.length];
        const started = performance.now();
        await provider.knn({ vector: Array.from(q), limit: 50 });
        ms.push(performance.now() - started);
      }
    }),
  );
  clearInterval(sampler);
  ms.sort((a, b) => a - b);
  return {
    case: 'knn k=50, 10 concurrent, 2 reader threads',
    calls: ms.length,
    per_s: +(ms.length / seconds).toFixed(1),
    p50_ms: +percentile(ms, 50).toFixed(2),
    p99_ms: +percentile(ms, 99).toFixed(2),
    rss_before_mib: Math.round(before / 2 ** 20),
    max_rss_mib: Math.round(rss / 2 ** 20),
  };
}

await provider.close();
const results = [];
if (args.candidates && !es) {
  for (const candidates of args.candidates.split(',').map(Number)) {
    const c = new EmbeddedProvider({ file, dimension: D, embeddingModel: model.id, tuning: { vectorCandidates: candidates } });
    await c.knn({ vector: Array.from(queries[0]), limit: 10 }); // warm-up
    for (const r of [await measure(c, 10), await measure(c, 50)]) results.push({ candidates, ...r });
    await c.close();
  }
  process.stdout.write(`${JSON.stringify({ documents: N, load_average: os.loadavg(), results }, null, 2)}\n`);
  process.exit(0);
}
const p = open();
await p.init();
await p.knn({ vector: Array.from(queries[0]), limit: 10 }); // warm-up
await rare(p);
results.push(await rare(p), await measure(p, 10), await measure(p, 50), await measure(p, 50, smallest.source));
await p.close();
if (!es) {
  const pooled = open(2);
  results.push(await underLoad(pooled, Number(args.seconds)));
  await pooled.close();
}
process.stdout.write(
  `${JSON.stringify({ engine: provider.engine, documents: N, seed: SEED, model: model.id, load_average: os.loadavg(), results }, null, 2)}\n`,
);
process.exit(0);
