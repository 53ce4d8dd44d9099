// Latency percentiles for the benchmarks that time calls themselves (wrk's own: bench/wrk.ts).

/** The p-th percentile (nearest rank) of `sorted` (ascending); NaN when it is empty. */
export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
