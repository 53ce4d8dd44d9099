// The vectors of questions already asked: a question repeated (a client retrying, a dashboard polling,
// many users asking the same) reuses its vector instead of running the model again. A least-recently-used
// map on the exact text, keyed by the embedder's id and the kind too, so a vector of one model (or one
// query prefix) is never served for another. The query side embeds here on the main thread; the engine
// (and the embedded engine's reader threads) receive the vector, so both engines share this one cache.
import type { EmbedKind, Embedder } from './embedder.js';

/** Questions kept at most. */
export const QUERY_VECTOR_ENTRIES = 2_000;

/** Bytes kept at most (estimated: 8 per dimension, 2 per character of the text, 100 per entry): 16 MiB. */
export const QUERY_VECTOR_BYTES = 16 * 1024 * 1024;

export interface QueryVectorBounds {
  entries?: number;
  bytes?: number;
}

interface Entry {
  vector: Promise<number[]>;
  bytes: number;
}

export class QueryVectors {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;

  constructor(bounds: QueryVectorBounds = {}) {
    this.maxEntries = bounds.entries ?? QUERY_VECTOR_ENTRIES;
    this.maxBytes = bounds.bytes ?? QUERY_VECTOR_BYTES;
  }

  /** How many questions are kept. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The vector of `text` by `embedder`: the kept one, or embedded now (once for concurrent callers; a
   * failure is not kept). A copy each time: callers may reuse or change the array they get.
   */
  async vector(embedder: Embedder, text: string, kind: EmbedKind = 'query'): Promise<number[]> {
    const [vector] = await this.vectors(embedder, [text], kind);
    return vector!;
  }

  /**
   * The vectors of `texts`, each as vector() gives it; those not kept are embedded in one call (a batch
   * of two costs the model less than two calls: ask's question and its Greek rendering).
   */
  async vectors(embedder: Embedder, texts: string[], kind: EmbedKind = 'query'): Promise<number[][]> {
    const keys = texts.map((text) => `${embedder.id}\u0000${kind}\u0000${text}`);
    const missing = texts.filter((_, i) => !this.entries.has(keys[i]!));
    const embedded = missing.length > 0 ? embedder.embed(missing, kind) : null;
    const entries = keys.map((key, i) => {
      let entry = this.entries.get(key);
      if (entry) {
        this.entries.delete(key); // re-inserted below: Map order is the recency order
      } else {
        const vector = embedded!.then((vs) => vs[missing.indexOf(texts[i]!)]!);
        entry = { vector, bytes: 100 + 2 * key.length + 8 * embedder.dimension };
        this.bytes += entry.bytes;
        const kept = entry;
        vector.catch(() => {
          if (this.entries.get(key) === kept) this.drop(key);
        });
      }
      this.entries.set(key, entry);
      return entry;
    });
    this.evict();
    return Promise.all(entries.map(async (e) => (await e.vector).slice()));
  }

  private evict(): void {
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) return;
      this.drop(key);
    }
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
