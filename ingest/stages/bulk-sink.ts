// Stage 4: writes documents to the index in batches with a bounded number in flight. The one retry
// policy of bulk writes (the engines send each item once and report its cause): items the index
// refuses for its state (writes blocked, overload) are retried (only those) with backoff for about
// 20 s, which outlasts the write block of an Elasticsearch rebuild's swap; items refused for what they
// hold are not (a retry changes nothing). What still fails is returned, never dropped
// silently. An engine outage (an exception, not an item failure) propagates, so the run stops before
// checkpointing.
import type { IndexedDocument } from '../../index-mappings/document.js';
import type { BulkResult, SearchProvider } from '../../lib/search/provider.js';

export interface SinkOptions {
  batchSize?: number;
  /** Batches in flight at once. */
  concurrency?: number;
  /** Extra attempts for items refused for the index's state (default 8: 200 ms doubling, at most 5 s apart). */
  retries?: number;
  sleep?: (ms: number) => Promise<void>;
}

export async function sink(search: SearchProvider, docs: IndexedDocument[], opts: SinkOptions = {}): Promise<BulkResult> {
  const batchSize = opts.batchSize ?? 500;
  const concurrency = opts.concurrency ?? 2;
  const retries = opts.retries ?? 8;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const batches: IndexedDocument[][] = [];
  for (let i = 0; i < docs.length; i += batchSize) batches.push(docs.slice(i, i + batchSize));

  const total: BulkResult = { written: 0, failed: [] };
  const writeBatch = async (batch: IndexedDocument[]) => {
    let pending = batch;
    for (let attempt = 0; ; attempt++) {
      const result = await search.upsert(pending);
      total.written += result.written;
      const retry = result.failed.filter((f) => f.cause === 'index');
      total.failed.push(...result.failed.filter((f) => f.cause === 'document'));
      if (retry.length === 0) return;
      if (attempt >= retries) {
        total.failed.push(...retry);
        return;
      }
      const failedIds = new Set(retry.map((f) => f.source_id));
      pending = pending.filter((d) => failedIds.has(d.source_id));
      await sleep(Math.min(5_000, 200 * 2 ** attempt));
    }
  };
  // A small pool: at most `concurrency` batches in flight.
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, batches.length) }, async () => {
      while (next < batches.length) await writeBatch(batches[next++]);
    }),
  );
  return total;
}
