// Turns text into unit-length vectors. Implementations: the transformers.js sentence model
// (model-embedder.ts) and the offline fallback (hashing-embedder.ts). The index records `id` and
// `dimension`; changing either means a reindex.
export interface Embedder {
  /** e.g. `Xenova/paraphrase-multilingual-MiniLM-L12-v2` or `pdi/hashing-384`. */
  readonly id: string;
  readonly dimension: number;
  /** True for the offline fallback, which is lexical, not semantic; reported in logs and /v1/stats. */
  readonly fallback: boolean;
  /** One unit-length vector per text, in order. */
  embed(texts: string[]): Promise<number[][]>;
}
