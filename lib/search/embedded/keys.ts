// Row ids that sort as the tie-break order (published_at desc, source_id asc), so FTS5 ranks with
// `ORDER BY bm25(...), rowid` without a lookup per match: rowid = block << SEQ_BITS | seq, block =
// 2^34 - 1 - (publish second + 2^33) (years 1698–2242), seq in source_id order within a block,
// renumbered when its gap is used up. BigInt in JS (up to 2^63 - 1). docs/search-engines.md "Ranking and order".

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

/** Row ids from `from` (inclusive) to `to` (exclusive): the documents of a published_at window. */
export interface RidWindow {
  from: bigint;
  to: bigint;
}

const MIN_ROWID = -(1n << 63n);
const MAX_ROWID = (1n << 63n) - 1n;

/**
 * The row ids of documents published after `afterMs` and before `beforeMs` (published-window.ts). Later
 * seconds have smaller blocks, so `after` bounds the ids from above and `before` from below.
 */
export function ridWindow(afterMs: number | null, beforeMs: number | null): RidWindow {
  return {
    from: beforeMs === null ? MIN_ROWID : makeRowid(blockOfSeconds(Math.ceil(beforeMs / 1000) - 1), 0),
    to: afterMs === null ? MAX_ROWID : makeRowid(blockOfSeconds(Math.floor(afterMs / 1000)), 0),
  };
}
