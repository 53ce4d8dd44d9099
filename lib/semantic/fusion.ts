// Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): each ranked list gives a document
// 1 / (k + rank); the sums order the fused list. Ranks only, so scores of different kinds (BM25, cosine)
// need no calibration, and it runs in the API on either engine and any Elasticsearch licence.

/** The constant of the paper: it damps the weight of the very first ranks. */
export const RRF_K = 60;

export interface Fused<T> {
  item: T;
  /** The RRF sum. */
  score: number;
  /** The score over the best a document can have (first in every list): 0..1. */
  relevance: number;
}

/**
 * Fuses ranked lists of items identified by `keyOf`, list i weighing `weights[i]` (default 1 each). An
 * item found in several lists keeps its first occurrence. Ties (equal sums) keep the order of first
 * appearance, lists read in turn rank by rank.
 */
export function reciprocalRankFusion<T>(lists: T[][], keyOf: (item: T) => string, weights: number[] = lists.map(() => 1), k = RRF_K): Fused<T>[] {
  const fused = new Map<string, { item: T; score: number; seen: number }>();
  let seen = 0;
  const depth = Math.max(0, ...lists.map((l) => l.length));
  for (let rank = 0; rank < depth; rank++) {
    for (const [i, list] of lists.entries()) {
      if (rank >= list.length) continue;
      const key = keyOf(list[rank]);
      const contribution = weights[i] / (k + rank + 1);
      const entry = fused.get(key);
      if (entry) entry.score += contribution;
      else fused.set(key, { item: list[rank], score: contribution, seen: seen++ });
    }
  }
  const best = weights.reduce((sum, w) => sum + w, 0) / (k + 1);
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.seen - b.seen)
    .map(({ item, score }) => ({ item, score, relevance: best > 0 ? Math.min(1, score / best) : 0 }));
}
