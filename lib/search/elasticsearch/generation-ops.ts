// Steps of a rebuild on whole indices: counts per source, write blocks, the force merge, deleting
// replaced generations. Each is one or a few engine calls (lifecycle.ts runs them in order).
import type { estypes } from '@elastic/elasticsearch';
import { SOURCE_NAMES } from '../../../index-mappings/sources.js';
import type { Logger } from '../../logger.js';
import { delay, describe, type EngineClient } from './client.js';

/** A force merge of a large index (450k documents: ~1 min here) outlasts the per-request timeout. */
const FORCE_MERGE_TIMEOUT_MS = 30 * 60_000;
const FORCE_MERGE_POLL_MS = 250;


/** Documents per source in `index` (an index, or several comma-separated). */
export async function countsBySource(engine: EngineClient, index: string): Promise<Map<string, number>> {
  const res = await engine.call('search.count', () =>
    engine.es.search({ index, size: 0, track_total_hits: true, aggs: { by_source: { terms: { field: 'source', size: SOURCE_NAMES.length + 10 } } } }),
  );
  const buckets = (res.aggregations?.by_source as { buckets?: { key: string; doc_count: number }[] } | undefined)?.buckets ?? [];
  return new Map(buckets.map((b) => [b.key, b.doc_count]));
}

/** Lifts the write block a rebuild killed between its block and its swap left on the serving indices. */
export async function unblockWrites(engine: EngineClient, log: Logger, indices: string[]): Promise<void> {
  if (indices.length === 0) return;
  const res = await engine.call('indices.get_settings', () =>
    engine.es.indices.getSettings({ index: indices.join(','), name: 'index.blocks.write', flat_settings: true }),
  );
  const blocked = Object.entries(res).filter(([, v]) => String((v.settings as Record<string, unknown> | undefined)?.['index.blocks.write']) === 'true').map(([k]) => k);
  if (blocked.length === 0) return;
  await engine.call('indices.put_settings', () =>
    engine.es.indices.putSettings({ index: blocked.join(','), settings: { 'index.blocks.write': false } as estypes.IndicesIndexSettings }),
  );
  log.warn({ indices: blocked }, 'write block of an interrupted rebuild lifted');
}

/**
 * Merges the index to one segment. A merge of a large source outlasts any one request (the transport
 * caps each at the client's request timeout, whatever timeout a call asks for: a reindex of 450k
 * documents always failed after 30 s), so it runs as a task, polled until it ends.
 */
export async function forceMerge(engine: EngineClient, index: string): Promise<void> {
  const { task } = await engine.call('indices.forcemerge', () =>
    engine.es.indices.forcemerge({ index, max_num_segments: 1, wait_for_completion: false }),
  );
  if (!task) return; // answered at once: nothing to wait for
  const deadline = Date.now() + FORCE_MERGE_TIMEOUT_MS;
  for (;;) {
    const status = await engine.call('tasks.get', () => engine.es.tasks.get({ task_id: task }));
    if (status.completed) {
      if (status.error) throw new Error(`force merge of ${index} failed: ${status.error.type}: ${status.error.reason ?? ''}`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`force merge of ${index} did not end within ${FORCE_MERGE_TIMEOUT_MS / 60_000} min`);
    await delay(FORCE_MERGE_POLL_MS);
  }
}

/**
 * Deletes replaced indices once the searches already running on them are done (bounded wait), so
 * a query that resolved the alias just before the swap still completes. Readers retry once anyway.
 */
export async function dropOld(engine: EngineClient, log: Logger, indices: string[]): Promise<void> {
  try {
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      const stats = await engine.call('indices.stats', () =>
        engine.es.indices.stats({ index: indices.join(','), metric: 'search' }),
      );
      const s = stats._all?.total?.search;
      if (!s || (s.query_current ?? 0) + (s.fetch_current ?? 0) === 0) break;
      await delay(50);
    }
    await engine.call('indices.delete', () => engine.es.indices.delete({ index: indices.join(',') }));
  } catch (err) {
    // The swap has happened; a leftover index costs disk, not correctness.
    log.warn({ indices, error: describe(err) }, 'could not delete replaced indices');
  }
}
