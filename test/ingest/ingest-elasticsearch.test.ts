// The ingest pipeline against a real Elasticsearch whose index refuses writes for its own state (a write
// block, the flood-stage disk block): documents that are fine must not be written off as rejected.
import path from 'node:path';
import t, { type Test } from 'tap';
import { readAlias } from '../../index-mappings/index-names.js';
import { DEMO_DIR } from '../../ingest/demo.js';
import { ingestSource } from '../../ingest/pipeline.js';
import { reindex } from '../../ingest/reindex.js';
import { MAPPING_VERSION } from '../../index-mappings/version.js';
import { pipelineOn } from '../../ingest/runtime.js';
import { SOURCE_MODULES } from '../../ingest/sources/index.js';
import { loadConfig } from '../../lib/config.js';
import { HashingEmbedder } from '../../lib/embedding/hashing-embedder.js';
import { createLogger } from '../../lib/logger.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { startTestApp } from '../helpers/app.js';
import { aliasTargets, deleteIndices, elasticsearchUrl, es, olderIndex, randomPrefix } from '../helpers/elasticsearch.js';

t.setTimeout(300_000);

/**
 * An app and an ingest pipeline on Elasticsearch, under a fresh prefix; `before` runs before the
 * provider first looks at the prefix. `ingest` replays the demo corpus of kimdis.
 */
async function kimdisOnElasticsearch(t: Test, before?: (url: string, prefix: string, embedder: HashingEmbedder) => Promise<unknown>) {
  const url = await elasticsearchUrl(t);
  const prefix = randomPrefix();
  const embedder = new HashingEmbedder();
  await before?.(url, prefix, embedder);
  const search = new ElasticsearchProvider({ url, prefix, dimension: embedder.dimension, embeddingModel: embedder.id });
  t.teardown(async () => {
    await search.close();
    await deleteIndices(url, prefix);
  });
  const app = await startTestApp(t, { search });
  const deps = pipelineOn(loadConfig({ PDI_DATA_DIR: app.dataDir, LOG_LEVEL: 'silent' }), app.search, app.embedder, app.ingestState, createLogger('silent'));
  t.teardown(() => deps.close());
  const ingest = () => ingestSource(deps, SOURCE_MODULES.kimdis, { fromDir: path.join(DEMO_DIR, 'kimdis') });
  return { url, prefix, search, deps, ingest };
}

t.test(
  'when the index refuses writes, then the run fails before its checkpoint, nothing is counted as rejected, and the next run writes every document',
  async (t) => {
    const { url, prefix, search, deps, ingest } = await kimdisOnElasticsearch(t);
    const [index] = await aliasTargets(url, readAlias(prefix));
    const block = async (on: boolean) => {
      const r = await es(url, 'PUT', `/${index}/_settings`, { 'index.blocks.write': on ? true : null });
      if (r.status !== 200) throw new Error(`block ${on}: ${r.status} ${JSON.stringify(r.body)}`);
    };

    await block(true);
    const refused = await ingest();
    await block(false);
    t.equal(refused.status, 'failed');
    t.match(
      refused.error,
      /^the index refused \d+ of \d+ documents of this page \(cluster_block_exception: .*\); stopped before its checkpoint, so the next run sends them again$/,
    );
    t.equal(refused.failed, 0, 'not counted as failed records');
    t.equal(deps.documents.rejectedCount('kimdis'), 0, 'nor kept as rejected');
    t.equal(deps.documents.count('kimdis'), 0, 'nor recorded as stored: the next run sends them');

    const again = await ingest();
    t.equal(again.status, 'succeeded', String(again.error));
    t.ok(again.new > 0);
    t.equal(deps.documents.count('kimdis'), again.new);
    t.equal((await search.stats()).sources.kimdis?.documents, again.new, 'every document is in the index');
  },
);

t.test(
  "when a source's index was made by an older build, then an ingest fails before writing, naming pdi reindex, and after the reindex it writes every document",
  async (t) => {
    // An upgrade from mapping version 1 lost every document ingested before the reindex: each was refused
    // by the strict mapping (a field it lacks), counted as rejected, and the checkpoint moved past it.
    const { search, deps, ingest } = await kimdisOnElasticsearch(t, (url, prefix, embedder) =>
      olderIndex(url, prefix, 'kimdis', MAPPING_VERSION - 1, embedder.dimension, embedder.id),
    );

    const refused = await ingest();
    t.equal(refused.status, 'failed');
    t.match(refused.error, new RegExp(`built for mapping version ${MAPPING_VERSION - 1}.*run pdi reindex`));
    t.equal(deps.documents.rejectedCount('kimdis'), 0, 'nothing kept as rejected');
    t.equal(deps.documents.count('kimdis'), 0, 'nor recorded as stored: the next run sends them');

    await reindex(deps, 'kimdis');
    const again = await ingest();
    t.equal(again.status, 'succeeded', String(again.error));
    t.ok(again.new > 0);
    t.equal((await search.stats()).sources.kimdis?.documents, again.new, 'every document is in the index');
  },
);
