// Ask's tuning for translated questions (index-mappings/ranking.ts AskTuning), on the relevance set:
// each variant runs ask's own sources (lib/semantic/ask.ts askSources: the legs, the translation, the
// concept coverage, the floor, identifiers first) over the demo corpus with the real model. Per variant:
// nDCG@10 of the tuning half, the held-out half and all (questions with relevant documents); the
// English questions' recall@10 of Greek documents (as run.ts counts it); the identifier questions'
// recall@10; the share of questions on absent topics answered with no source; nDCG@10 of each kind on
// the tuning half. Choices are made on the tuning columns only.
//   node --import tsx bench/relevance/translation.ts [--engines embedded,elasticsearch] [--variants NAME,…]
// The real model only (scripts/fetch-model.sh), vectors cached as bench/relevance/run.ts caches them.
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ASK_TUNING, type AskTuning, FUSION_DEPTH } from '../../index-mappings/ranking.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import type { Embedder } from '../../lib/embedding/embedder.js';
import { defaultModelDir, ModelEmbedder } from '../../lib/embedding/index.js';
import { EntityReaders } from '../../lib/entity-readers.js';
import { askSources } from '../../lib/semantic/ask.js';
import { demoRecords, indexedEngine, withCpvLabels, withVectors } from './corpus.js';
import { ndcgAt, recallAt } from './metrics.js';
import { isGreekDocument, type JudgedQuery, judgedQueries } from './queries.js';

const { values } = parseArgs({ options: { engines: { type: 'string', default: 'embedded,elasticsearch' }, variants: { type: 'string' } } });
const cacheDir = path.join(process.env.PDI_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'pdi'), 'relevance');
const K = 10;
const queries = judgedQueries();
const model: Embedder = await ModelEmbedder.load(process.env.PDI_MODEL_DIR ?? defaultModelDir());

const with_ = (change: Partial<AskTuning>): AskTuning => ({ ...ASK_TUNING, ...change });
const legs = (semantic: number, text: number, greek: number, greekSemantic: number) => ({ semantic, text, greek, greekSemantic });
const ALL_VARIANTS: Record<string, AskTuning> = {
  shipped: ASK_TUNING,
  'before: no translation, no coverage, no floor': { legs: legs(0.2, 0.8, 0, 0), coverage: 0, floor: 0 },
  'translation legs only': with_({ coverage: 0, floor: 0 }),
  'legs 0.1/0.3/0.3/0.3': with_({ legs: legs(0.1, 0.3, 0.3, 0.3) }),
  'legs 0.1/0.3/0.4/0.2': with_({ legs: legs(0.1, 0.3, 0.4, 0.2) }),
  'legs 0.1/0.2/0.4/0.3': with_({ legs: legs(0.1, 0.2, 0.4, 0.3) }),
  'legs 0.2/0.3/0.3/0.2': with_({ legs: legs(0.2, 0.3, 0.3, 0.2) }),
  'coverage 0.3': with_({ coverage: 0.3 }),
  'coverage 0.6': with_({ coverage: 0.6 }),
  'floor 0': with_({ floor: 0 }),
  'floor 0.5': with_({ floor: 0.5 }),
  'floor 0.6': with_({ floor: 0.6 }),
};
const VARIANTS = values.variants ? Object.fromEntries(values.variants.split(',').map((n) => [n, ALL_VARIANTS[n]!])) : ALL_VARIANTS;

interface Scored {
  q: JudgedQuery;
  ndcg: number;
  recall: number;
  empty: boolean;
  greekRecall: number | null;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : Number.NaN);
const f = (x: number) => (Number.isNaN(x) ? '' : x.toFixed(3));
const records = await demoRecords();
const docs = withCpvLabels(await withVectors(records, model, cacheDir));
// The entity index of the corpus, as ingest writes it (identifiers named in a question lead its answer).
const store = new DocumentStore(':memory:');
store.save(records.map((r) => ({ doc: r.doc, content_hash: r.content_hash, original: null, indexed_at: r.indexed_at })));
const entities = new EntityReaders(store.db);
const kinds = [...new Set(queries.map((q) => q.category))].filter((k) => k !== 'absent');
const out: string[] = [];
for (const engine of values.engines!.split(',')) {
  const indexed = await indexedEngine(engine, model, docs);
  if (!indexed) continue;
  out.push(
    `\n${engine}`,
    `| variant | tune nDCG | held-out nDCG | all nDCG | EN→GR recall tune | held-out | identifier recall tune | held-out | absent empty tune | held-out | ${kinds.map((k) => `${k} tune`).join(' | ')} |`,
    `|---|${'---:|'.repeat(9 + kinds.length)}`,
  );
  for (const [name, tuning] of Object.entries(VARIANTS)) {
    const scored: Scored[] = [];
    for (const q of queries) {
      // Deeper than ten: the English questions' recall of Greek documents skips relevant TED notices, as run.ts does.
      const ranking = (await askSources({ search: indexed.search, embedder: model, entities }, q.query, FUSION_DEPTH, { tuning })).map((s) => s.doc.source_id);
      const relevant = new Set(q.relevant);
      const greek = new Set(q.relevant.filter(isGreekDocument));
      scored.push({
        q,
        ndcg: ndcgAt(K, ranking, relevant),
        recall: recallAt(K, ranking, relevant),
        empty: ranking.length === 0,
        greekRecall:
          q.category === 'cross-language' && greek.size
            ? recallAt(
                K,
                ranking.filter((x) => !relevant.has(x) || greek.has(x)),
                greek,
              )
            : null,
      });
    }
    const over = (pred: (q: JudgedQuery) => boolean, value: (s: Scored) => number | null) =>
      f(mean(scored.filter((s) => pred(s.q) && value(s) !== null).map((s) => value(s)!)));
    const tune = (q: JudgedQuery) => q.split === 'tune';
    const held = (q: JudgedQuery) => q.split === 'held-out';
    const judged = (pred: (q: JudgedQuery) => boolean) => (q: JudgedQuery) => pred(q) && q.category !== 'absent';
    const of = (kind: string, pred: (q: JudgedQuery) => boolean) => (q: JudgedQuery) => pred(q) && q.category === kind;
    out.push(
      `| ${name} | ${over(judged(tune), (s) => s.ndcg)} | ${over(judged(held), (s) => s.ndcg)} | ${over(
        judged(() => true),
        (s) => s.ndcg,
      )} | ${over(tune, (s) => s.greekRecall)} | ${over(held, (s) => s.greekRecall)} | ${over(of('identifier', tune), (s) => s.recall)} | ${over(of('identifier', held), (s) => s.recall)} | ${over(of('absent', tune), (s) => (s.empty ? 1 : 0))} | ${over(of('absent', held), (s) => (s.empty ? 1 : 0))} | ${kinds.map((k) => over(of(k, tune), (s) => s.ndcg)).join(' | ')} |`,
    );
    process.stderr.write(`${out.at(-1)}\n`);
  }
  await indexed.close();
}
await entities.close();
store.close();
process.stdout.write(
  `${out.join('\n')}\n\nload ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}\n`,
);
