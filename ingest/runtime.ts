// Opens what the pipeline needs from the configuration: embedder, engine, blob store, ingest state and
// the document store. Used by the CLI and by the server (demo load, scheduled ingest).
import { SqliteBlobStore } from '../lib/blob-store.js';
import type { Config } from '../lib/config.js';
import type { Embedder } from '../lib/embedding/embedder.js';
import { createEmbedder } from '../lib/embedding/index.js';
import { serviceEmbedderId } from '../lib/embedding/service-embedder.js';
import { embeddingCacheKey } from './stages/embed.js';
import { chooseEmbedder } from './model-switch.js';
import type { Logger } from '../lib/logger.js';
import { createSearchProvider, type CreateOptions } from '../lib/search/index.js';
import type { SearchProvider } from '../lib/search/provider.js';
import type { PipelineDeps } from './pipeline.js';
import { DocumentStore } from './state/documents.js';
import { IngestState } from './state/store.js';

export interface Runtime extends PipelineDeps {
  close(): Promise<void>;
}

/** Pipeline dependencies over an engine and embedder the caller already has (the server's). */
export function pipelineOn(config: Config, search: SearchProvider, embedder: Embedder, state: IngestState, log: Logger): Runtime {
  const documents = new DocumentStore(DocumentStore.pathIn(config.dataDir));
  const blobs = new SqliteBlobStore(SqliteBlobStore.pathIn(config.dataDir));
  return {
    search,
    embedder,
    state,
    documents,
    log,
    blobs,
    close: async () => {
      documents.close();
      blobs.close();
    },
  };
}

export async function openRuntime(config: Config, log: Logger, opts: CreateOptions = {}): Promise<Runtime> {
  // Warned of when a command embeds: `pdi report` never does, a reindex only for texts without a cached vector.
  const { embedder, upgrade } = await chooseEmbedder(config, log, {
    warnOnEmbed: true,
    serviceDimension: opts.rebuilding ? cachedServiceDimension(config) : null,
  });
  const search = await createSearchProvider(config, embedder, log, opts);
  if (upgrade?.dir && opts.rebuilding) {
    // pdi reindex: the engine opened as its index was built, the rebuild made with the cached model.
    embedder.switchTo(await createEmbedder({ modelDir: upgrade.dir, logger: log }));
  }
  const state = new IngestState(IngestState.pathIn(config.dataDir));
  const runtime = pipelineOn(config, search, embedder, state, log);
  return {
    ...runtime,
    close: async () => {
      await runtime.close();
      await search.close();
      state.close();
    },
  };
}

/**
 * The length of the embedding service's vectors cached in documents.db, or null. `pdi reindex` takes it
 * instead of asking the service: rebuilding from cached vectors (moving to Elasticsearch) needs no
 * service, and only a record without one reaches it.
 */
function cachedServiceDimension(config: Config): number | null {
  if (!config.embedService) return null;
  const documents = new DocumentStore(DocumentStore.pathIn(config.dataDir));
  try {
    return documents.cachedDimension(embeddingCacheKey({ id: serviceEmbedderId(config.embedService) }));
  } finally {
    documents.close();
  }
}
