// Deep pages on Elasticsearch resume where the previous page of the same query ended.
//
// A page past the 10,000-hit window is walked with search_after inside a point in time (PIT), and each
// step of the walk scores every match: at 1M documents, the common term's page at offset 100,000 took
// 8 s and at 500,000 31 s, so a client paging through a large result set, as the contract tells it to
// (offset + limit until total), paid for every earlier page again. This keeps, per query, the PIT and
// the positions reached in it (the sort values of the hit at each), for a while: the next page starts
// from the nearest position instead of from an end. Pure bookkeeping; the requests are the adapter's.

/** Sort values of a hit, as search_after takes them. */
export type SortValues = unknown[];

/** One query's point in time and the positions reached in it, from either end. */
export interface Walk {
  pitId: string;
  /** Matches in the point in time: every page of the walk reports this total. */
  readonly total: number;
  /** For each end (0: from the start in sort order, 1: from the end, sort reversed), hits skipped → the sort values of the last of them. */
  readonly marks: [Map<number, SortValues>, Map<number, SortValues>];
  readonly openedAt: number;
  usedAt: number;
}

export function newWalk(pitId: string, total: number, now = Date.now()): Walk {
  return { pitId, total, marks: [new Map(), new Map()], openedAt: now, usedAt: now };
}

/** How to reach a page from a walk: from which end, from which mark, how many hits to skip, how many to read. */
export interface WalkPlan {
  forward: boolean;
  /** Hits already behind `after` (0 and no `after`: from the end itself). */
  from: number;
  after?: SortValues;
  skip: number;
  take: number;
}

/** Marks kept per end; the oldest go first. A walk of 1M hits in steps of 10,000 leaves at most 100. */
const MARKS_PER_END = 128;

/**
 * The cheapest way to the page [offset, offset + limit): from whichever end has a mark closest before
 * it, so that sequential pages cost one step each. Null when the page starts at or past the total.
 */
export function planWalk(walk: Pick<Walk, 'total' | 'marks'>, offset: number, limit: number): WalkPlan | null {
  if (offset >= walk.total) return null;
  const end = Math.min(offset + limit, walk.total);
  const take = end - offset;
  const ahead = nearest(walk.marks[0], offset);
  const behind = nearest(walk.marks[1], walk.total - end);
  const forwardSkip = offset - ahead.from;
  const backwardSkip = walk.total - end - behind.from;
  return forwardSkip <= backwardSkip ? { forward: true, ...ahead, skip: forwardSkip, take } : { forward: false, ...behind, skip: backwardSkip, take };
}

function nearest(marks: Map<number, SortValues>, position: number): { from: number; after?: SortValues } {
  let best: { from: number; after?: SortValues } = { from: 0 };
  for (const [at, after] of marks) {
    if (at <= position && at > best.from) best = { from: at, after };
  }
  return best;
}

/** Records that after `skipped` hits from one end, the last of them has sort values `after`. */
export function markWalk(walk: Walk, forward: boolean, skipped: number, after: SortValues): void {
  const marks = walk.marks[forward ? 0 : 1];
  marks.delete(skipped);
  marks.set(skipped, after);
  if (marks.size > MARKS_PER_END) marks.delete(marks.keys().next().value!);
}

export interface WalkCacheOptions {
  /** Walks kept at most; the least recently used goes first. */
  maxWalks: number;
  /** A walk unused this long is dropped (its PIT must outlive this: the PIT's keep-alive is longer). */
  idleMs: number;
  /** A walk older than this is dropped even in use, so deep pages never lag the index by more. */
  maxAgeMs: number;
}

/**
 * Walks by key (the physical indices, the query and the sort). A dropped walk is handed back to its
 * owner, who closes its PIT. Map order is recency: a walk used moves to the end.
 */
export class WalkCache {
  private readonly walks = new Map<string, Walk>();

  constructor(
    private readonly opts: WalkCacheOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** The live walk of `key`, marked used; undefined when there is none or it expired. */
  get(key: string): Walk | undefined {
    const walk = this.walks.get(key);
    if (!walk || this.expired(walk)) return undefined;
    this.walks.delete(key);
    walk.usedAt = this.now();
    this.walks.set(key, walk);
    return walk;
  }

  /** Keeps `walk` under `key` unless a live walk is there already (then `walk` is handed back). */
  add(key: string, walk: Walk): Walk[] {
    const held = this.walks.get(key);
    if (held && !this.expired(held)) return [walk];
    if (held) this.walks.delete(key);
    this.walks.set(key, walk);
    const dropped = held ? [held] : [];
    while (this.walks.size > this.opts.maxWalks) {
      const [oldest, w] = this.walks.entries().next().value!;
      this.walks.delete(oldest);
      dropped.push(w);
    }
    return dropped;
  }

  /** Forgets `walk` if it is still the one under `key` (its PIT failed). */
  remove(key: string, walk: Walk): void {
    if (this.walks.get(key) === walk) this.walks.delete(key);
  }

  /** Takes out every expired walk. */
  sweep(): Walk[] {
    const dropped: Walk[] = [];
    for (const [key, walk] of this.walks) {
      if (!this.expired(walk)) continue;
      this.walks.delete(key);
      dropped.push(walk);
    }
    return dropped;
  }

  /** Takes out every walk. */
  clear(): Walk[] {
    const all = [...this.walks.values()];
    this.walks.clear();
    return all;
  }

  private expired(walk: Walk): boolean {
    const now = this.now();
    return now - walk.usedAt >= this.opts.idleMs || now - walk.openedAt >= this.opts.maxAgeMs;
  }
}
