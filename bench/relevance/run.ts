// Relevance of ask's retrieval on the demo corpus: nDCG@10 and recall@10 of full text (best match, the
// leg ask fuses), semantic (kNN of the embedded question) and hybrid (their reciprocal rank fusion), per
// engine and embedder, over the judged queries of test/fixtures/relevance/queries.json. The AND search
// of GET /v1/search is measured beside them for reference.
//   node --import tsx bench/relevance/run.ts [--engines embedded,elasticsearch] [--embedders hashing,model]
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
import { retrieve } from '../../lib/semantic/ask.js';
import { demoRecords, indexedEngine, withVectors } from './corpus.js';
import { ndcgAt, recallAt } from './metrics.js';

const { values } = parseArgs({ options: {
  engines: { type: 'string', default: 'embedded,elasticsearch' },
  embedders: { type: 'string', default: 'hashing,model' },
  'per-query': { type: 'boolean', default: false },
} });
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const cacheDir = path.join(process.env.PDI_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'pdi'), 'relevance');
const K = 10;
const MODES = ['search', 'text', 'semantic', 'hybrid'] as const;
type Mode = (typeof MODES)[number];

interface Query { id: string; category: string; query: string; relevant: string[] }
const { queries } = JSON.parse(fs.readFileSync(path.join(root, 'test/fixtures/relevance/queries.json'), 'utf8')) as { queries: Query[] };

async function embedderOf(name: string): Promise<Embedder | null> {
  if (name === 'hashing') return new HashingEmbedder();
  const dir = process.env.PDI_MODEL_DIR ?? defaultModelDir();
  if (!fs.existsSync(path.join(dir, 'config.json'))) return null;
  return ModelEmbedder.load(dir);
}

async function rankings(search: SearchProvider, embedder: Embedder, q: string): Promise<Record<Mode, string[]>> {
  const r = await retrieve(search, embedder, q, FUSION_DEPTH);
  const and = await search.search({ text: q, limit: K, offset: 0 });
  const ids = (hits: { doc: { source_id: string } }[]) => hits.map((h) => h.doc.source_id);
  return { search: ids(and.hits), text: ids(r.text), semantic: ids(r.semantic), hybrid: ids(r.hybrid) };
}

const records = await demoRecords();
const rows: Record<string, unknown>[] = [];
for (const embedderName of values.embedders!.split(',')) {
  const embedder = await embedderOf(embedderName);
  if (!embedder) {
    process.stderr.write(`skipped ${embedderName}: no model folder (scripts/fetch-model.sh)\n`);
    continue;
  }
  const docs = await withVectors(records, embedder, cacheDir);
  for (const engineName of values.engines!.split(',')) {
    const indexed = await indexedEngine(engineName, embedder, docs);
    if (!indexed) {
      process.stderr.write(`skipped ${engineName}: ELASTICSEARCH_URL unset\n`);
      continue;
    }
    const { search } = indexed;
    const sums = Object.fromEntries(MODES.map((m) => [m, { ndcg: 0, recall: 0 }])) as Record<Mode, { ndcg: number; recall: number }>;
    const byCategory = new Map<string, Record<Mode, number>>();
    for (const q of queries) {
      const relevant = new Set(q.relevant);
      const ranked = await rankings(search, embedder, q.query);
      const line: Record<string, unknown> = { id: q.id };
      for (const m of MODES) {
        const ndcg = ndcgAt(K, ranked[m], relevant);
        sums[m].ndcg += ndcg;
        sums[m].recall += recallAt(K, ranked[m], relevant);
        const cat = byCategory.get(q.category) ?? (Object.fromEntries(MODES.map((x) => [x, 0])) as Record<Mode, number>);
        cat[m] += ndcg / queries.filter((x) => x.category === q.category).length;
        byCategory.set(q.category, cat);
        line[m] = +ndcg.toFixed(3);
      }
      if (values['per-query']) process.stderr.write(`${JSON.stringify(line)}\n`);
    }
    const n = queries.length;
    const row = {
      engine: engineName,
      embedder: embedder.id,
      queries: n,
      ...Object.fromEntries(MODES.map((m) => [m, { ndcg10: +(sums[m].ndcg / n).toFixed(3), recall10: +(sums[m].recall / n).toFixed(3) }])),
      ndcg10_by_category: Object.fromEntries([...byCategory].map(([c, v]) => [c, Object.fromEntries(MODES.map((m) => [m, +v[m].toFixed(3)]))])),
    };
    rows.push(row);
    process.stderr.write(`${JSON.stringify(row)}\n`);
    await indexed.close();
  }
}

// The table docs/benchmarks.md records.
const out = ['| engine | embedder | mode | nDCG@10 | recall@10 |', '|---|---|---|---:|---:|'];
for (const r of rows as Record<string, any>[]) {
  for (const m of MODES) out.push(`| ${r.engine} | ${r.embedder} | ${m === 'search' ? 'AND search (/v1/search)' : m === 'text' ? 'full text (best match)' : m} | ${r[m].ndcg10.toFixed(3)} | ${r[m].recall10.toFixed(3)} |`);
}
process.stdout.write(`${out.join('\n')}\n\n${JSON.stringify({ cores: os.cpus().length, loadavg: os.loadavg(), rows }, null, 2)}\n`);
