// Fusion variants for English questions over Greek documents, on the relevance set with the CPV labels
// ingest learns (as bench/relevance/run.ts indexes them): each query's two legs are retrieved once as ask
// retrieves them, then fused each way; every variant keeps the full-text first hit within ten, as ask
// does. Per variant: hybrid nDCG@10 and recall@10 of the tuning half, the held-out half and all; the
// English questions' recall@10 of Greek documents (kind cross-language, counted as run.ts counts it); the
// Greek questions' nDCG@10; text1@10; then nDCG@10 per kind of question. Parameters are to be chosen on the tuning columns only.
//   node --import tsx bench/relevance/fusion-language.ts [--engines embedded,elasticsearch] [--depth 50]
// --depth: hits per leg (ask's FUSION_DEPTH by default; deeper moves the ceiling row, not ask).
// The real model only (scripts/fetch-model.sh), vectors cached as bench/relevance/run.ts caches them.
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { FUSION_DEPTH, KEEP_TEXT_FIRST_WITHIN, SEMANTIC_WEIGHT } from '../../index-mappings/ranking.js';
import { defaultModelDir, ModelEmbedder } from '../../lib/embedding/index.js';
import type { SearchHit } from '../../lib/search/provider.js';
import { latinQuestion, retrieve, semanticWeight } from '../../lib/semantic/retrieve.js';
import { keepWithin, scoreFusion } from '../../lib/semantic/fusion.js';
import { demoRecords, indexedEngine, withCpvLabels, withVectors } from './corpus.js';
import { ndcgAt, recallAt } from './metrics.js';
import { isGreekDocument, type JudgedQuery, judgedQueries } from './queries.js';

const { values } = parseArgs({
  options: { engines: { type: 'string', default: 'embedded,elasticsearch' }, depth: { type: 'string', default: String(FUSION_DEPTH) } },
});
const cacheDir = path.join(process.env.PDI_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'pdi'), 'relevance');
const K = 10;
const queries = judgedQueries();

interface Legs {
  q: JudgedQuery;
  text: SearchHit[];
  semantic: SearchHit[];
  shipped: string[];
}
/** A ranking of source ids, or null for the ceiling row (what any order of the two legs' hits can reach). */
type Variant = (legs: Legs) => string[] | null;

const id = (h: SearchHit) => h.doc.source_id;

/** Score fusion with the semantic leg at `semanticOf(legs)`, the full-text first hit kept within ten (ask.ts retrieve). */
const fusion =
  (semanticOf: (legs: Legs) => number): Variant =>
  (legs) => {
    const w = semanticOf(legs);
    const fused = scoreFusion(
      [
        { hits: legs.semantic, weight: w },
        { hits: legs.text, weight: 1 - w },
      ],
      id,
      (h) => h.score,
    );
    return keepWithin(fused, id, legs.text[0] && id(legs.text[0]), KEEP_TEXT_FIRST_WITHIN).map((f) => id(f.item));
  };

/** The semantic weight `latin` for Latin-script questions that name no code, 0.7 (SEMANTIC_WEIGHT) otherwise. */
const scriptAware = (latin: number) => fusion(({ q }) => (latinQuestion(q.query) ? latin : SEMANTIC_WEIGHT));

/**
 * The full-text leg's weight grown with its own lead: its tenth hit's BM25 over its first (`gap` 0..1:
 * 1 when the first stands alone). Semantic weight = 0.7 (SEMANTIC_WEIGHT) − `k` × gap, floored at 0.2.
 */
const textGap = (k: number, latinOnly: boolean) =>
  fusion(({ q, text }) => {
    if (latinOnly && !latinQuestion(q.query)) return SEMANTIC_WEIGHT;
    const top = text[0]?.score ?? 0;
    const tenth = text[Math.min(K, text.length) - 1]?.score ?? 0;
    const gap = top > 0 ? 1 - tenth / top : 0;
    return Math.max(0.2, SEMANTIC_WEIGHT - k * gap);
  });

/**
 * The model's own doubt: the semantic weight `low` when the semantic leg's best cosine is under `below`
 * (the question near nothing the model knows), 0.7 otherwise.
 */
const semanticDoubt = (below: number, low: number) => fusion(({ semantic }) => ((semantic[0]?.score ?? 0) < below ? low : SEMANTIC_WEIGHT));

const variants: Record<string, Variant> = {
  '(a) today: semantic 0.2 for Latin no code, 0.7 otherwise, text first kept within 10 (ask.ts)': (l) => l.shipped,
  '(a) the same, re-fused here (must equal the row above)': fusion(({ q }) => semanticWeight(model, q.query)),
  'before: semantic 0.7 for every question': fusion(() => SEMANTIC_WEIGHT),
  '(b) Latin, no code: semantic 0.5': scriptAware(0.5),
  '(b) Latin, no code: semantic 0.4': scriptAware(0.4),
  '(b) Latin, no code: semantic 0.3': scriptAware(0.3),
  '(b) Latin, no code: semantic 0.2': scriptAware(0.2),
  '(b) Latin, no code: semantic 0.1': scriptAware(0.1),
  '(b) Latin, no code: full text only (semantic 0)': scriptAware(0),
  '(c) text gap, k 0.3, every question': textGap(0.3, false),
  '(c) text gap, k 0.5, every question': textGap(0.5, false),
  '(c) text gap, k 0.5, Latin no code': textGap(0.5, true),
  '(c) text gap, k 0.7, Latin no code': textGap(0.7, true),
  '(c) semantic first cosine < 0.91: semantic 0.2': semanticDoubt(0.91, 0.2),
  '(c) semantic first cosine < 0.915: semantic 0.2': semanticDoubt(0.915, 0.2),
  '(c) semantic first cosine < 0.92: semantic 0.2': semanticDoubt(0.92, 0.2),
  '(c) semantic first cosine < 0.925: semantic 0.2': semanticDoubt(0.925, 0.2),
  'ceiling: best order of the two legs’ hits': () => null,
};

const model = await ModelEmbedder.load(process.env.PDI_MODEL_DIR ?? defaultModelDir());
const docs = withCpvLabels(await withVectors(await demoRecords(), model, cacheDir));
const f = (x: number) => x.toFixed(3);
const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : Number.NaN);
const out = [
  '| engine | fusion | tune nDCG@10 | recall@10 | held-out nDCG@10 | recall@10 | all nDCG@10 | recall@10 | English→Greek R@10 tune | held-out | all | Greek nDCG@10 tune | held-out | text1@10 |',
  '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
];
const kinds = [...new Set(queries.map((q) => q.category))];
const byKind = [`| engine | fusion | ${kinds.join(' | ')} |`, `|---|---|${kinds.map(() => '---:').join('|')}|`];
const latinCount = queries.filter((q) => latinQuestion(q.query)).length;
for (const engineName of values.engines!.split(',')) {
  const indexed = await indexedEngine(engineName, model, docs);
  if (!indexed) {
    process.stderr.write(`skipped ${engineName}: ELASTICSEARCH_URL unset\n`);
    continue;
  }
  const legs: Legs[] = [];
  for (const q of queries) {
    const r = await retrieve(indexed.search, model, q.query, Number(values.depth));
    legs.push({ q, text: r.text, semantic: r.semantic, shipped: r.hybrid.map((h) => h.doc.source_id) });
  }
  await indexed.close();
  for (const [name, fuse] of Object.entries(variants)) {
    const per = legs.map((l) => {
      const relevant = new Set(l.q.relevant);
      const greek = new Set(l.q.relevant.filter(isGreekDocument));
      // The ceiling: every relevant document either leg returned, first.
      const ranked = fuse(l) ?? [...new Set([...l.text, ...l.semantic].map(id))].sort((a, b) => Number(relevant.has(b)) - Number(relevant.has(a)));
      const first = l.text[0];
      return {
        q: l.q,
        ndcg: ndcgAt(K, ranked, relevant),
        recall: recallAt(K, ranked, relevant),
        // As run.ts: Greek relevant documents among the first ten, other relevant documents not counted.
        greek:
          l.q.category === 'cross-language' && greek.size
            ? recallAt(
                K,
                ranked.filter((x) => !relevant.has(x) || greek.has(x)),
                greek,
              )
            : null,
        kept: !first || ranked.slice(0, K).includes(id(first)) ? 1 : 0,
      };
    });
    const half = (h: string) => per.filter((p) => h === 'all' || p.q.split === h);
    const cells = [
      ...['tune', 'held-out', 'all'].flatMap((h) => [f(mean(half(h).map((p) => p.ndcg))), f(mean(half(h).map((p) => p.recall)))]),
      ...['tune', 'held-out', 'all'].map((h) => f(mean(half(h).flatMap((p) => (p.greek === null ? [] : [p.greek]))))),
      ...['tune', 'held-out'].map((h) => f(mean(half(h).flatMap((p) => (p.q.category === 'greek' ? [p.ndcg] : []))))),
      mean(per.map((p) => p.kept)).toFixed(2),
    ];
    out.push(`| ${engineName} | ${name} | ${cells.join(' | ')} |`);
    byKind.push(`| ${engineName} | ${name} | ${kinds.map((k) => f(mean(per.flatMap((p) => (p.q.category === k ? [p.ndcg] : []))))).join(' | ')} |`);
    process.stderr.write(`${out[out.length - 1]}\n`);
  }
}
await model.dispose();
process.stdout.write(
  `${out.join('\n')}\n\nnDCG@10 by kind, all 112:\n\n${byKind.join('\n')}\n\n${queries.length} queries, ${latinCount} in Latin script naming no code; loadavg ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}, ${os.cpus().length} cores\n`,
);
