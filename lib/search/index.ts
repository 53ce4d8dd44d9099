// Picks the engine: Elasticsearch when ELASTICSEARCH_URL is set, else the embedded one under
// PDI_DATA_DIR. The embedder's model id and dimension go into the index metadata.
import path from 'node:path';
import type { Config } from '../config.js';
import type { Embedder } from '../embedding/embedder.js';
import { EngineUnavailableError } from '../errors.js';
import type { Logger } from '../logger.js';
import { EmbeddedIndexDamagedError, EmbeddedProvider } from './embedded.js';
import { ElasticsearchProvider } from './elasticsearch.js';
import type { SearchProvider } from './provider.js';

export function embeddedIndexPath(dataDir: string): string {
  return path.join(dataDir, 'index.db');
}

export interface CreateOptions {
  /**
   * Return the provider even when the embedded index is damaged (its calls then fail as unavailable):
   * `pdi status` still shows what the stores hold. The server and the other commands refuse to start.
   */
  tolerateDamage?: boolean;
  /** documents.db, whose entities the embedded engine's reader threads also resolve (EmbeddedOptions.entities). */
  entities?: string;
}

export async function createSearchProvider(config: Config, embedder: Embedder, logger: Logger, opts: CreateOptions = {}): Promise<SearchProvider> {
  const provider: SearchProvider = config.elasticsearchUrl
    ? new ElasticsearchProvider({
      url: config.elasticsearchUrl,
      prefix: config.indexPrefix,
      dimension: embedder.dimension,
      embeddingModel: embedder.id,
      layout: { shards: config.esShards, replicas: config.esReplicas },
      logger,
    })
    : new EmbeddedProvider({
      file: embeddedIndexPath(config.dataDir),
      dimension: embedder.dimension,
      embeddingModel: embedder.id,
      readers: config.embeddedReaders,
      entities: opts.entities,
      logger,
    });
  try {
    await provider.init();
  } catch (err) {
    if (opts.tolerateDamage && err instanceof EmbeddedIndexDamagedError) {
      logger.error(err.message);
      return provider;
    }
    // An engine that is down at start must not keep the API down: index routes answer 503 until it
    // returns, and the Elasticsearch adapter creates missing indices on its first write.
    if (!(err instanceof EngineUnavailableError)) throw err;
    logger.warn('search engine unavailable at start; index routes answer 503 until it is reachable');
  }
  return provider;
}
