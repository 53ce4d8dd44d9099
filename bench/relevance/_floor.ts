import os from 'node:os';
import path from 'node:path';
import { ASK_TUNING } from '../../index-mappings/ranking.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import type { Embedder } from '../../lib/embedding/embedder.js';
import { defaultModelDir, ModelEmbedder } from '../../lib/embedding/index.js';
import { EntityReaders } from '../../lib/entity-readers.js';
import { namedDocuments } from '../../lib/semantic/named.js';
import { retrieve } from '../../lib/semantic/retrieve.js';
import { coverage, documentStems } from '../../lib/translation/concepts.js';
import { scoreFusion } from '../../lib/semantic/fusion.js';
import { demoRecords, indexedEngine, withCpvLabels, withVectors } from './corpus.js';
import { judgedQueries } from './queries.js';
const engine = process.argv[2] ?? 'embedded';
const legs = JSON.parse(process.argv[3] ?? 'null');
const cacheDir = path.join(os.homedir(), '.cache', 'pdi', 'relevance');
const model: Embedder = await ModelEmbedder.load(defaultModelDir());
const records = await demoRecords();
const docs = withCpvLabels(await withVectors(records, model, cacheDir));
const store = new DocumentStore(':memory:');
store.save(records.map((r) => ({ doc: r.doc, content_hash: r.content_hash, original: null, indexed_at: r.indexed_at })));
const entities = new EntityReaders(store.db);
const indexed = (await indexedEngine(engine, model, docs))!;
for (const q of judgedQueries()) {
  const r = await retrieve(indexed.search, model, q.query, 50, { tuning: { ...ASK_TUNING, ...(legs ? { legs } : {}), coverage: 0, floor: 0 } });
  const named = await namedDocuments(q.query, 50, { entities, search: indexed.search });
  const near = new Map<string, number>();
  for (const h of [...r.semantic, ...r.greekSemantic]) near.set(h.doc.source_id, Math.max(near.get(h.doc.source_id) ?? 0, h.score));
  const all = new Map<string, any>();
  for (const h of [...r.semantic, ...r.text, ...r.greek, ...r.greekSemantic]) all.set(h.doc.source_id, h.doc);
  const stemsOf = [...all.values()].map((d) => documentStems(d));
  const heldBy = r.concepts.map((c) => ({
    weight: c.weight,
    forms: c.forms.map((f) => f.join(' ')),
    held: stemsOf.filter((st) => coverage([c], st) >= 0.5).length,
    of: stemsOf.length,
  }));
  const hits = r.hybrid.map((h) => ({
    id: h.doc.source_id,
    rel: h.relevance,
    cov: +coverage(r.concepts, documentStems(h.doc)).toFixed(4),
    per: r.concepts.map((c) => +coverage([c], documentStems(h.doc)).toFixed(3)),
    near: +(near.get(h.doc.source_id) ?? 0).toFixed(4),
  }));
  process.stdout.write(
    JSON.stringify({
      id: q.id,
      split: q.split,
      cat: q.category,
      relevant: q.relevant,
      named,
      textFirst: r.text[0]?.doc.source_id ?? null,
      concepts: r.concepts.length,
      heldBy,
      hits,
    }) + '\n',
  );
}
await indexed.close();
await entities.close();
