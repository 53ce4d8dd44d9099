// The layout pdi had before mapping version 6, rebuilt for comparison only: eight single-shard indices,
// one per source, behind one read alias, under the prefix `bench<n>src`. Each index has the mapping and
// settings of the one-index generation serving `bench<n>` (bench/search/reindex.ts loads it) and its
// source's documents from the cached corpus, written by the adapter's bulk writer (the search text and
// metadata record are derived at write time, so a server-side _reindex would lose them). Vectors are left
// out (text search does not read them); each index is merged to one segment as rebuilds do.
// Used by `bench/search/api.ts --layout per-source-bench`.
import { pino } from 'pino';
import { readAlias } from '../../index-mappings/index-names.js';
import { SOURCE_NAMES } from '../../index-mappings/sources.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { EngineClient } from '../../lib/search/elasticsearch/client.js';
import { forceMerge } from '../../lib/search/elasticsearch/generation-ops.js';
import { freshGenerations } from '../../lib/search/elasticsearch/generations.js';
import { bulkWrite } from '../../lib/search/elasticsearch/writes.js';
import { ensureCorpus } from './corpus.js';

export async function loadPerSource(url: string, n: number, seed: number, progress: (msg: string) => void): Promise<string> {
  const prefix = `bench${n}src`;
  const engine = new EngineClient({ url, requestTimeoutMs: 600_000, log: pino({ level: 'warn' }) });
  const es = engine.es;
  const alias = readAlias(prefix);
  if (await es.indices.existsAlias({ name: alias })) {
    const { count } = await es.count({ index: alias });
    if (count === n) return prefix;
  }
  const [template] = Object.keys(await es.indices.getAlias({ name: readAlias(`bench${n}`) }));
  const live = (await es.indices.get({ index: template }))[template];
  const analysis = live.settings!.index!.analysis;
  const store = new DocumentStore(DocumentStore.pathIn(await ensureCorpus(n, seed, progress)));
  try {
    for (const source of SOURCE_NAMES) {
      const index = `${prefix}-docs-${source}`;
      await es.indices.delete({ index, ignore_unavailable: true });
      await es.indices.create({
        index,
        settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: '-1', 'index.max_result_window': live.settings!.index!.max_result_window, analysis } as never,
        mappings: live.mappings,
      });
      for (const batch of store.batches(source, 1000)) {
        const docs = batch.map((r) => ({ ...r.doc, indexed_at: r.indexed_at, content_hash: r.content_hash, original: r.original, embedding: null }));
        const out = await bulkWrite(engine, docs, index, false, freshGenerations('bench'));
        if (out.failed.length > 0) throw new Error(`${index}: ${out.failed[0].error}`);
      }
      await es.indices.putSettings({ index, settings: { refresh_interval: null } as never });
      await forceMerge(engine, index);
      progress(`${index}: loaded`);
    }
    await es.indices.updateAliases({ actions: SOURCE_NAMES.map((source) => ({ add: { index: `${prefix}-docs-${source}`, alias } })) });
    await es.indices.refresh({ index: alias });
  } finally {
    store.close();
    await es.close();
  }
  return prefix;
}
