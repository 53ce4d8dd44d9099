// A rebuild of the embedded index (SearchProvider.rebuild): a staging table set per rebuilt source,
// loaded from the batches, its lists built, verified, then swapped in with the vector file of the new
// generations in one transaction. A failure leaves the old generations serving. docs/search-engines.md
// "Rebuild: the swap".
import type { IndexedDocument } from '../../../index-mappings/document.js';
import { SOURCE_NAMES, type SourceName } from '../../../index-mappings/sources.js';
import { BadRequestError } from '../../errors.js';
import { CATCH_UP_MARGIN_MS, type EmbeddingIdentity, type RebuildResult, type RebuildScope } from '../provider.js';
import { invalidDocument } from './doc-rows.js';
import { logCall, type Engine } from './engine.js';
import type { TableSet } from './table-set.js';
import { buildLists } from './text-search.js';
import type { VectorIndex } from './vector-index.js';

/**
 * Of `'all'`, other processes may ingest meanwhile into the serving sets: the swap's transaction (which
 * holds SQLite's write lock, so no write slips between) first copies over what they received since the
 * start, where it differs from what was loaded. `embedding`: the batches' vectors are of another model,
 * which the index records from the swap on (engine.file.embeddingModel).
 */
export async function rebuild(
  engine: Engine,
  scope: RebuildScope,
  batches: AsyncIterable<IndexedDocument[]>,
  embedding?: EmbeddingIdentity,
): Promise<RebuildResult> {
  const { file, gens, vectors, dimension, log } = engine;
  const started = performance.now();
  if (scope !== 'all' && !SOURCE_NAMES.includes(scope)) throw new BadRequestError(`Unknown source: ${scope}`);
  const model = embedding?.model ?? file.embeddingModel;
  // The vector index file has one length; the other sources' vectors would be of another model.
  if (embedding && embedding.dimension !== dimension)
    throw new Error(`Rebuild for ${model}: its ${embedding.dimension} dimensions are not the index's ${dimension}`);
  if (model !== file.embeddingModel && scope !== 'all') throw new Error(`Rebuild of ${scope} for ${model}: a change of model rebuilds every source`);
  const sources: readonly SourceName[] = scope === 'all' ? SOURCE_NAMES : [scope];
  const catchUpSince = Date.now() - CATCH_UP_MARGIN_MS;
  const db = file.open();
  const staging = file.write(() => new Map(sources.map((source) => [source, gens.stage(source)] as const)));
  const loaded = new Map(sources.map((source) => [source, { documents: 0, vectors: 0 }]));
  const writeInto = (set: TableSet, docs: IndexedDocument[]) => {
    const ctx = set.beginWrite();
    for (const doc of docs) set.write(doc, ctx);
    set.endWrite(ctx);
    const n = loaded.get(set.source)!;
    n.documents += ctx.inserted - ctx.removed;
    n.vectors += ctx.vectors;
  };
  const what = scope === 'all' ? 'every source' : scope;
  let vectorFile: ReturnType<VectorIndex['write']> = null;
  const previousFile = file.read(() => vectors.snapshot(db)?.file ?? null);
  try {
    for await (const batch of batches) {
      for (const doc of batch) {
        const error = invalidDocument(doc, dimension) ?? (staging.has(doc.source) ? null : `source ${doc.source} is not ${scope}`);
        if (error) throw new Error(`Rebuild of ${what} stopped: document ${String(doc?.source_id)} rejected: ${error}`);
      }
      file.write(() => {
        for (const [source, set] of staging) {
          const docs = scope === 'all' ? batch.filter((d) => d.source === source) : batch;
          if (docs.length > 0) writeInto(set, docs);
        }
      });
    }
    // Before the swap, so the new generation serves common terms fast from its first query.
    for (const set of staging.values()) {
      file.write(() => set.optimize());
      buildLists(engine, set);
    }
    // The vector file of the new generations and the other sources' serving ones, switched to by the swap.
    vectorFile = file.read(() => {
      const serving = gens.serving();
      const kept = serving.filter((set) => !staging.has(set.source));
      return vectors.write(
        db,
        [...kept, ...staging.values()],
        false,
        serving.filter((set) => staging.has(set.source)),
      );
    });
    file.write(() => {
      if (scope === 'all') {
        for (const set of staging.values()) {
          const serving = gens.serving(set.source)[0];
          if (serving) writeInto(set, serving.changedSince(catchUpSince, set));
        }
      }
      for (const set of staging.values()) {
        const { documents, vectors: written } = loaded.get(set.source)!;
        const counts = set.counts();
        if (counts.docs !== documents || counts.fts !== documents || counts.vec !== written) {
          throw new Error(
            `Rebuild of ${what} failed verification for ${set.source}: expected ${documents} documents and ${written} vectors, ` +
              `found ${counts.docs} rows, ${counts.fts} full-text rows, ${counts.vec} vectors`,
          );
        }
        gens.swapIn(set);
      }
      if (vectorFile) vectors.commit(db, vectorFile);
      if (model !== file.embeddingModel) db.prepare(`UPDATE meta SET value = ? WHERE key = 'embedding_model'`).run(model);
    });
    file.embeddingModel = model;
  } catch (err) {
    vectors.discard(vectorFile);
    for (const set of staging.values()) {
      try {
        file.write(() => gens.drop(set.source, set.gen));
      } catch (dropErr) {
        log?.error({ err: dropErr, table: set.name }, 'could not drop the failed rebuild generation');
      }
    }
    log?.warn({ err, scope }, 'rebuild failed; the previous generation keeps serving');
    throw err;
  }
  gens.pruneRetired();
  vectors.prune(db, previousFile);
  const bySource = Object.fromEntries([...loaded].map(([source, n]) => [source, n.documents])) as Partial<Record<SourceName, number>>;
  const documents = Object.values(bySource).reduce((x, y) => x + y, 0);
  const index = [...staging.values()].map((set) => set.name).join(',');
  logCall(engine, 'rebuild', started, { scope, documents, index });
  return { source: scope, documents, bySource, index };
}
