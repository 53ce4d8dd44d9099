// Picks the engine: Elasticsearch when ELASTICSEARCH_URL is set, else the embedded one under
// PDI_DATA_DIR. The embedder's model id and dimension go into the index metadata.
import path from 'node:path';
import { type Config, withoutPassword } from '../config.js';
import type { Embedder } from '../embedding/embedder.js';
import { EngineUnavailableError } from '../errors.js';
import type { Logger } from '../logger.js';
import { EmbeddedProvider } from './embedded.js';
import { ElasticsearchProvider } from './elasticsearch.js';
import type { EmbeddingIdentity, IndexStats, SearchProvider } from './provider.js';

export function embeddedIndexPath(dataDir: string): string {
  return path.join(dataDir, 'index.db');
}

export interface CreateOptions {
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

/**
 * What the configured engine's index holds, read with the embedder its index records (none is needed),
 * no reader threads and no init: nothing is created, repaired or checked (`pdi status`). Throws as the
 * engine's reads do: a damaged embedded index as unavailable, saying why.
 */
export async function readIndexStats(config: Config, logger: Logger, signal: AbortSignal): Promise<IndexStats> {
  const recorded = config.elasticsearchUrl ? undefined : await recordedEmbedding(config, logger).catch(() => undefined);
  // An embedded index that records no embedder holds no document; one that cannot be read is opened to say why.
  if (recorded === null) return { total_documents: 0, sources: {} };
  const provider = openProvider(config, { id: recorded?.model ?? 'unknown', dimension: recorded?.dimension ?? 384 }, logger, { readers: 0 });
  try {
    return await provider.stats({ signal });
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
    // An engine that is down at start must not keep the API down: index routes answer 503 until it
    // returns, and the Elasticsearch adapter creates missing indices on its first write.
    if (!(err instanceof EngineUnavailableError)) throw err;
    const es = config.elasticsearchUrl && withoutPassword(config.elasticsearchUrl);
    logger.warn(
      { why: err.why },
      es
        ? `Elasticsearch at ${es} did not answer at start: index routes answer 503 until it does; check that it runs there, that ELASTICSEARCH_URL names it and that this machine reaches it`
        : `the embedded index ${embeddedIndexPath(config.dataDir)} could not be opened at start: index routes answer 503 until it can`,
    );
  }
  return provider;
}
