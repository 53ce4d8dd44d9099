// Variants of ask's fusion measured on the relevance set: the two legs (best-match full text, kNN of the
// embedded question) are retrieved once per query as ask retrieves them, then fused each way, so every
// variant sees the same hits. nDCG@10 and recall@10 per variant, and how often the full-text leg's first
// hit is in the fused top ten (`text1@10`: the exact-term case). On the tuning half of the judged set
// unless told otherwise: the held-out half is for reporting (bench/relevance/run.ts), not for choosing.
//   node --import tsx bench/relevance/fusion.ts [--engines embedded,elasticsearch] [--split tune|held-out|all]
// The real model only (scripts/fetch-model.sh), vectors cached as bench/relevance/run.ts caches them.
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultModelDir, ModelEmbedder } from '../../lib/embedding/index.js';
import type { SearchHit } from '../../lib/search/provider.js';
import { FUSION_DEPTH } from '../../index-mappings/ranking.js';
import { retrieve } from '../../lib/semantic/retrieve.js';
import { keepWithin, scoreFusion } from '../../lib/semantic/fusion.js';
import { demoRecords, indexedEngine, withVectors } from './corpus.js';
import { ndcgAt, recallAt } from './metrics.js';
import { judgedQueries } from './queries.js';

const { values } = parseArgs({
  options: {
    engines: { type: 'string', default: 'embedded,elasticsearch' },
    split: { type: 'string', default: 'tune' },
  },
});
const cacheDir = path.join(process.env.PDI_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'pdi'), 'relevance');
const K = 10;

const queries = judgedQueries().filter((q) => values.split === 'all' || q.split === values.split);

interface Legs {
  text: SearchHit[];
  semantic: SearchHit[];
  vector: number[];
  shipped: string[];
}
type Variant = (legs: Legs) => string[];

const id = (h: SearchHit) => h.doc.source_id;
const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

/** Reciprocal rank fusion (Cormack et al. 2009, k = 60), semantic weighing 1: what ask shipped before. */
const rrf =
  (textWeight: number): Variant =>
  ({ text, semantic }) => {
    const sum = new Map<string, number>();
    for (const [hits, w] of [
      [semantic, 1],
      [text, textWeight],
    ] as const) {
      hits.forEach((h, rank) => sum.set(id(h), (sum.get(id(h)) ?? 0) + w / (60 + rank + 1)));
    }
    return [...sum].sort((a, b) => b[1] - a[1]).map(([k]) => k);
  };

/** Each leg's scores min-max scaled, summed with weight `alpha` on the semantic one (fusion.ts scoreFusion). */
const combSum =
  (alpha: number): Variant =>
  ({ text, semantic }) =>
    scoreFusion(
      [
        { hits: semantic, weight: alpha },
        { hits: text, weight: 1 - alpha },
      ],
      id,
      (h) => h.score,
    ).map((f) => id(f.item));

/** RRF at half weight, its first 30 re-ranked by the question's cosine to each document plus `beta` × BM25 over the best. */
const rerank30 =
  (beta: number, vectors: Map<string, number[]>): Variant =>
  (legs) => {
    const fused = rrf(0.5)(legs);
    const bm25 = new Map(legs.text.map((h) => [id(h), h.score / (legs.text[0]?.score || 1)]));
    const head = fused.slice(0, 30).map((k) => ({ k, s: dot(legs.vector, vectors.get(k) ?? []) + beta * (bm25.get(k) ?? 0) }));
    head.sort((a, b) => b.s - a.s);
    return [...head.map((h) => h.k), ...fused.slice(30)];
  };

/** `fuse`, with the full-text leg's first hit moved up to place `at` when it is below (fusion.ts keepWithin). */
const pinText =
  (fuse: Variant, at = K): Variant =>
  (legs) => {
    const fused = fuse(legs).map((k) => ({ item: k, score: 0, relevance: 0 }));
    return keepWithin(fused, (k) => k, legs.text[0] && id(legs.text[0]), at).map((f) => f.item);
  };

const model = await ModelEmbedder.load(process.env.PDI_MODEL_DIR ?? defaultModelDir());
const docs = await withVectors(await demoRecords(), model, cacheDir);
const vectors = new Map(docs.map((d) => [d.source_id, d.embedding ?? []]));
const variants: Record<string, Variant> = {
  'shipped (ask.ts retrieve)': (l) => l.shipped,
  'RRF, text 0.25': rrf(0.25),
  'RRF, text 0.5': rrf(0.5),
  'RRF, text 0.75': rrf(0.75),
  'RRF, text 1': rrf(1),
  'CombSUM, semantic 0.5': combSum(0.5),
  'CombSUM, semantic 0.7': combSum(0.7),
  'CombSUM, semantic 0.85': combSum(0.85),
  'CombSUM, semantic 0.6': combSum(0.6),
  'CombSUM, semantic 0.65': combSum(0.65),
  'CombSUM, semantic 0.75': combSum(0.75),
  'CombSUM, semantic 0.8': combSum(0.8),
  'RRF 0.5, text first pinned at 10': pinText(rrf(0.5)),
  'RRF 0.25, text first pinned at 10': pinText(rrf(0.25)),
  'CombSUM 0.7, text first pinned at 10': pinText(combSum(0.7)),
  'CombSUM 0.75, text first pinned at 10': pinText(combSum(0.75)),
  'CombSUM 0.7, text first pinned at 5': pinText(combSum(0.7), 5),
  'RRF 0.5, top 30 by cosine': rerank30(0, vectors),
  'RRF 0.5, top 30 by cosine + 0.05 BM25': rerank30(0.05, vectors),
  'RRF 0.5, top 30 by cosine + 0.1 BM25': rerank30(0.1, vectors),
};

const out = ['| engine | fusion | nDCG@10 | recall@10 | text1@10 |', '|---|---|---:|---:|---:|'];
for (const engineName of values.engines!.split(',')) {
  const indexed = await indexedEngine(engineName, model, docs);
  if (!indexed) continue;
  const legs: Legs[] = [];
  for (const q of queries) {
    const r = await retrieve(indexed.search, model, q.query, FUSION_DEPTH);
    const [vector] = await model.embed([q.query]);
    legs.push({ text: r.text, semantic: r.semantic, vector, shipped: r.hybrid.map((h) => h.doc.source_id) });
  }
  await indexed.close();
  for (const [name, fuse] of Object.entries(variants)) {
    let ndcg = 0;
    let recall = 0;
    let kept = 0;
    queries.forEach((q, i) => {
      const ranked = fuse(legs[i]);
      const relevant = new Set(q.relevant);
      ndcg += ndcgAt(K, ranked, relevant);
      recall += recallAt(K, ranked, relevant);
      const first = legs[i].text[0];
      if (!first || ranked.slice(0, K).includes(id(first))) kept += 1;
    });
    const n = queries.length;
    out.push(`| ${engineName} | ${name} | ${(ndcg / n).toFixed(3)} | ${(recall / n).toFixed(3)} | ${(kept / n).toFixed(2)} |`);
    process.stderr.write(`${out[out.length - 1]}\n`);
  }
}
await model.dispose();
process.stdout.write(
  `${out.join('\n')}\n\n${queries.length} queries (${values.split}), loadavg ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}, ${os.cpus().length} cores\n`,
);
