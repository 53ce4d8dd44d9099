// Pruned ranking of a query of several phrases (MaxScore's bound per term): FTS5 computes bm25() for
// every match (0.4–1.2 µs each), so two frequent words cost their whole intersection. Here FTS5 scores
// only the candidates that can reach the first k, and the page is kept only when a bound proves it:
//
//  - Each phrase bounds what it adds to a document's score. A term with a common-term list
//    (HotLists.listImpacts, hot-lists.ts) adds exactly its entry's contribution to a document in its list, and at most
//    its contribution at the list's cut-off cost to one outside (none if the list holds every document
//    with the term). A phrase of few matches (OR only) is enumerated: it adds nothing outside its matches.
//    Any other phrase adds less than idf·(k1+1), BM25's supremum.
//  - Candidates are the documents of the lists and enumerated matches. A document outside them scores at
//    most the sum of the outside bounds.
//  - FTS5 ranks the candidates among the query's matches (TableSet.rankAmong): exact scores, the same
//    ordering as rank(). If the k-th of them beats the outside bound by a margin, no other document can
//    enter the page, which is then exactly rank()'s. Otherwise the caller ranks every match as before.
//
// Before the FTS5 pass, candidates' own bounds are checked (an AND first on the lists' heads, see
// promising()), so a query whose bound cannot hold (two words of equal weight) falls back early.
//
// What this cannot remove: FTS5 still walks every match (the exact total needs that walk anyway) and
// still scans each phrase's whole posting list for its IDF. docs/search-engines.md "Pruned ranking".
import { BM25_K1 as K1 } from '../../../index-mappings/ranking.js';
import { avgdl, bm25Score, idf } from './bm25.js';
import type { RidWindow } from './keys.js';
import type { Ranked, TableSet } from './table-set.js';
import type { RankPhrase } from './text.js';

export interface PruneLimits {
  /** OR: a phrase with at most this many matches is enumerated into the candidates. */
  enumerate: number;
  /** More candidates than this and the query is ranked whole (the candidate filter costs per id). */
  candidates: number;
}

export const PRUNE_LIMITS: PruneLimits = { enumerate: 5_000, candidates: 50_000 };

/** Relative margin between the page's last score and the outside bound, far above rounding (the bounds
 * are computed by another formula than FTS5's, equal in real numbers). */
const MARGIN = 1e-9;

/** BM25's contribution of a phrase at cost c = (1 - b + b·D/avgdl) / f: falls as c grows. */
function contributionAt(idfValue: number, c: number): number {
  return (idfValue * (K1 + 1.0)) / (1 + K1 * c);
}

/**
 * The best `k` matches of `match` (its phrases `phrases`, ANDed or ORed) in `set` (inside `window` when
 * given), equal to `set.rank(match, k, window)`, or null when the bounds cannot prove a page without ranking every match.
 */
export function prunedTop(
  set: TableSet,
  match: string,
  phrases: RankPhrase[],
  mode: 'and' | 'or',
  k: number,
  limits: PruneLimits = PRUNE_LIMITS,
  matches = Number.POSITIVE_INFINITY,
  window: RidWindow | null = null,
): Ranked[] | null {
  if (k <= 0) return [];
  if (mode === 'and') {
    // A phrase without a list bounds every match by idf·(k1+1), which no page beats; such a query has
    // few matches anyway when the phrase is rare (lists start at hotMinDf). And with few matches beside
    // the candidates, little scoring is saved, while a failed certificate pays the IDF scans twice.
    let entries = 0;
    for (const { term } of phrases) {
      const n = term === null ? null : set.lists.listSize(term);
      if (n === null) return null;
      entries += n;
    }
    if (matches <= 4 * entries) return null;
  }
  const totals = set.totals();
  if (!totals.rows) return null;
  const avg = avgdl(totals);
  if (
    mode === 'and' &&
    !promising(
      set,
      phrases.map((p) => p.term!),
      k,
      totals.rows,
      avg,
    )
  )
    return null;
  // What a document outside the candidates can score at most, and whether one can match at all.
  let outside = 0;
  let someComplete = false;
  let allComplete = true;
  // Per candidate: its bound above the outside bound (its known contributions replace phrases' bounds).
  const lift = new Map<bigint, number>();
  const add = (rid: bigint, x: number) => lift.set(rid, (lift.get(rid) ?? 0) + x);
  for (const { phrase, term } of phrases) {
    const list = term === null ? null : set.lists.listImpacts(term, avg);
    if (list) {
      const idfValue = idf(set.db, totals.rows, list.df);
      const out = list.outsideCost === null ? 0 : contributionAt(idfValue, list.outsideCost);
      for (let i = 0; i < list.rid.length; i++) add(list.rid[i], -bm25Score(idfValue, list.f[i], list.dl[i], avg) - out);
      outside += out;
      if (list.outsideCost === null) someComplete = true;
      else allComplete = false;
      continue;
    }
    const ids = mode === 'or' ? set.matchIds(phrase, limits.enumerate + 1) : null;
    if (ids && ids.length <= limits.enumerate) {
      const most = contributionAt(idf(set.db, totals.rows, ids.length), 0);
      for (const rid of ids) add(rid, most);
      someComplete = true;
      continue;
    }
    outside += contributionAt(idf(set.db, totals.rows, set.count(phrase)), 0);
    allComplete = false;
  }
  if (lift.size === 0 || lift.size > limits.candidates) return null;
  // AND: a match holds every phrase, so one complete phrase keeps every match among the candidates.
  // OR: a match holds one of them, so all must be complete.
  const noneOutside = mode === 'and' ? someComplete : allComplete;
  const beat = noneOutside ? null : outside * (1 + MARGIN) + 1e-12;
  if (beat !== null) {
    if (lift.size < k) return null;
    const bounds = Float64Array.from(lift.values(), (x) => outside + x)
      .sort()
      .reverse();
    if (bounds[k - 1] <= beat) return null;
  }
  const ranked = set.rankAmong(match, lift.keys(), k, window);
  if (beat === null) return ranked;
  return ranked.length === k && -ranked[k - 1].s > beat ? ranked : null;
}

/**
 * AND of listed terms: whether k candidates can beat the outside bound, judged from the head of each
 * list. A document of a list's head that matches scores at least its known contributions plus, for each
 * other term, one occurrence at its length. When k of them cannot beat what a document outside the lists
 * may score (two words of equal weight), the FTS5 pass would almost surely fail too: ranking every match
 * at once is cheaper than reading whole lists first.
 */
function promising(set: TableSet, terms: string[], k: number, rows: number, avg: number): boolean {
  const head = Math.max(2 * k, k + 64);
  const lists = [];
  for (const term of terms) {
    const list = set.lists.listImpacts(term, avg, head);
    if (!list) return false;
    const idfValue = idf(set.db, rows, list.df);
    const exact = new Map<bigint, number>();
    for (let i = 0; i < list.rid.length; i++) exact.set(list.rid[i], -bm25Score(idfValue, list.f[i], list.dl[i], avg));
    lists.push({ list, idf: idfValue, exact });
  }
  const outside = lists.reduce((sum, l) => sum + (l.list.outsideCost === null ? 0 : contributionAt(l.idf, l.list.outsideCost)), 0);
  if (lists.some((l) => l.list.outsideCost === null)) return true;
  const lows: number[] = [];
  const seen = new Set<bigint>();
  for (const { list } of lists) {
    for (let i = 0; i < list.rid.length; i++) {
      const rid = list.rid[i];
      if (seen.has(rid)) continue;
      seen.add(rid);
      lows.push(lists.reduce((sum, l) => sum + (l.exact.get(rid) ?? -bm25Score(l.idf, 1, list.dl[i], avg)), 0));
    }
  }
  lows.sort((a, b) => b - a);
  return lows.length >= k && lows[k - 1] > outside * (1 + MARGIN) + 1e-12;
}
