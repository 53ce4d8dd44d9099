// nDCG@k and recall@k of a ranking against binary judgments.

/** nDCG@k with binary gains: DCG of the ranking over DCG of an ideal one (all relevant first). */
export function ndcgAt(k: number, ranking: string[], relevant: Set<string>): number {
  let dcg = 0;
  ranking.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal > 0 ? dcg / ideal : 0;
}

/**
 * recall@k: the relevant documents in the first k over those that fit in k (min(k, |relevant|)), so a
 * query with 60 relevant documents can reach 1 too, as nDCG@k can.
 */
export function recallAt(k: number, ranking: string[], relevant: Set<string>): number {
  const found = ranking.slice(0, k).filter((id) => relevant.has(id)).length;
  const possible = Math.min(k, relevant.size);
  return possible > 0 ? found / possible : 0;
}
