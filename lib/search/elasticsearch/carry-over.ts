// A rebuild of every source's copies between physical indices: documents read back from `_source` in a
// point in time and written anew through bulk (lifecycle.ts: the other sources carried over after a
// mapping change, and the catch-up of what ingests wrote to the serving index meanwhile).
import type { estypes } from '@elastic/elasticsearch';
import type { IndexedDocument } from '../../../index-mappings/document.js';
import type { EngineClient } from './client.js';
import { docId, type Generations } from './generations.js';
import { PIT_KEEP_ALIVE } from './paging.js';
import { HIT_SOURCE, VECTORS_IN_SOURCE, type Query } from './queries.js';
import { bulkWrite, type BulkOutcome } from './writes.js';

/** Documents read per step when a rebuild carries sources over from the serving generation. */
const CARRY_PAGE = 1_000;

/** Writes one batch of a rebuild; any document refused fails the rebuild. */
export async function loadInto(engine: EngineClient, index: string, gens: Generations, batch: IndexedDocument[], what: string): Promise<BulkOutcome> {
  const out = await bulkWrite(engine, batch, index, false, gens);
  if (out.failed.length > 0) {
    const first = out.failed[0];
    throw new Error(`rebuild of ${what}: ${out.failed.length} documents failed (${first.source_id}: ${first.error})`);
  }
  return out;
}

/**
 * Copies the documents of `from` matching `query` into `index`, read back from `_source` in a point
 * in time (whole documents, vector included) and written through bulk, which derives the search text
 * and metadata record again (neither is in `_source`). `onlyChanged` (the catch-up): a document
 * `index` already holds with the same content hash is left as loaded, with its vector of this
 * build's model.
 */
export async function copyInto(
  engine: EngineClient,
  from: string[],
  index: string,
  gens: Generations,
  query: Query,
  keepVectors: boolean,
  add: (out: BulkOutcome) => void,
  onlyChanged = false,
): Promise<void> {
  let pit = (await engine.call('open_point_in_time', () => engine.es.openPointInTime({ index: from.join(','), keep_alive: PIT_KEEP_ALIVE }))).id;
  try {
    let after: estypes.SortResults | undefined;
    for (;;) {
      const res = await engine.call('search', () =>
        engine.es.search<IndexedDocument>({
          query,
          _source: keepVectors ? VECTORS_IN_SOURCE : HIT_SOURCE,
          pit: { id: pit, keep_alive: PIT_KEEP_ALIVE },
          size: CARRY_PAGE,
          sort: ['_shard_doc'],
          search_after: after,
          track_total_hits: false,
          allow_partial_search_results: false,
        }),
      );
      if (res.pit_id) pit = res.pit_id;
      const hits = res.hits.hits;
      if (hits.length === 0) return;
      after = hits[hits.length - 1].sort;
      let docs = hits.map((h) => (keepVectors ? h._source! : { ...h._source!, embedding: null }));
      if (onlyChanged) docs = await changedIn(engine, index, gens, docs);
      if (docs.length > 0) add(await loadInto(engine, index, gens, docs, 'the carried-over sources'));
    }
  } finally {
    void engine.es.closePointInTime({ id: pit }, { requestTimeout: 2_000, maxRetries: 0 }).catch(() => undefined);
  }
}

/** Those of `docs` that `index` lacks or holds with another content hash. */
async function changedIn(engine: EngineClient, index: string, gens: Generations, docs: IndexedDocument[]): Promise<IndexedDocument[]> {
  const res = await engine.call('mget', () =>
    engine.es.mget<Pick<IndexedDocument, 'content_hash'>>({
      index,
      ids: docs.map((d) => docId(d.source_id, gens.get(d.source)!)),
      _source_includes: ['content_hash'],
    }),
  );
  const held = new Map<string, string | undefined>();
  for (const d of res.docs) if ('found' in d && d.found) held.set(d._id, d._source?.content_hash);
  return docs.filter((d) => {
    const id = docId(d.source_id, gens.get(d.source)!);
    return !held.has(id) || held.get(id) !== d.content_hash;
  });
}
