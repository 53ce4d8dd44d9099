// Paging of the Elasticsearch adapter: a text page by score alone with the tie-breakers applied here
// (the fast path), a plain from/size page with its total counted apart, and pages past the window
// walked in a point in time, resumed where a client paging on left off (deep-walks.ts).
import type { estypes } from '@elastic/elasticsearch';
import type { SearchHit, SearchResult, StoredDocument } from '../provider.js';
import { markWalk, newWalk, planWalk, WalkCache, type Walk } from '../deep-walks.js';
import type { Logger } from '../../logger.js';
import { describe, EngineResponseError, type EngineClient } from './client.js';
import { aliasState } from './generations.js';
import {
  buildScorePage,
  buildSort,
  EXACT_COUNT_UP_TO,
  pageFromScoreWindow,
  SORT_VALUES_ONLY,
  TEXT_SORT,
  type Projection,
  type Query,
  type ScorePage,
  type SortSpec,
  type Target,
} from './queries.js';
import { totalOf, WindowHit, withDocs } from './records.js';

/**
 * Pages ending within this many hits are plain from/size requests; deeper ones are walked in a point
 * in time (deepPage), which a client paging on resumes. Plain from/size past it costs more per page
 * than a resumed walk (a listing page at offset 45,000: ~450 ms, against ~20 ms).
 */
export const PLAIN_WINDOW = 10_000;
/** Keep-alive of a deep walk's point in time: longer than WALKS.idleMs, so a kept walk is never expired. */
export const PIT_KEEP_ALIVE = '2m';
/**
 * Deep walks kept between pages (deep-walks.ts): a client paging on within a minute resumes; a walk
 * answers from its point in time for at most 5 minutes, then a new one sees the index as it is.
 */
const WALKS = { maxWalks: 32, idleMs: 60_000, maxAgeMs: 5 * 60_000 };

export class Pager {
  private readonly walks = new WalkCache(WALKS);

  /**
   * `window`: the deepest `offset + limit` served by plain from/size; `step`: hits a step of a deep walk
   * skips or reads at most (index.max_result_window).
   */
  constructor(
    private readonly engine: EngineClient,
    private readonly log: Logger,
    private readonly window: number,
    private readonly step: number,
  ) {}

  /** The page [offset, offset + limit) of `target` in `sort` order, and the total. */
  page(target: Target, sort: SortSpec, offset: number, limit: number, src: Projection, scored: boolean): Promise<SearchResult> {
    const page = buildScorePage(offset, limit);
    if (sort === TEXT_SORT && scored && page.from + page.size <= this.window) return this.textPage(target, page, offset, limit, src);
    return offset + limit <= this.window ? this.shallowPage(target, sort, offset, limit, src) : this.deepPage(target, sort, offset, limit, src);
  }

  /**
   * The exact number of matches, asked for on its own: a size-0 request that only counts lets Lucene
   * answer from index statistics where it can (a single term, no deletions) and otherwise iterate
   * matches without scoring them. Asking for the total in the page request itself
   * (`track_total_hits: true`) made every match be scored and defeated top-k pruning: at 1M documents
   * that was most of the cost of a common-term search (docs/benchmarks-history.md "Search — Elasticsearch").
   */
  async countMatches({ index, query, signal }: Target): Promise<number> {
    const res = await this.engine.call(
      'search.count',
      (options) =>
        this.engine.es.search(
          {
            index,
            query,
            size: 0,
            track_total_hits: true,
            allow_partial_search_results: false,
          },
          options,
        ),
      signal,
    );
    return totalOf(res);
  }

  /** A page in `sort` order by from/size, its total counted alongside (see countMatches). */
  private async shallowPage(target: Target, sort: SortSpec, offset: number, limit: number, src: Projection): Promise<SearchResult> {
    const [hits, total] = await Promise.all([this.sortedHits(target, sort, offset, limit, src), this.countMatches(target)]);
    return { total, hits };
  }

  private async sortedHits({ index, query, signal }: Target, sort: SortSpec, offset: number, limit: number, src: Projection): Promise<SearchHit[]> {
    const { hits } = await withDocs(this.log, src, (projection) =>
      this.engine.call(
        'search',
        (options) =>
          this.engine.es.search<StoredDocument>(
            {
              index,
              query,
              sort: buildSort(sort),
              from: offset,
              size: limit,
              // Nothing counted here (countMatches does it), so a sort led by _score can prune; _score is in
              // the sort, so hits carry it without `track_scores` (which forced scoring every match).
              track_total_hits: false,
              ...projection,
              // A shard failure (index deleted mid-query) is an error to retry, not a silently short page.
              allow_partial_search_results: false,
            },
            options,
          ),
        signal,
      ),
    );
    return hits;
  }

  /**
   * A text-search page. Fast path: the page by score alone in a wider window (buildScorePage), put in
   * TEXT_SORT order here (pageFromScoreWindow). Sorting by score alone is what lets Lucene use its
   * fastest top-k collector; the published_at and source_id tie-breakers only matter among equal
   * scores, and they are applied here unless a tie group at an edge of the page reaches past the
   * window, in which case the page is asked for again in the full sort order (sortedHits), so the
   * order is always exactly TEXT_SORT.
   */
  private async textPage(target: Target, page: ScorePage, offset: number, limit: number, src: Projection): Promise<SearchResult> {
    const { index, query, signal } = target;
    const { from, size } = page;
    // Counted exactly up to EXACT_COUNT_UP_TO in the page request itself (Lucene still prunes past it):
    // a selective query costs one request; only a larger total is counted by a second one.
    const { res, hits } = await withDocs(this.log, src, (projection) =>
      this.engine.call(
        'search',
        (options) =>
          this.engine.es.search<StoredDocument>(
            {
              index,
              query,
              from,
              size,
              track_total_hits: EXACT_COUNT_UP_TO,
              ...projection,
              allow_partial_search_results: false,
            },
            options,
          ),
        signal,
      ),
    );
    const counted = res.hits.total;
    const total = typeof counted === 'object' && counted?.relation === 'eq' ? counted.value : await this.countMatches(target);
    // A hit's tie-breakers are read (from its record's bytes) only if its score ties with another's.
    const window = hits.map((hit) => new WindowHit(hit));
    const resolved = pageFromScoreWindow(window, page, limit);
    if (resolved) return { total, hits: resolved.map((w) => w.hit) };
    this.log.debug({ offset, limit }, 'score tie at a page edge; page asked for in full sort order');
    return { total, hits: await this.sortedHits(target, TEXT_SORT, offset, limit, src) };
  }

  /**
   * A page beyond the result window, read from one point in time so the total and every step agree.
   * The skipped part is walked with search_after in steps of at most `step` hits carrying only sort
   * values, so memory stays bounded by one step whatever the offset. Each step scores every match, so
   * the walk starts from the nearest position a previous page of the same query reached, from either
   * end (deep-walks.ts): paging on costs one step a page, and the last pages of any result set one or two.
   */
  private async deepPage(target: Target, sort: SortSpec, offset: number, limit: number, src: Projection): Promise<SearchResult> {
    void this.closeWalks(this.walks.sweep());
    const key = await this.walkKey(target, sort);
    const cached = key === null ? undefined : this.walks.get(key);
    if (cached) {
      try {
        return await this.walkPage(cached, target, sort, offset, limit, src);
      } catch (err) {
        if (target.signal?.aborted || !(err instanceof EngineResponseError)) throw err;
        // The point in time is gone (expired, its index deleted, the node restarted): walk afresh.
        this.log.debug({ error: err.message }, 'point in time of a deep walk gone; walking afresh');
        this.walks.remove(key!, cached);
        void this.closeWalks([cached]);
      }
    }
    const walk = await this.openWalk(target);
    // Kept at once, so concurrent pages of the same query share it; closed here if not kept.
    const dropped = key === null ? [walk] : this.walks.add(key, walk);
    try {
      return await this.walkPage(walk, target, sort, offset, limit, src);
    } catch (err) {
      if (key !== null) this.walks.remove(key, walk);
      if (!dropped.includes(walk)) dropped.push(walk);
      throw err;
    } finally {
      void this.closeWalks(dropped);
    }
  }

  /**
   * What a walk is kept under: the physical indices behind the target's alias and its filter (so a
   * rebuild's swap, of an index or of one source's generation, starts new walks at once), the query
   * and the sort. Null when the alias does not exist.
   */
  private async walkKey({ index, query }: Target, sort: SortSpec): Promise<string | null> {
    const serving = await aliasState(this.engine, index);
    return serving.length === 0 ? null : JSON.stringify([serving.sort((a, b) => a.index.localeCompare(b.index)), query, sort]);
  }

  /** A point in time on the target, with its matches counted. */
  private async openWalk({ index, query, signal }: Target): Promise<Walk> {
    const opened = await this.engine.call(
      'open_point_in_time',
      (options) => this.engine.es.openPointInTime({ index, keep_alive: PIT_KEEP_ALIVE }, options),
      signal,
    );
    const walk = newWalk(opened.id, 0);
    try {
      const counted = await this.pitSearch(walk, query, signal, { size: 0, track_total_hits: true });
      return newWalk(walk.pitId, totalOf(counted));
    } catch (err) {
      void this.closeWalks([walk]);
      throw err;
    }
  }

  private async pitSearch(walk: Walk, query: Query, signal: AbortSignal | undefined, body: Omit<estypes.SearchRequest, 'index' | 'pit' | 'query'>) {
    const res = await this.engine.call(
      'search',
      (options) =>
        this.engine.es.search<StoredDocument>(
          {
            ...body,
            query,
            pit: { id: walk.pitId, keep_alive: PIT_KEEP_ALIVE },
            allow_partial_search_results: false,
          },
          options,
        ),
      signal,
    );
    if (res.pit_id) walk.pitId = res.pit_id;
    return res;
  }

  /** The page [offset, offset + limit) of a walk, marking every position it reaches. */
  private async walkPage(walk: Walk, { query, signal }: Target, sort: SortSpec, offset: number, limit: number, src: Projection): Promise<SearchResult> {
    const plan = planWalk(walk, offset, limit);
    if (!plan) return { total: walk.total, hits: [] };
    const { forward, skip, take } = plan;
    // _score leads TEXT_SORT, so hits carry it without `track_scores` (which would score every match).
    const common = { sort: buildSort(sort, !forward), track_total_hits: false } as const;
    const step = (body: Omit<estypes.SearchRequest, 'index' | 'pit' | 'query'>) => this.pitSearch(walk, query, signal, { ...common, ...body });
    const hits: SearchHit[] = [];
    let position = plan.from;
    let after = plan.after as estypes.SortResults | undefined;
    const reached = (raw: estypes.SearchHit<StoredDocument>[]) => {
      after = raw[raw.length - 1].sort!;
      position += raw.length;
      markWalk(walk, forward, position, after);
    };
    if (after === undefined && skip + take <= this.step) {
      // From an end, the page within the window: one from/size request.
      const { res, hits: page } = await withDocs(this.log, src, (projection) => step({ from: skip, size: take, ...projection }));
      hits.push(...page);
      position = skip;
      if (res.hits.hits.length > 0) reached(res.hits.hits);
    } else {
      for (let remaining = skip; remaining > 0; ) {
        const raw = (await step({ size: Math.min(remaining, this.step), search_after: after, ...SORT_VALUES_ONLY })).hits.hits;
        if (raw.length === 0) break;
        reached(raw);
        remaining -= raw.length;
      }
      while (hits.length < take) {
        const size = Math.min(take - hits.length, this.step);
        const { res, hits: page } = await withDocs(this.log, src, (projection) => step({ size, search_after: after, ...projection }));
        if (res.hits.hits.length === 0) break;
        hits.push(...page);
        reached(res.hits.hits);
      }
    }
    if (!forward) hits.reverse();
    return { total: walk.total, hits };
  }

  /** Closes the points in time of walks no longer kept (awaited only by close()); one that fails expires by itself. */
  private closeWalks(walks: Walk[]): Promise<unknown> {
    return Promise.all(
      walks.map((walk) =>
        this.engine.es.closePointInTime({ id: walk.pitId }, { requestTimeout: 2_000, maxRetries: 0 }).catch((err: unknown) => {
          this.log.debug({ error: describe(err) }, 'point in time not closed; it expires by itself');
        }),
      ),
    );
  }

  async close(): Promise<void> {
    await this.closeWalks(this.walks.clear());
  }
}
