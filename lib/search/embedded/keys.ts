// Row ids that encode the tie-break order.
//
// Search ties (equal BM25) and listings are ordered by published_at desc, then source_id asc. Rather
// than join the documents table for every match (a B-tree lookup per match, ~1 µs: 1 s for a common
// term at 1M documents), the row id itself sorts in that order, so FTS5 can rank with
// `ORDER BY bm25(...), rowid` without leaving its own index:
//
//   rowid = block << SEQ_BITS | seq,  block = 2^34 - 1 - (publish second + 2^33)
//
// A later second has a smaller block. Within a block (the documents of one source published in the same
// second), seq follows source_id order; it is chosen in the gap between the neighbours by source_id
// (table-set.ts), and a block whose gap is used up is renumbered. 34 bits of seconds cover years
// 1698–2242; 29 bits of seq leave room for ~2^28 sorted appends or ~29 nested bisections in a block.
// Ids reach 2^63 - 1, so they are BigInt in JS.

export const SEQ_BITS = 29n;
export const SEQ_SPACE = 1 << 29;
const HALF_RANGE = 2 ** 33;

/** The block of a publish time (seconds since the epoch, clamped to the representable range). */
export function blockOfSeconds(seconds: number): number {
  const s = Math.min(Math.max(Math.floor(seconds), -HALF_RANGE), HALF_RANGE - 1);
  return 2 * HALF_RANGE - 1 - (s + HALF_RANGE);
}

/** Seconds since the epoch of an ISO 8601 timestamp, or null when it does not parse. */
export function isoSeconds(iso: string): number | null {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

export function makeRowid(block: number, seq: number): bigint {
  return (BigInt(block) << SEQ_BITS) | BigInt(seq);
}

export function blockOf(rowid: bigint): number {
  return Number(rowid >> SEQ_BITS);
}

export function seqOf(rowid: bigint): number {
  return Number(rowid & ((1n << SEQ_BITS) - 1n));
}

/** Sequential appends advance by this much, so sorted arrivals rarely need a bisection. */
const APPEND_STEP = 1 << 14;

/**
 * A seq strictly between `lo` and `hi` (exclusive bounds; -1 and SEQ_SPACE when there is no
 * neighbour), or null when there is no room and the block must be renumbered.
 */
export function seqBetween(lo: number, hi: number): number | null {
  if (hi - lo < 2) return null;
  if (lo < 0 && hi >= SEQ_SPACE) return SEQ_SPACE / 2;
  if (hi >= SEQ_SPACE) return lo + Math.min(APPEND_STEP, Math.floor((hi - lo) / 2));
  if (lo < 0) return hi - Math.min(APPEND_STEP, Math.floor((hi - lo) / 2));
  return lo + Math.floor((hi - lo) / 2);
}

/** Seqs for `n` documents of a renumbered block: spread over the lower half, the upper half stays free
 * for appends (sorted arrival is the common case). */
export function renumberedSeqs(n: number): number[] {
  const step = Math.floor(SEQ_SPACE / 2 / (n + 1));
  if (step < 1) throw new Error(`more than ${SEQ_SPACE / 2} documents published in the same second`);
  return Array.from({ length: n }, (_, i) => (i + 1) * step);
}
