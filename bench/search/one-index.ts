// Issue 3's option "one index for all sources", as an experiment: the whole generated corpus in ONE
// Elasticsearch index behind the read alias, written by the adapter itself (so the mapping, the
// searched field and the stored record are production's). The corpus is rebuilt as if it all were
// diavgeia's (`source` relabelled; the records keep their size). Since mapping version 6 the adapter
// keeps every source in one index anyway. Used by `bench/search/api.ts --layout one-index`; results in docs/benchmarks.md.
import { Client } from '@elastic/elasticsearch';
import type { IndexedDocument } from '../../index-mappings/document.js';
import { readAlias } from '../../index-mappings/index-names.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import type { Generator } from './generate.js';

const HOLDER = 'diavgeia';

async function* relabelled(batches: AsyncIterable<IndexedDocument[]>): AsyncGenerator<IndexedDocument[]> {
  for await (const batch of batches) yield batch.map((d) => ({ ...d, source: HOLDER }));
}

export async function loadOneIndex(
  provider: SearchProvider, url: string, prefix: string, gen: Generator, progress: (msg: string) => void,
): Promise<void> {
  const client = new Client({ node: url, requestTimeout: 600_000 });
  try {
    const read = readAlias(prefix);
    if ((await provider.stats()).total_documents !== gen.n) {
      progress(`loading ${gen.n} documents into one index`);
      const started = performance.now();
      await provider.rebuild(HOLDER, relabelled(gen.batches(0, gen.n, 2000)));
      progress(`one index: ${gen.n} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
    const behind = Object.keys(await client.indices.getAlias({ name: read }));
    progress(`read alias ${read}: ${behind.length} index`);
  } finally {
    await client.close();
  }
}
