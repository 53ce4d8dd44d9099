// Relevance of ask's retrieval on the demo corpus: nDCG@10 and recall@10 of full text (best match, the
// leg ask fuses), semantic (kNN of the embedded question) and hybrid (ask's sources: identifiers first,
// then the fusion of every leg, translation included, weighed by the concepts held), per
// engine and embedder, over the judged queries of test/fixtures/relevance/queries.json: for its tuning
// half, its held-out half and the whole set, overall and per kind; and, for the English questions about
// Greek documents (kind cross-language), the recall@10 of the Greek relevant documents alone. The AND
// search of GET /v1/search is measured beside them for reference. Each document has the official English
// and Greek labels of its CPV codes, as ingest gives them (ingest/stages/cpv-labels.ts; searched, its
// vector unchanged); --without-cpv-labels leaves them out.
//   node --import tsx bench/relevance/run.ts [--engines embedded,elasticsearch] [--embedders hashing,model]
//     [--per-query] [--without-cpv-labels]
// Elasticsearch runs when ELASTICSEARCH_URL is set; the model when PDI_MODEL_DIR (or the folder
// scripts/fetch-model.sh fills) holds one. Vectors are cached in ~/.cache/pdi/relevance.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultModelDir, HashingEmbedder, ModelEmbedder } from '../../lib/embedding/index.js';
import type { Embedder } from '../../lib/embedding/embedder.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { FUSION_DEPTH } from '../../index-mappings/ranking.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { EntityReaders } from '../../lib/entity-readers.js';
import { askSources } from '../../lib/semantic/ask.js';
import { retrieve } from '../../lib/semantic/retrieve.js';
import { demoRecords, indexedEngine, withCpvLabels, withVectors } from './corpus.js';
import { ndcgAt, recallAt } from './metrics.js';
import { isGreekDocument, type JudgedQuery, judgedQueries } from './queries.js';

const { values } = parseArgs({
  options: {
    engines: { type: 'string', default: 'embedded,elasticsearch' },
    embedders: { type: 'string', default: 'hashing,model' },
    'per-query': { type: 'boolean', default: false },
    'without-cpv-labels': { type: 'boolean', default: false },
  },
});
const cacheDir = path.join(process.env.PDI_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'pdi'), 'relevance');
const K = 10;
const MODES = ['search', 'text', 'semantic', 'hybrid'] as const;
type Mode = (typeof MODES)[number];
const MODE_NAME: Record<Mode, string> = { search: 'AND search (/v1/search)', text: 'full text (best match)', semantic: 'semantic', hybrid: 'hybrid (ask)' };
const HALVES = ['tune', 'held-out', 'all'] as const;
const ENGLISH_FOR_GREEK = 'cross-language';

// Questions on absent topics have nothing to rank: bench/relevance/translation.ts counts their empty answers.
const queries = judgedQueries().filter((q) => q.category !== 'absent');
const kinds = [...new Set(queries.map((q) => q.category))];

async function embedderOf(name: string): Promise<Embedder | null> {
  if (name === 'hashing') return new HashingEmbedder();
  const dir = process.env.PDI_MODEL_DIR ?? defaultModelDir();
  if (!fs.existsSync(path.join(dir, 'config.json'))) return null;
  return ModelEmbedder.load(dir);
}

async function rankings(search: SearchProvider, embedder: Embedder, q: string): Promise<Record<Mode, string[]>> {
  const r = await retrieve(search, embedder, q, FUSION_DEPTH);
  // What ask answers with: identifiers first, then the legs' fusion (deeper than ten, as the recall of
  // Greek documents skips relevant TED notices).
  const asked = await askSources({ search, embedder, entities }, q, FUSION_DEPTH);
  const and = await search.search({ text: q, limit: K, offset: 0 });
  const ids = (hits: { doc: { source_id: string } }[]) => hits.map((h) => h.doc.source_id);
  return { search: ids(and.hits), text: ids(r.text), semantic: ids(r.semantic), hybrid: ids(asked) };
}

interface Scored {
  q: JudgedQuery;
  ndcg: Record<Mode, number>;
  recall: Record<Mode, number>;
  greekRecall: Record<Mode, number> | null;
}

const mean = (xs: number[]) => (xs.length ? +(xs.reduce((s, x) => s + x, 0) / xs.length).toFixed(3) : null);
const inHalf = (half: (typeof HALVES)[number]) => (s: Scored) => half === 'all' || s.q.split === half;
function summary(scored: Scored[]) {
  return Object.fromEntries(MODES.map((m) => [m, { ndcg10: mean(scored.map((s) => s.ndcg[m])), recall10: mean(scored.map((s) => s.recall[m])) }]));
}

const records = await demoRecords();
// The entity index of the corpus, as ingest writes it (identifiers named in a question lead its answer).
const store = new DocumentStore(':memory:');
store.save(records.map((r) => ({ doc: r.doc, content_hash: r.content_hash, original: null, indexed_at: r.indexed_at })));
const entities = new EntityReaders(store.db);
const rows: Record<string, any>[] = [];
for (const embedderName of values.embedders!.split(',')) {
  const embedder = await embedderOf(embedderName);
  if (!embedder) {
    process.stderr.write(`skipped ${embedderName}: no model folder (scripts/fetch-model.sh)\n`);
    continue;
  }
  const vectored = await withVectors(records, embedder, cacheDir);
  const docs = values['without-cpv-labels'] ? vectored : withCpvLabels(vectored);
  for (const engineName of values.engines!.split(',')) {
    const indexed = await indexedEngine(engineName, embedder, docs);
    if (!indexed) {
      process.stderr.write(`skipped ${engineName}: ELASTICSEARCH_URL unset\n`);
      continue;
    }
    const scored: Scored[] = [];
    for (const q of queries) {
      const relevant = new Set(q.relevant);
      const greek = new Set(q.relevant.filter(isGreekDocument));
      const ranked = await rankings(indexed.search, embedder, q.query);
      const per = (f: (r: string[]) => number) => Object.fromEntries(MODES.map((m) => [m, f(ranked[m])])) as Record<Mode, number>;
      const s: Scored = {
        q,
        ndcg: per((r) => ndcgAt(K, r, relevant)),
        recall: per((r) => recallAt(K, r, relevant)),
        // Greek relevant documents among the first ten, out of those that fit: other relevant documents do not count.
        greekRecall:
          q.category === ENGLISH_FOR_GREEK && greek.size
            ? per((r) =>
                recallAt(
                  K,
                  r.filter((id) => !relevant.has(id) || greek.has(id)),
                  greek,
                ),
              )
            : null,
      };
      scored.push(s);
      if (values['per-query']) process.stderr.write(`${JSON.stringify({ id: q.id, split: q.split, ndcg: s.ndcg, greekRecall: s.greekRecall })}\n`);
    }
    await indexed.close();
    const row = {
      engine: engineName,
      embedder: embedder.id,
      queries: Object.fromEntries(HALVES.map((h) => [h, scored.filter(inHalf(h)).length])),
      ...Object.fromEntries(HALVES.map((h) => [h, summary(scored.filter(inHalf(h)))])),
      by_kind: Object.fromEntries(
        kinds.map((k) => [k, Object.fromEntries(HALVES.map((h) => [h, summary(scored.filter((s) => s.q.category === k && inHalf(h)(s)))]))]),
      ),
      english_for_greek_recall10: Object.fromEntries(
        HALVES.map((h) => [
          h,
          Object.fromEntries(MODES.map((m) => [m, mean(scored.filter((s) => s.greekRecall && inHalf(h)(s)).map((s) => s.greekRecall![m]))])),
        ]),
      ),
    };
    rows.push(row);
    process.stderr.write(`${JSON.stringify(row)}\n`);
  }
}

// The tables docs/benchmarks-history.md records (the current figures: docs/benchmarks.md "Relevance of
// ask's retrieval").
const f = (x: number | null) => (x === null ? '' : x.toFixed(3));
const out = [
  '| engine | embedder | ranking | tune nDCG@10 | recall@10 | held-out nDCG@10 | recall@10 | all nDCG@10 | recall@10 |',
  '|---|---|---|---:|---:|---:|---:|---:|---:|',
];
for (const r of rows) {
  for (const m of MODES)
    out.push(`| ${r.engine} | ${r.embedder} | ${MODE_NAME[m]} | ${HALVES.map((h) => `${f(r[h][m].ndcg10)} | ${f(r[h][m].recall10)}`).join(' | ')} |`);
}
out.push('', '| engine | embedder | kind | ranking | tune nDCG@10 | recall@10 | held-out nDCG@10 | recall@10 |', '|---|---|---|---|---:|---:|---:|---:|');
for (const r of rows) {
  for (const k of kinds) {
    for (const m of MODES.filter((x) => x !== 'search'))
      out.push(
        `| ${r.engine} | ${r.embedder} | ${k} | ${MODE_NAME[m]} | ${(['tune', 'held-out'] as const).map((h) => `${f(r.by_kind[k][h][m].ndcg10)} | ${f(r.by_kind[k][h][m].recall10)}`).join(' | ')} |`,
      );
  }
}
out.push('', '| engine | embedder | ranking | English questions: recall@10 of Greek documents, tune | held-out | all |', '|---|---|---|---:|---:|---:|');
for (const r of rows) {
  for (const m of MODES)
    out.push(`| ${r.engine} | ${r.embedder} | ${MODE_NAME[m]} | ${HALVES.map((h) => f(r.english_for_greek_recall10[h][m])).join(' | ')} |`);
}
process.stdout.write(`${out.join('\n')}\n\n${JSON.stringify({ cores: os.cpus().length, loadavg: os.loadavg(), rows }, null, 2)}\n`);
