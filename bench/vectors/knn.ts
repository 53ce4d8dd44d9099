// The embedded engine's vector search at scale: latency and recall@10 against exact search (issue 21).
//   node --import tsx bench/vectors/knn.ts [--docs 1000000] [--seed 20240611] [--held-out 100]
// With ELASTICSEARCH_URL set, Elasticsearch instead (index prefix benchknn<docs>, kept between runs):
// recall of its HNSW graph with the num_candidates and rescoring ask and similar send (queries.ts buildKnn).
// Builds (once, cached in ~/.cache/pdi/bench-vectors/) an index of `docs` documents split across the
// sources as bench/search/generate.ts splits them, each with a vector of the real model's distribution
// (sample.ts) and a one-word text, through rebuild() per source (the reindex path, lists trained as it
// grows). Queries: the 54 judged questions embedded by the model, and `held-out` derived vectors not in
// the index (as similar asks with a stored vector). Exact answers come from a scan of every vector in JS.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { IndexedDocument } from '../../index-mappings/document.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { percentile } from '../percentile.js';
import { sourceRanges } from '../search/generate.js';
import { cacheRoot, derivedVector, loadModel, questionVectors, realSample } from './sample.js';

const { values: args } = parseArgs({ options: {
  docs: { type: 'string', default: '1000000' },
  seed: { type: 'string', default: '20240611' },
  'held-out': { type: 'string', default: '100' },
  probes: { type: 'string', default: '16,24,32' },
} });
const N = Number(args.docs);
const SEED = Number(args.seed);
const progress = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

const model = await loadModel();
const sample = await realSample(model);
const D = sample[0].length;
const dir = path.join(cacheRoot, 'bench-vectors');
fs.mkdirSync(dir, { recursive: true });
const file = path.join(dir, `knn-${N}-${SEED}.db`);
const es = process.env.ELASTICSEARCH_URL;
const open = (): SearchProvider => es
  ? new ElasticsearchProvider({ url: es, prefix: `benchknn${N}`, dimension: D, embeddingModel: model.id })
  : new EmbeddedProvider({ file, dimension: D, embeddingModel: model.id });

function document(source: IndexedDocument['source'], i: number): IndexedDocument {
  const published = new Date(Date.UTC(2019, 0, 1) + (i % 2_000_000) * 60_000).toISOString().replace('.000Z', 'Z');
  return {
    source_id: `${source}:V${i}`, source, country: 'GR', title: `v${i}`, doc_type: 'decision', doc_category: 'procurement',
    published_at: published, source_url: `https://example.org/${i}`, language: 'el', quality_score: 0.5, content: '', summary: '',
    entities: { afm: [], ada: [], names: [] }, parties: [], procedure_type: null, tenders_received: null, act_date: null, amount: null, cpv: [], region: null, sector: null, indexed_at: published,
    content_hash: `v-${SEED}-${i}`, original: null, embedding: Array.from(derivedVector(sample, SEED, i)),
  };
}

let provider = open();
await provider.init();
if ((await provider.stats()).total_documents !== N) {
  await provider.close();
  if (!es) for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  provider = open();
  await provider.init();
  for (const { source, from, to } of sourceRanges(N)) {
    const started = performance.now();
    await provider.rebuild(source, (async function* () {
      for (let i = from; i < to; i += 5000) yield Array.from({ length: Math.min(to, i + 5000) - i }, (_, j) => document(source, i + j));
    })());
    progress(`${source}: ${to - from} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
}

// Queries and their exact ten (cached beside the index).
const questions = await questionVectors(model);
const heldOut = Array.from({ length: Number(args['held-out']) }, (_, i) => derivedVector(sample, SEED + 1, i));
const queries = [...questions.map((q) => q.vector), ...heldOut];
const exactFile = `${file}.exact-${queries.length}.json`;
let exact: string[][];
if (fs.existsSync(exactFile)) exact = JSON.parse(fs.readFileSync(exactFile, 'utf8'));
else {
  progress('exact search of every query over every vector (JS)');
  const best = queries.map(() => [] as { s: number; i: number }[]);
  const v = new Float32Array(D);
  for (let i = 0; i < N; i++) {
    derivedVector(sample, SEED, i, v);
    for (let q = 0; q < queries.length; q++) {
      let s = 0;
      const qv = queries[q];
      for (let j = 0; j < D; j++) s += qv[j] * v[j];
      const top = best[q];
      if (top.length < 10 || s > top[top.length - 1].s) {
        top.push({ s, i });
        top.sort((a, b) => b.s - a.s);
        if (top.length > 10) top.pop();
      }
    }
  }
  const sourceOf = (i: number) => sourceRanges(N).find((r) => i >= r.from && i < r.to)!.source;
  exact = best.map((top) => top.map((x) => `${sourceOf(x.i)}:V${x.i}`));
  fs.writeFileSync(exactFile, JSON.stringify(exact));
}

async function measure(provider: SearchProvider, k: number, probes: number | null) {
  const ms: number[] = [];
  let found = 0;
  for (let q = 0; q < queries.length; q++) {
    const started = performance.now();
    const hits = await provider.knn({ vector: Array.from(queries[q]), limit: k });
    ms.push(performance.now() - started);
    const want = new Set(exact[q]);
    found += hits.slice(0, 10).filter((h) => want.has(h.doc.source_id)).length;
  }
  ms.sort((a, b) => a - b);
  return { probes, k, queries: queries.length, p50_ms: +percentile(ms, 50).toFixed(1), p99_ms: +percentile(ms, 99).toFixed(1), recall_at_10: +(found / (10 * queries.length)).toFixed(3) };
}

await provider.close();
// The embedded engine at each vectorProbes (a query-time setting, same index); Elasticsearch as sent.
const results = [];
for (const probes of es ? [null] : args.probes!.split(',').map(Number)) {
  const p = es ? open() : new EmbeddedProvider({ file, dimension: D, embeddingModel: model.id, tuning: { vectorProbes: probes! } });
  await p.init();
  await p.knn({ vector: Array.from(queries[0]), limit: 10 }); // warm-up
  results.push(await measure(p, 10, probes), await measure(p, 50, probes));
  await p.close();
}
process.stdout.write(`${JSON.stringify({ engine: provider.engine, documents: N, seed: SEED, model: model.id, load_average: os.loadavg(), results }, null, 2)}\n`);
process.exit(0);
