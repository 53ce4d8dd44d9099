// The common-term lists of one table set (schema.ts `_hot`, `_hotlist`): for each term found in at least
// hotMinDf documents, its best documents by BM25 cost, kept through every write, from which a one-term
// page is served exactly without ranking every match. The algorithm and its proof: docs/search-engines.md
// "The common-term strategy". Called by TableSet, inside the transaction its caller holds.
import type { Statement } from 'better-sqlite3';
import { BM25_B as B, BM25_K1 as K1, BODY_WEIGHT, TITLE_WEIGHT } from '../../../index-mappings/ranking.js';
import { avgdl, bm25Score, cost, idf } from './bm25.js';
import { Statements } from './statements.js';
import type { Ranked, TableSet, Tuning } from './table-set.js';
import { LATIN_MARK, RAW_MARK, VALUE_GAP, termFrequencies, type DocText } from './text.js';

export type HotResult = { kind: 'ok'; total: number; top: Ranked[] } | { kind: 'cold' } | { kind: 'stale' };

/** A list's record (`_hot`) as a write transaction keeps it, flushed when the write ends. */
export interface HotMeta {
  df: number;
  a0: number;
  theta: number | null;
  n: number;
  dirty: boolean;
}

/** Every list's record, by term, for one write transaction. */
export type HotWrite = Map<string, HotMeta>;

/** Margin that keeps a list's cut-off below the first document left out, beyond any rounding. */
const CUT_MARGIN = 1e-12;
/** Margin required between a page's last score and the best score a document outside a list can have. */
const CERTIFY_MARGIN = 1e-9;

export class HotLists {
  /** Replica mismatches seen when building lists; should stay 0 (tests assert it). */
  static replicaMismatches = 0;
  private readonly statements: Statements;
  private readonly hot: string;
  private readonly hotlist: string;

  constructor(
    private readonly set: TableSet,
    private readonly tuning: Tuning,
    private readonly warn: (msg: string, extra?: object) => void,
  ) {
    this.statements = new Statements(set.db);
    this.hot = `"${set.name}_hot"`;
    this.hotlist = `"${set.name}_hotlist"`;
  }

  private st(sql: string, safe = false): Statement {
    return this.statements.get(sql, safe);
  }

  // ---------------------------------------------------------------- writes

  /** The lists' records, for a write transaction to keep up to date. */
  load(): HotWrite {
    const hot: HotWrite = new Map();
    const rows = this.st(`SELECT term, df, a0, theta, n FROM ${this.hot}`).all() as (Omit<HotMeta, 'dirty'> & { term: string })[];
    for (const r of rows) hot.set(r.term, { df: r.df, a0: r.a0, theta: r.theta, n: r.n, dirty: false });
    return hot;
  }

  /** Writes back what a write transaction changed, a list grown past hotListMax cut back first. */
  flush(hot: HotWrite): void {
    for (const [term, meta] of hot) {
      if (!meta.dirty) continue;
      if (meta.n > this.tuning.hotListMax) this.trim(term, meta);
      this.st(`UPDATE ${this.hot} SET df = ?, n = ?, theta = ? WHERE term = ?`).run(meta.df, meta.n, meta.theta, term);
      meta.dirty = false;
    }
  }

  /** A document inserted as `rid` with `text` (`ntok` tokens): it joins the lists of its terms where its cost is below the cut-off. */
  added(hot: HotWrite, text: DocText, rid: bigint, ntok: number): void {
    if (!hot.size) return;
    for (const [term, f] of termFrequencies(text, TITLE_WEIGHT, BODY_WEIGHT)) {
      const meta = hot.get(term);
      if (!meta) continue;
      meta.df += 1;
      meta.dirty = true;
      // The list holds every document whose cost (at the list's avgdl) is below the cut-off.
      const c0 = cost(f, ntok, meta.a0);
      if (meta.theta === null || c0 < meta.theta) {
        this.st(`INSERT INTO ${this.hotlist} (term, c0, rid, f, dl) VALUES (?, ?, ?, ?, ?)`).run(term, c0, rid, f, ntok);
        meta.n += 1;
      }
    }
  }

  /** A document removed: it leaves the lists of its terms. */
  removed(hot: HotWrite, text: DocText, rid: bigint): void {
    if (!hot.size) return;
    for (const term of new Set([...text.title, ...text.body])) {
      const meta = hot.get(term);
      if (!meta) continue;
      meta.df -= 1;
      meta.dirty = true;
      meta.n -= this.st(`DELETE FROM ${this.hotlist} WHERE term = ? AND rid = ?`).run(term, rid).changes;
    }
  }

  /** Cuts a grown list back to hotListSize; the cut-off only ever moves down. */
  private trim(term: string, meta: HotMeta): void {
    const size = this.tuning.hotListSize;
    const cut = this.st(`SELECT c0, rid FROM ${this.hotlist} WHERE term = ? ORDER BY c0, rid LIMIT 1 OFFSET ?`, true).get(term, size) as
      | { c0: number; rid: bigint }
      | undefined;
    if (!cut) return;
    const theta = cut.c0 * (1 - CUT_MARGIN);
    meta.theta = meta.theta === null ? theta : Math.min(meta.theta, theta);
    this.st(`DELETE FROM ${this.hotlist} WHERE term = ? AND (c0, rid) >= (?, ?)`).run(term, cut.c0, cut.rid);
    meta.n = size;
  }

  // ---------------------------------------------------------------- reads

  /**
   * Documents holding `term`: its list's document frequency, kept exact by every write, where it has a
   * list (a frequent term's count walks its whole posting list), FTS5's count otherwise.
   */
  termCount(term: string): number {
    const df = this.st(`SELECT df FROM ${this.hot} WHERE term = ?`).pluck().get(term) as number | undefined;
    return df ?? this.set.count(`"${term}"`);
  }

  /** Entries in `term`'s common-term list (usable or not), or null without one. */
  listSize(term: string): number | null {
    return (this.st(`SELECT n FROM ${this.hot} WHERE term = ?`).pluck().get(term) as number | undefined) ?? null;
  }

  /**
   * A term's list (its first `limit` entries in cost order), for bounds (pruned.ts): the entries, its document frequency, and the least cost
   * (at today's avgdl) a document outside it can have: null when the list holds every document with the
   * term. Null without a list that holds what it says (none, or stale).
   */
  listImpacts(
    term: string,
    avg: number,
    limit: number | null = null,
  ): { df: number; rid: bigint[]; f: Float64Array; dl: Float64Array; outsideCost: number | null } | null {
    const h = this.st(`SELECT df, a0, theta, n FROM ${this.hot} WHERE term = ?`).get(term) as
      | { df: number; a0: number; theta: number | null; n: number }
      | undefined;
    if (!h || (h.theta === null && h.n !== h.df)) return null;
    const e = this.entries(term, limit);
    return { df: h.df, rid: e.rid, f: e.f, dl: e.dl, outsideCost: h.theta === null ? null : h.theta * Math.min(1, h.a0 / avg) };
  }

  /** The first `limit` entries of a term's list in c0 order (all of them when limit is null). */
  private entries(term: string, limit: number | null): { rid: bigint[]; f: Float64Array; dl: Float64Array; c0: Float64Array } {
    const rows = (
      limit === null
        ? this.st(`SELECT rid, f, dl, c0 FROM ${this.hotlist} WHERE term = ? ORDER BY c0, rid`, true).raw().all(term)
        : this.st(`SELECT rid, f, dl, c0 FROM ${this.hotlist} WHERE term = ? ORDER BY c0, rid LIMIT ?`, true).raw().all(term, limit)
    ) as [bigint, bigint, bigint, number][];
    const n = rows.length;
    const out = { rid: new Array<bigint>(n), f: new Float64Array(n), dl: new Float64Array(n), c0: new Float64Array(n) };
    for (let i = 0; i < n; i++) {
      const r = rows[i];
      out.rid[i] = r[0];
      out.f[i] = Number(r[1]);
      out.dl[i] = Number(r[2]);
      out.c0[i] = r[3];
    }
    return out;
  }

  /**
   * The best `k` documents for one term from its list, with the exact FTS5 scores, or 'cold' (no list) /
   * 'stale' (the list cannot prove these are the true top k): exact when the k-th entry's cost is below
   * min(θ, next unread c0)·min(1, a0/avgdl). Proof: docs/search-engines.md "Why the list gives exactly the first k".
   */
  top(term: string, k: number): HotResult {
    const h = this.st(`SELECT df, a0, theta, n FROM ${this.hot} WHERE term = ?`).get(term) as
      | { df: number; a0: number; theta: number | null; n: number }
      | undefined;
    if (!h) return { kind: 'cold' };
    if (h.theta === null && h.n !== h.df) return { kind: 'stale' };
    if (h.df === 0) return { kind: 'ok', total: 0, top: [] };
    if (h.theta !== null && h.n < k) return { kind: 'stale' };
    const totals = this.set.totals();
    const avg = avgdl(totals);
    const shrink = Math.min(1, h.a0 / avg);
    const idfValue = idf(this.set.db, totals.rows, h.df);
    const prefix = Math.max(2 * k, k + 64);
    for (const limit of prefix < h.n ? [prefix, null] : [null]) {
      const e = this.entries(term, limit);
      const n = e.rid.length;
      const s = new Float64Array(n);
      for (let i = 0; i < n; i++) s[i] = bm25Score(idfValue, e.f[i], e.dl[i], avg);
      const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => s[a] - s[b] || (e.rid[a] < e.rid[b] ? -1 : e.rid[a] > e.rid[b] ? 1 : 0));
      const top = order.slice(0, k);
      // Everything not read — unread entries (c0 ≥ the next c0) and documents outside (c0 ≥ θ) — costs at
      // least this today.
      const floor = Math.min(limit === null ? Number.POSITIVE_INFINITY : nextC0(e.c0), h.theta ?? Number.POSITIVE_INFINITY) * shrink;
      if (floor === Number.POSITIVE_INFINITY || (top.length === k && cost(e.f[top[k - 1]], e.dl[top[k - 1]], avg) < floor * (1 - CERTIFY_MARGIN))) {
        return { kind: 'ok', total: h.df, top: top.map((i) => ({ rid: e.rid[i], s: s[i] })) };
      }
    }
    return { kind: 'stale' };
  }

  /**
   * (Re)builds the list of `term` from FTS5's own ranking (call inside a write transaction).
   * Returns false, and leaves no list, when the term is below hotMinDf or FTS5's scores are not
   * reproduced exactly (then the term is simply always ranked by FTS5).
   */
  build(term: string): boolean {
    const match = `"${term}"`;
    const df = this.set.count(match);
    this.st(`DELETE FROM ${this.hotlist} WHERE term = ?`).run(term);
    this.st(`DELETE FROM ${this.hot} WHERE term = ?`).run(term);
    if (df < this.tuning.hotMinDf) return false;
    const size = this.tuning.hotListSize;
    const ranked = this.set.rank(match, size + 1);
    const totals = this.set.totals();
    const avg = avgdl(totals);
    const idfValue = idf(this.set.db, totals.rows, df);
    // f is recovered from FTS5's own score (s = -idf·f·(k1+1)/(f + k1·L) solved for f, rounded to the
    // integer it must be) and accepted only if the replica then gives back exactly s: no document is
    // re-tokenized, and any disagreement with FTS5 leaves the term on the FTS5 path.
    const entries: { rid: bigint; f: number; dl: number }[] = [];
    for (const r of ranked) {
      const dl = this.set.tokenCount(r.rid);
      const x = -r.s / idfValue;
      const f = Math.round((K1 * (1 - B + (B * dl) / avg) * x) / (K1 + 1.0 - x));
      if (!(f >= 1) || bm25Score(idfValue, f, dl, avg) !== r.s) {
        HotLists.replicaMismatches += 1;
        this.warn('bm25 replica differs from FTS5; the term stays on the FTS5 path', { table: this.set.name, term });
        return false;
      }
      entries.push({ rid: r.rid, f, dl });
    }
    const cut = entries.length > size ? cost(entries[size].f, entries[size].dl, avg) * (1 - CUT_MARGIN) : null;
    const kept = entries.slice(0, size);
    const ins = this.st(`INSERT INTO ${this.hotlist} (term, c0, rid, f, dl) VALUES (?, ?, ?, ?, ?)`);
    for (const e of kept) ins.run(term, cost(e.f, e.dl, avg), e.rid, e.f, e.dl);
    this.st(`INSERT INTO ${this.hot} (term, df, a0, theta, n) VALUES (?, ?, ?, ?, ?)`).run(term, df, avg, cut, kept.length);
    return true;
  }

  /** Terms found in at least `minDf` documents (a scan of the whole FTS index: seconds at 1M). */
  frequentTerms(minDf: number): string[] {
    const vocab = `"${this.set.name}_vocab"`;
    const db = this.set.db;
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${vocab} USING fts5vocab(main, '${this.set.name}_fts', 'row')`);
    try {
      // The gap, the unstemmed copies (only prefixes read those) and the Latin keys (only ever one of
      // a query word's alternatives) get no list.
      return db
        .prepare(`SELECT term FROM temp.${vocab} WHERE doc >= ? AND term != ? AND substr(term, 1, 1) NOT IN (?, ?)`)
        .pluck()
        .all(minDf, VALUE_GAP, RAW_MARK, LATIN_MARK) as string[];
    } finally {
      db.exec(`DROP TABLE IF EXISTS temp.${vocab}`);
    }
  }
}

/** The c0 just after a prefix read: the last one read bounds every unread entry (they sort after it). */
function nextC0(c0: Float64Array): number {
  return c0.length ? c0[c0.length - 1] : Number.POSITIVE_INFINITY;
}
