// Steps of a rebuild: counts per source, write blocks, the force merge, deleting replaced generations
// (whole indices, or one source's documents of one). Each is one or a few engine calls (lifecycle.ts runs them in order).
import type { estypes } from '@elastic/elasticsearch';
import { SOURCE_NAMES } from '../../../index-mappings/sources.js';
import type { Logger } from '../../logger.js';
import { delay, describe, type EngineClient } from './client.js';
import { PIT_KEEP_ALIVE } from './paging.js';
import type { Query } from './queries.js';

/** A force merge of a large index (450k documents: ~1 min here) outlasts the per-request timeout. */
const TASK_TIMEOUT_MS = 30 * 60_000;
const TASK_POLL_MS = 250;
/** Ids read and deleted per step of deleteMatching. */
const DELETE_PAGE = 5_000;

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
  const blocked = Object.entries(res)
    .filter(([, v]) => String((v.settings as Record<string, unknown> | undefined)?.['index.blocks.write']) === 'true')
    .map(([k]) => k);
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
  const { task } = await engine.call('indices.forcemerge', () => engine.es.indices.forcemerge({ index, max_num_segments: 1, wait_for_completion: false }));
  if (task) await awaitTask(engine, String(task), `force merge of ${index}`);
}

/**
 * Deletes the documents of `index` matching `query` (a replaced or half-written generation): their ids
 * read in a point in time, deleted through bulk. Not _delete_by_query, which lives in the reindex
 * module that the minimal distribution tests run on lacks. Returns how many were deleted.
 */
export async function deleteMatching(engine: EngineClient, index: string, query: Query): Promise<number> {
  // What was written last is seen by the point in time.
  await engine.call('indices.refresh', () => engine.es.indices.refresh({ index }));
  let pit = (await engine.call('open_point_in_time', () => engine.es.openPointInTime({ index, keep_alive: PIT_KEEP_ALIVE }))).id;
  let deleted = 0;
  try {
    let after: estypes.SortResults | undefined;
    for (;;) {
      const res = await engine.call('search', () =>
        engine.es.search({
          query,
          _source: false,
          pit: { id: pit, keep_alive: PIT_KEEP_ALIVE },
          size: DELETE_PAGE,
          sort: ['_shard_doc'],
          search_after: after,
          track_total_hits: false,
          allow_partial_search_results: false,
        }),
      );
      if (res.pit_id) pit = res.pit_id;
      const hits = res.hits.hits;
      if (hits.length === 0) return deleted;
      after = hits[hits.length - 1].sort;
      const out = await engine.call('bulk', () => engine.es.bulk({ operations: hits.map((h) => ({ delete: { _index: index, _id: h._id! } })) }));
      const failed = out.items.filter((i) => i.delete?.error);
      if (failed.length > 0)
        throw new Error(`deleting from ${index}: ${failed.length} failed (${failed[0].delete!.error!.type}: ${failed[0].delete!.error!.reason ?? ''})`);
      deleted += hits.length;
    }
  } finally {
    void engine.es.closePointInTime({ id: pit }, { requestTimeout: 2_000, maxRetries: 0 }).catch(() => undefined);
  }
}

/** Polls a task until it completes (TASK_TIMEOUT_MS at most); throws its error. */
async function awaitTask(engine: EngineClient, task: string, what: string): Promise<void> {
  const deadline = Date.now() + TASK_TIMEOUT_MS;
  for (;;) {
    const status = await engine.call('tasks.get', () => engine.es.tasks.get({ task_id: task }));
    if (status.completed) {
      if (status.error) throw new Error(`${what} failed: ${status.error.type}: ${status.error.reason ?? ''}`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`${what} did not end within ${TASK_TIMEOUT_MS / 60_000} min`);
    await delay(TASK_POLL_MS);
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
      const stats = await engine.call('indices.stats', () => engine.es.indices.stats({ index: indices.join(','), metric: 'search' }));
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
