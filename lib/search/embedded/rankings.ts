// Rankings kept between pages of one query while the index is unchanged: FTS5 scores every match
// whatever the offset (1.3–2 s a page for a common term at 1M documents), so a page is ranked deeper
// than asked (rankingDepth) and the next pages are slices. Pure bookkeeping; the provider ranks.

/** A ranking: the first `depth` candidates of one query over one set of serving tables, in page order. */
export interface Ranking {
  /** Index, in the key's list of table sets, of each candidate's set. */
  readonly set: Uint8Array;
  readonly rid: BigInt64Array;
  readonly score: Float64Array;
  /** Matches in all: the ranking is complete when it holds them all. */
  readonly total: number;
}

export interface RankingCacheOptions {
  /** Candidates kept at most over all rankings (each costs 17 bytes). */
  maxEntries: number;
  /** Rankings kept at most; the least recently used goes first. */
  maxRankings: number;
  /** A ranking unused this long is dropped. */
  idleMs: number;
}

export const RANKING_CACHE: RankingCacheOptions = { maxEntries: 2_000_000, maxRankings: 32, idleMs: 60_000 };

interface Kept {
  ranking: Ranking;
  /** The index version the ranking was computed at; any write since makes it stale. */
  version: string;
  usedAt: number;
}

/** Candidates ranked beyond the page at most: each costs memory while the ranking is merged. */
const MAX_LOOKAHEAD = 100_000;

/**
 * How deep to rank for the page ending at `k`: at least ten pages on, and twice as deep up to
 * MAX_LOOKAHEAD more, so paging on costs a ranking per doubling of the offset, then one per 100,000
 * candidates (about 15 rankings to page through a million results).
 */
export function rankingDepth(k: number, limit: number): number {
  return k + Math.max(10 * limit, Math.min(k, MAX_LOOKAHEAD));
}

export class RankingCache {
  private readonly kept = new Map<string, Kept>();
  private entries = 0;

  constructor(
    private readonly opts: RankingCacheOptions = RANKING_CACHE,
    private readonly now: () => number = Date.now,
  ) {}

  /** The ranking of `key` at `version` that reaches position `k` (or holds every match). */
  get(key: string, version: string, k: number): Ranking | undefined {
    this.sweep();
    const kept = this.kept.get(key);
    if (!kept) return undefined;
    if (kept.version !== version) {
      this.drop(key, kept);
      return undefined;
    }
    const { ranking } = kept;
    if (ranking.rid.length < Math.min(k, ranking.total)) return undefined;
    // Map order is recency.
    this.kept.delete(key);
    kept.usedAt = this.now();
    this.kept.set(key, kept);
    return ranking;
  }

  /** Keeps `ranking` under `key` (replacing what was there), unless it alone is over the budget. */
  set(key: string, version: string, ranking: Ranking): void {
    const old = this.kept.get(key);
    if (old) this.drop(key, old);
    const size = ranking.rid.length;
    if (size > this.opts.maxEntries) return;
    this.kept.set(key, { ranking, version, usedAt: this.now() });
    this.entries += size;
    for (const [oldest, kept] of this.kept) {
      if (this.entries <= this.opts.maxEntries && this.kept.size <= this.opts.maxRankings) break;
      this.drop(oldest, kept);
    }
  }

  /** Candidates held in all (for tests and debugging). */
  get size(): number {
    return this.entries;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, kept] of this.kept) {
      if (now - kept.usedAt >= this.opts.idleMs) this.drop(key, kept);
    }
  }

  private drop(key: string, kept: Kept): void {
    this.kept.delete(key);
    this.entries -= kept.ranking.rid.length;
  }
}
