// Picks the engine: Elasticsearch when ELASTICSEARCH_URL is set, else the embedded one under
// PDI_DATA_DIR. The embedder's model id and dimension go into the index metadata.
import path from 'node:path';
import type { Config } from '../config.js';
import type { Embedder } from '../embedding/embedder.js';
import { EngineUnavailableError } from '../errors.js';
import type { Logger } from '../logger.js';
import { EmbeddedIndexDamagedError, EmbeddedProvider } from './embedded.js';
import { ElasticsearchProvider } from './elasticsearch.js';
import type { EmbeddingIdentity, SearchProvider } from './provider.js';

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
  /**
   * Start even when the serving Elasticsearch index holds vectors of another length: `pdi reindex`,
   * which builds the index of this embedder's length, is how that is repaired.
   */
  rebuilding?: boolean;
}

/** The embedder's vectors are not of the length the index holds: nothing may be written or searched. */
export class EmbeddingDimensionError extends Error {
  constructor(embedder: Embedder, indexed: number, where: string) {
    super(
      `${embedder.id}${embedder.endpoint ? ` (from ${embedder.endpoint})` : ''} gives vectors of ${embedder.dimension} dimensions, ` +
        `but ${where} holds vectors of ${indexed}: configure the embedder the index was built with, or run pdi reindex to rebuild it for this one`,
    );
    this.name = 'EmbeddingDimensionError';
  }
}

function openProvider(
  config: Config,
  embedder: Pick<Embedder, 'id' | 'dimension'>,
  logger: Logger,
  opts: CreateOptions & { readers?: number },
): SearchProvider {
  return config.elasticsearchUrl
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
        readers: opts.readers ?? config.embeddedReaders,
        entities: opts.entities,
        logger,
      });
}

/** The embedder the configured engine's index records (SearchProvider.recordedEmbedding), before it is opened. */
export async function recordedEmbedding(config: Config, logger: Logger): Promise<EmbeddingIdentity | null> {
  // Any identity: only the file or the alias is read.
  const provider = openProvider(config, { id: 'probe', dimension: 384 }, logger, { readers: 0 });
  try {
    return await provider.recordedEmbedding();
  } finally {
    await provider.close();
  }
}

export async function createSearchProvider(config: Config, embedder: Embedder, logger: Logger, opts: CreateOptions = {}): Promise<SearchProvider> {
  const provider = openProvider(config, embedder, logger, opts);
  try {
    await provider.init();
    // The embedded engine refuses another model or length itself (EmbeddedIndexMismatchError); an
    // Elasticsearch index of another length would refuse every write and every vector search.
    if (provider instanceof ElasticsearchProvider && !opts.rebuilding) {
      const other = (await provider.indexedDimensions()).find((d) => d !== embedder.dimension);
      if (other !== undefined) throw new EmbeddingDimensionError(embedder, other, `the Elasticsearch index ${config.indexPrefix}`);
    }
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
