// How ask fuses its two rankings (docs/api.md "How ask ranks"; the variants measured on the relevance set
// are in docs/benchmarks-history.md "Fusion of ask's two rankings"). Each ranking's scores are put on its
// own 0..1 scale (min-max over the hits it returned: BM25 and cosine need no common calibration) and summed
// with a weight per ranking (CombSUM, Fox and Shaw 1994). Scores, not ranks: reciprocal rank fusion gave a
// ranking's first hit the same share whatever its lead, so the full-text hit that alone held a question's
// ΑΦΜ or name sank below fifty documents the model found on the topic. Runs in the API, the same on both
// engines.

export interface Fused<T> {
  item: T;
  /** The weighted sum of the normalised scores. */
  score: number;
  /** The score over the best a document can have (best in every ranking): 0..1. */
  relevance: number;
}

export interface Ranking<T> {
  /** Best first. */
  hits: T[];
  weight: number;
}

/**
 * Fuses rankings of items identified by `keyOf`, scored by `scoreOf` (higher is better). In a ranking, the
 * best hit scores 1 and the last 0 (1 each when all score alike); a document missing from a ranking gets
 * 0 from it. Ties keep the order of first appearance, rankings read in turn rank by rank.
 */
export function scoreFusion<T>(rankings: Ranking<T>[], keyOf: (item: T) => string, scoreOf: (item: T) => number): Fused<T>[] {
  const fused = new Map<string, { item: T; score: number; seen: number }>();
  let seen = 0;
  const depth = Math.max(0, ...rankings.map((r) => r.hits.length));
  for (let rank = 0; rank < depth; rank++) {
    for (const { hits, weight } of rankings) {
      if (rank >= hits.length) continue;
      const top = scoreOf(hits[0]);
      const low = scoreOf(hits[hits.length - 1]);
      const contribution = weight * (top > low ? (scoreOf(hits[rank]) - low) / (top - low) : 1);
      const key = keyOf(hits[rank]);
      const entry = fused.get(key);
      if (entry) entry.score += contribution;
      else fused.set(key, { item: hits[rank], score: contribution, seen: seen++ });
    }
  }
  const best = rankings.reduce((sum, r) => sum + r.weight, 0);
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.seen - b.seen)
    .map(({ item, score }) => ({ item, score, relevance: best > 0 ? Math.min(1, score / best) : 0 }));
}

/**
 * `fused` with the item keyed `key` moved up to place `within` (1-based) when it is further down: the one
 * document a ranking is surest of stays in sight however the other ranks it. Its score is its own.
 */
export function keepWithin<T>(fused: Fused<T>[], keyOf: (item: T) => string, key: string | undefined, within: number): Fused<T>[] {
  if (key === undefined || within < 1) return fused;
  const at = fused.findIndex((f) => keyOf(f.item) === key);
  if (at < within) return fused; // in place already, or in no ranking (at -1)
  const rest = fused.filter((_, i) => i !== at);
  return [...rest.slice(0, within - 1), fused[at], ...rest.slice(within - 1)];
}
