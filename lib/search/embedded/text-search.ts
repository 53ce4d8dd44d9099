// Text reads of the embedded engine: a search (BM25 over each source's table set, from a common-term list
// where one can prove the page, pruned or ranked by FTS5 otherwise, the sets' hits merged), a
// best-match search (more like this), and the upkeep of the common-term lists they read. How they rank:
// docs/search-engines.md "Ranking and order", "The common-term strategy".
import { BUSY_TIMEOUT_MS } from '../../sqlite.js';
import { filterKey } from '../filters.js';
import type { MoreLikeThisQuery, SearchHit, SearchResult, TextQuery } from '../provider.js';
import { publishedWindow } from '../published-window.js';
import { compareCandidates, type Candidate } from './candidates.js';
import { logCall, type Engine } from './engine.js';
import { filterSql, type FilterSql } from './filter-sql.js';
import { ridWindow, type RidWindow } from './keys.js';
import { likeWords } from './more-like-this.js';
import { PRUNE_LIMITS, prunedTop } from './pruned.js';
import { rankingDepth, type Ranking, type RankingCache } from './rankings.js';
import type { Ranked, TableSet } from './table-set.js';
import { likeMatchFor, likeTerms, parseQuery, parseTranslated, rankPhrases, termFor, textQueryFor, type QueryItem, type SetQuery } from './text.js';

/** TextQuery's search, in this thread; `rankings` keeps what a client paging on reads next. */
export function searchText(engine: Engine, rankings: RankingCache, q: TextQuery, signal?: AbortSignal): SearchResult {
  const { file, gens, tuning, counters } = engine;
  const started = performance.now();
  const items = parseQuery(q.text);
  const translated = parseTranslated(q.translated);
  const limit = Math.max(0, Math.floor(q.limit));
  const offset = Math.max(0, Math.floor(q.offset));
  if (!items.length) return { total: 0, hits: [] };
  // Each table set is asked in its own text version's terms (stemmed from version 3); one plain term
  // takes the common-term list path (an infinite hotMinDf turns it off).
  const queries = new Map<number, SetQuery>();
  const queryOf = (set: TableSet): SetQuery => {
    let sq = queries.get(set.textVersion);
    if (!sq) queries.set(set.textVersion, (sq = textQueryFor(items, translated, set.textVersion)));
    return sq;
  };
  const filters = q.filters ?? {};
  const window = publishedWindow(filters.since, filters.until);
  const rids = window && ridWindow(window.afterMs, window.beforeMs);
  const filter = filterSql(filters);
  // The common-term lists rank a term by score over all of a set's documents: a window, a filter or
  // the date order leaves them aside.
  const lists = Number.isFinite(tuning.hotMinDf) && rids === null && filter === null && q.sort !== 'date';
  const k = offset + limit;
  // Only prefixes: constant score, as Elasticsearch's constant-score rewrite of prefix queries, so the
  // order is the tie-break alone and FTS5 walks its index in row-id order instead of scoring every match
  // of a broad prefix (`προμηθ*` matches ~70% of documents). By date: that order is the one asked for.
  const constant = (translated.length === 0 && items.every((item) => item.kind === 'prefix')) || q.sort === 'date';
  const maintain: { set: TableSet; term: string }[] = [];
  const result = file.read(() => {
    const sets = gens.serving(filters.source);
    // A client paging on: the previous page was ranked deeper than it asked for (rankings.ts). First
    // pages neither read nor keep a ranking.
    const paging =
      offset > 0
        ? {
            key: JSON.stringify([sets.map((set) => set.name), sets.map((set) => queryOf(set).match), constant, filterKey(filters)]),
            version: file.version(),
          }
        : null;
    const kept = paging && rankings.get(paging.key, paging.version, k);
    if (kept) {
      counters.fromRanking += 1;
      return pageOf(kept, sets, offset, k, constant, q.view);
    }
    const parts: { set: TableSet; count: number; top: Ranked[] | null }[] = [];
    for (const set of sets) {
      const { match, single } = queryOf(set);
      const hot = single && lists ? set.lists.top(single, k) : null;
      if (hot?.kind === 'ok') {
        counters.fromList += 1;
        parts.push({ set, count: hot.total, top: hot.top });
        continue;
      }
      const count = set.count(match, rids, filter);
      if (hot?.kind === 'cold' && count >= tuning.hotMinDf) maintain.push({ set, term: single! });
      // A fresh list certifies about hotListSize minus the ties at its cut; a stale one that fails on the
      // first half is worth rebuilding (deeper pages simply stay on FTS5).
      if (hot?.kind === 'stale' && k <= tuning.hotListSize / 2) maintain.push({ set, term: single! });
      parts.push({ set, count, top: null });
    }
    const total = parts.reduce((sum, p) => sum + p.count, 0);
    if (offset >= total || !limit) return { total, hits: [] };
    // Past the first page, what FTS5 ranks is ranked deeper and kept for the pages after it. First
    // pages (most searches) and pages served from lists are fast already and keep nothing.
    const keep = paging !== null && parts.every((p) => p.top === null) ? paging : null;
    const depth = keep ? Math.min(rankingDepth(k, limit), total) : k;
    const candidates: Candidate[] = [];
    for (const { set, count, top } of parts) {
      if (!count) continue;
      const { match } = queryOf(set);
      const n = Math.min(depth, count);
      if (!top && constant) counters.rankedByFts += 1;
      // Pruned ranking bounds an AND of the text's words; a translation ORs others in.
      const ranked =
        top ?? (constant ? set.firstInOrder(match, n, rids, filter) : rankMatches(engine, set, translated.length ? [] : items, match, n, count, rids, filter));
      for (const r of ranked) candidates.push({ set, rid: r.rid, s: r.s });
    }
    candidates.sort(compareCandidates);
    // Exact up to depth only: past it, a set cut at depth may hold better candidates than those kept.
    if (keep) rankings.set(keep.key, keep.version, rankingOf(candidates.slice(0, depth), sets, total));
    const page = candidates.slice(offset, k);
    return { total, hits: page.map((c) => ({ ...c.set.viewed(c.rid, q.view), score: constant ? 1 : -c.s }) as SearchHit) };
  }, signal);
  // A common term without a usable list: build it now, so the next call is fast. Best effort, and
  // never waits for another process's write lock.
  for (const { set, term } of maintain) buildListNow(engine, set, term);
  logCall(engine, 'search', started, { total: result.total, hits: result.hits.length, lists: maintain.length });
  return result;
}

/** MoreLikeThisQuery's search, in this thread. */
export function moreLikeThis(engine: Engine, q: MoreLikeThisQuery, signal?: AbortSignal): SearchHit[] {
  const { file, gens, tuning, counters } = engine;
  const started = performance.now();
  const limit = Math.max(0, Math.floor(q.limit));
  const lists = Number.isFinite(tuning.hotMinDf);
  const filters = q.filters ?? {};
  const window = publishedWindow(filters.since, filters.until);
  const rids = window && ridWindow(window.afterMs, window.beforeMs);
  const filter = filterSql(filters);
  const hits = file.read(() => {
    const sets = gens.serving();
    if (!limit || !sets.length) return [];
    // The words are chosen by their frequency in the whole index, as Elasticsearch's more_like_this
    // chooses them whatever the filter.
    const documents = sets.reduce((sum, set) => sum + set.documents(), 0);
    const words = likeWords(q.text, (token) => sets.reduce((sum, set) => sum + set.lists.termCount(termFor(token, set.textVersion)), 0), documents);
    if (words === null) return [];
    const candidates: Candidate[] = [];
    for (const set of gens.serving(filters.source)) {
      const match = likeMatchFor(words, set.textVersion);
      const phrases = likeTerms(words, set.textVersion).map((term) => ({ phrase: `"${term}"`, term }));
      const pruned = lists && !rids && !filter && phrases.length > 1 ? prunedTop(set, match, phrases, 'or', limit) : null;
      counters[pruned ? 'pruned' : 'rankedByFts'] += 1;
      for (const r of pruned ?? set.rank(match, limit, rids, filter)) candidates.push({ set, rid: r.rid, s: r.s });
    }
    return candidates
      .sort(compareCandidates)
      .slice(0, limit)
      .map((c) => ({ doc: c.set.fetch(c.rid), score: -c.s }));
  }, signal);
  logCall(engine, 'moreLikeThis', started, { hits: hits.length });
  return hits;
}

/** Builds the common-term list of every term found in at least hotMinDf documents of `set`. */
export function buildLists(engine: Engine, set: TableSet): void {
  const terms = engine.file.read(() => set.lists.frequentTerms(engine.tuning.hotMinDf));
  // Small transactions: each list costs one FTS5 ranking of its term (~0.4 µs per match).
  for (let i = 0; i < terms.length; i += 16) {
    engine.file.write(() => {
      for (const term of terms.slice(i, i + 16)) if (set.lists.build(term)) engine.counters.listsBuilt += 1;
    });
  }
}

/** Builds one term's list after a search that met it without one, never waiting for another writer. */
function buildListNow(engine: Engine, set: TableSet, term: string): void {
  const db = engine.file.open();
  db.pragma('busy_timeout = 0');
  try {
    engine.file.write(() => {
      // The set may have been swapped out by a rebuild in between; then there is nothing to do.
      if (engine.gens.serving(set.source)[0] === set && set.lists.build(term)) engine.counters.listsBuilt += 1;
    });
  } catch (err) {
    engine.log?.warn({ err, table: set.name, term }, 'could not build a common-term list now; the next query retries');
  } finally {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

/**
 * The best `k` of a set's `count` matches, by FTS5's bm25: pruned (pruned.ts) when the query has
 * several phrases, common-term lists are on and the matches are many; FTS5 ranks every match otherwise
 * or when the bounds cannot prove the page.
 */
function rankMatches(
  engine: Engine,
  set: TableSet,
  items: QueryItem[],
  match: string,
  k: number,
  count: number,
  rids: RidWindow | null,
  filter: FilterSql | null,
): Ranked[] {
  if (filter) {
    engine.counters.rankedByFts += 1;
    return set.rank(match, k, rids, filter);
  }
  // The lists bound a term's contribution over all of a set's documents, so also inside a window.
  const lists = Number.isFinite(engine.tuning.hotMinDf);
  const phrases = lists && count > k ? rankPhrases(items, set.textVersion) : null;
  const pruned = phrases && phrases.length > 1 ? prunedTop(set, match, phrases, 'and', k, PRUNE_LIMITS, count, rids) : null;
  engine.counters[pruned ? 'pruned' : 'rankedByFts'] += 1;
  return pruned ?? set.rank(match, k, rids);
}

/** The merged order of a ranking's candidates, as kept between pages. */
function rankingOf(candidates: Candidate[], sets: TableSet[], total: number): Ranking {
  const n = candidates.length;
  const ranking = { set: new Uint8Array(n), rid: new BigInt64Array(n), score: new Float64Array(n), total };
  for (let i = 0; i < n; i++) {
    const c = candidates[i];
    ranking.set[i] = sets.indexOf(c.set);
    ranking.rid[i] = c.rid;
    ranking.score[i] = c.s;
  }
  return ranking;
}

/** The page [offset, k) of a kept ranking; its table sets are unchanged since (same index version). */
function pageOf(ranking: Ranking, sets: TableSet[], offset: number, k: number, constant: boolean, view: TextQuery['view']): SearchResult {
  const hits: SearchHit[] = [];
  for (let i = offset; i < Math.min(k, ranking.rid.length); i++) {
    hits.push({ ...sets[ranking.set[i]].viewed(ranking.rid[i], view), score: constant ? 1 : -ranking.score[i] } as SearchHit);
  }
  return { total: ranking.total, hits };
}
