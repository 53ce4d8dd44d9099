// `pdi reindex`: rebuilds a source's index (or every source's) from the stored normalized records and
// cached embeddings (no refetch; only embeddings missing for the current model and text recipe are
// computed: all of them after a change of either), then swaps atomically. The learned CPV label table
// is counted again from the stored TED notices first (ingest/state/cpv-labels.ts).
// The records' text is read as ingest reads it today (composedText: Greek letters, NFC), so a record
// stored before a change of that reading is served, embedded and stored again as a new fetch would
// store it.
import { setImmediate } from 'node:timers/promises';
import type { IndexedDocument } from '../index-mappings/document.js';
import { stopReason } from '../lib/errors.js';
import { SOURCE_NAMES, type SourceName } from '../index-mappings/sources.js';
import type { RebuildResult, RebuildScope } from '../lib/search/provider.js';
import type { PipelineDeps } from './pipeline.js';
import { runFailure } from './run-failure.js';
import { CPV_SOURCES, withCpvLabels } from './stages/cpv-labels.js';
import { composedText } from './sources/text.js';
import { embedAll, embeddingCacheKey } from './stages/embed.js';
import { contentHash } from './stages/hash.js';

export interface ReindexOptions {
  /** Before the rebuild, per source: its stored records, and how many of them have no cached vector. */
  onStart?: (plan: { source: SourceName; documents: number; uncached: number; cacheKey: string }) => void;
  onBatch?: (done: number) => void;
  /** Stops the rebuild (Ctrl-C): the half-built index is dropped and the old one keeps serving. */
  signal?: AbortSignal;
}

/**
 * One new generation: `scope` (a source, or every source) rebuilt from the store, swapped in once.
 * Holds the reindex lock (one generation at a time); of one source, also that source's lock, so it is
 * not ingested meanwhile. Of every source, no source's: they may be ingested meanwhile, and the engine
 * catches their writes up before its swap (SearchProvider.rebuild).
 */
export async function reindex(deps: PipelineDeps, scope: RebuildScope, opts: ReindexOptions = {}): Promise<RebuildResult & { embedded: number }> {
  const sources: readonly SourceName[] = scope === 'all' ? SOURCE_NAMES : [scope];
  deps.state.beginRebuild();
  try {
    const runId = scope === 'all' ? null : deps.state.beginRun(scope, 'reindex');
    let done = 0;
    let embedded = 0;
    const { documents, embedder } = deps;
    const cacheKey = embeddingCacheKey(embedder);
    // The learned CPV label table counted again from the stored TED notices, so the documents below get
    // every label TED teaches, whichever order the sources were ingested in.
    if (sources.some((s) => CPV_SOURCES.has(s))) documents.relearnCpvLabels();
    for (const source of sources) {
      opts.onStart?.({ source, documents: documents.count(source), uncached: documents.uncached(source, cacheKey), cacheKey });
    }
    async function* batches(): AsyncIterable<IndexedDocument[]> {
      for (const source of sources) {
        for (const batch of documents.batches(source)) {
          // One turn of the event loop a batch: a signal (Ctrl-C) arrives as a task there, and the embedded
          // engine writes synchronously, so without it a stop was seen only after the swap.
          await setImmediate();
          // Thrown inside the rebuild, whose failure path drops what it built.
          if (opts.signal?.aborted) throw new Error(`stopped before the end: ${stopReason(opts.signal)}`);
          const records = batch.map((r) => {
            const doc = composedText(r.doc);
            return doc === r.doc ? r : { ...r, doc, content_hash: contentHash(doc) };
          });
          const { vectors, computed } = await embedAll(
            embedder,
            documents,
            records.map((r) => ({ doc: r.doc, contentHash: r.content_hash })),
          );
          // Stored as read, so the next fetch of such a record finds it unchanged rather than updated.
          documents.correct(records.filter((r, i) => r !== batch[i]));
          embedded += computed;
          done += batch.length;
          opts.onBatch?.(done);
          yield records.map((r, i) =>
            withCpvLabels(
              { ...r.doc, indexed_at: r.indexed_at, content_hash: r.content_hash, original: r.original, embedding: vectors[i] },
              documents.learnedCpvLabel,
            ),
          );
        }
      }
    }
    try {
      const result = await deps.search.rebuild(scope, batches(), { model: embedder.id, dimension: embedder.dimension });
      if (runId !== null) deps.state.endRun(scope as SourceName, runId, { fetched: done, new: 0, updated: done, unchanged: 0, failed: 0 }, null, deps.log);
      return { ...result, embedded };
    } catch (err) {
      if (runId !== null)
        deps.state.endRun(
          scope as SourceName,
          runId,
          { fetched: done, new: 0, updated: 0, unchanged: 0, failed: done },
          runFailure(err, opts.signal),
          deps.log,
        );
      throw err;
    }
  } finally {
    deps.state.releaseRebuild();
  }
}
