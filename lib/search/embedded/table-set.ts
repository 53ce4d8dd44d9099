// One source's generation of the embedded index (schema.ts): writes, rankings, listings, vectors.
// All methods are synchronous and expect the caller (provider.ts) to hold the right transaction.
import type { Database, Statement } from 'better-sqlite3';
import type { IndexedDocument } from '../../../index-mappings/document.js';
import type { SourceName } from '../../../index-mappings/sources.js';
import { EXPORT_FIELDS, type ExportRow, type MetadataDocument, type SourceStats, type StoredDocument, type TextQuery } from '../provider.js';
import { METADATA_FIELDS } from '../../../index-mappings/document.js';
import { BM25_B as B, BM25_K1 as K1, BODY_WEIGHT, TITLE_WEIGHT } from '../../../index-mappings/ranking.js';
import { avgdl, bm25Score, cost, decodeAverages, idf, type TableTotals } from './bm25.js';
import { blockOf, blockOfSeconds, isoSeconds, makeRowid, renumberedSeqs, ridWindow, seqBetween, seqOf, SEQ_SPACE, type RidWindow } from './keys.js';
import { LATIN_MARK, RAW_MARK, VALUE_GAP, compareCodePoints, docText, termFrequencies } from './text.js';
import { Statements } from './statements.js';
import type { FilterSql } from './filter-sql.js';
import { snippetText } from '../snippet.js';
import { vectorKey } from './vector-index.js';
import { openVectorStore, type VectorStore } from './vectors.js';

export interface Tuning {
  /** A term found in at least this many documents of a source gets a common-term list; Infinity turns
   * the lists off for reads (writes still maintain lists that exist). */
  hotMinDf: number;
  /** Entries a list is cut to when built or trimmed: pages up to this depth are served from it. */
  hotListSize: number;
  /** Inserts may grow a list up to this many entries before it is trimmed back to hotListSize. */
  hotListMax: number;
  /** Vectors written since the approximate index's file (vector-index.ts) that make the writer write the
   * next one: each query scans these exactly. */
  vectorDeltaMax: number;
  /** A kNN whose sets hold at most this many vectors in the graph scans them exactly: cheaper than asking
   * the graph deep enough to find k of a narrow filter. */
  vectorExactScope: number;
  /** Candidates a kNN asks the graph for at least (more find more of the exact neighbours, slower). */
  vectorCandidates: number;
}

/** A ranked match: row id and FTS5 bm25() value (negative, smaller is better). */
export interface Ranked {
  rid: bigint;
  s: number;
}

export type HotResult = { kind: 'ok'; total: number; top: Ranked[] } | { kind: 'cold' } | { kind: 'stale' };

interface HotMeta {
  df: number;
  a0: number;
  theta: number | null;
  n: number;
  dirty: boolean;
}

/** An exported document and its row id (the set's listing order). */
export interface ExportedRow {
  rid: bigint;
  row: ExportRow;
}

/** State of one write transaction on a table set; flushed by endWrite(). */
export class WriteContext {
  readonly hot = new Map<string, HotMeta>();
  documentsDelta = 0;
  qualityDelta = 0;
  inserted = 0;
  removed = 0;
  /** Net change in stored vectors. */
  vectors = 0;
}

/** How a `_docs` column holds a field of the document: arrays and objects as JSON text. */
type Column<T> = T extends string | number | null ? T : string;

/** The fields stored as JSON text. */
const JSON_COLUMNS = [
  'entities',
  'parties',
  'amount',
  'cpv',
  'original',
  'cpv_labels_en',
  'cpv_labels_el',
] as const satisfies readonly (keyof StoredDocument)[];

/** The optional fields, a column each that is NULL when the document has none. */
type Optional = 'cpv_labels_en' | 'cpv_labels_el';

/** The stored document's fields as `_docs` columns (schema.ts, in the same order); NULL for no CPV labels. */
type DocColumns = { [K in Exclude<keyof StoredDocument, Optional>]: Column<StoredDocument[K]> } & { [K in Optional]: string | null };
/** A `_docs` row as read: the document's columns and the internal ones. */
type DocRow = DocColumns & { rid: bigint; pubkey: bigint; indexed_ms: bigint; ntok: bigint; snippet_text: string | null };

/** The metadata record's columns (document.ts METADATA_FIELDS): the fields as they are, no JSON among them. */
const METADATA_COLUMNS = METADATA_FIELDS.join(', ');

/** A hit's document as a search's view reads it (provider.ts TextQuery.view). */
export interface ViewedDoc {
  doc: StoredDocument | MetadataDocument;
  snippetText?: string;
}

/** Margin that keeps a list's cut-off below the first document left out, beyond any rounding. */
const CUT_MARGIN = 1e-12;
/** Margin required between a page's last score and the best score a document outside a list can have. */
const CERTIFY_MARGIN = 1e-9;

const nano = (q: number) => Math.round(q * 1e9);

export function rowToStored(row: DocRow): StoredDocument {
  const { rid: _rid, pubkey: _pubkey, indexed_ms: _indexedMs, ntok: _ntok, snippet_text: _snippet, ...fields } = row;
  const doc: Record<string, unknown> = fields;
  for (const key of JSON_COLUMNS) doc[key] = row[key] === null ? null : JSON.parse(row[key]);
  // Rows written before these columns existed (schema.ts addDocumentColumns) read as a document stored then.
  doc.parties ??= [];
  // A document without CPV labels has none in its stored form either (as Elasticsearch's `_source`).
  if (doc.cpv_labels_en === null) delete doc.cpv_labels_en;
  if (doc.cpv_labels_el === null) delete doc.cpv_labels_el;
  // Rows are read with safe integers (row ids): a count is a plain number.
  if (typeof row.tenders_received === 'bigint') doc.tenders_received = Number(row.tenders_received);
  return doc as StoredDocument;
}

export class TableSet {
  private readonly statements: Statements;
  readonly docs: string;
  readonly fts: string;
  readonly hot: string;
  readonly hotlist: string;
  /** Replica mismatches seen when building lists; should stay 0 (tests assert it). */
  static replicaMismatches = 0;
  /** The set's vectors, in the layout the set was created with. */
  readonly vectors: VectorStore;

  constructor(
    readonly db: Database,
    readonly name: string,
    readonly source: SourceName,
    readonly gen: number,
    /** The text version (text.ts) this set's rows are tokenized with. */
    readonly textVersion: number,
    private readonly tuning: Tuning,
    private readonly warn: (msg: string, extra?: object) => void,
  ) {
    this.statements = new Statements(db);
    this.docs = `"${name}_docs"`;
    this.fts = `"${name}_fts"`;
    this.vectors = openVectorStore(db, name);
    this.hot = `"${name}_hot"`;
    this.hotlist = `"${name}_hotlist"`;
  }

  /** Prepared statements, cached per table set; `safe` returns integers as BigInt (row ids). */
  private st(sql: string, safe = false): Statement {
    return this.statements.get(sql, safe);
  }

  // ---------------------------------------------------------------- writes

  beginWrite(): WriteContext {
    const ctx = new WriteContext();
    const rows = this.st(`SELECT term, df, a0, theta, n FROM ${this.hot}`).all() as {
      term: string;
      df: number;
      a0: number;
      theta: number | null;
      n: number;
    }[];
    for (const r of rows) ctx.hot.set(r.term, { df: r.df, a0: r.a0, theta: r.theta, n: r.n, dirty: false });
    return ctx;
  }

  endWrite(ctx: WriteContext): void {
    for (const [term, meta] of ctx.hot) {
      if (!meta.dirty) continue;
      if (meta.n > this.tuning.hotListMax) this.trim(term, meta);
      this.st(`UPDATE ${this.hot} SET df = ?, n = ?, theta = ? WHERE term = ?`).run(meta.df, meta.n, meta.theta, term);
      meta.dirty = false;
    }
    if (ctx.documentsDelta || ctx.qualityDelta) {
      this.st(`UPDATE generations SET documents = documents + ?, quality_nano = quality_nano + ? WHERE source = ? AND gen = ?`).run(
        ctx.documentsDelta,
        ctx.qualityDelta,
        this.source,
        this.gen,
      );
      ctx.documentsDelta = 0;
      ctx.qualityDelta = 0;
    }
  }

  findRow(sourceId: string): DocRow | undefined {
    return this.st(`SELECT * FROM ${this.docs} WHERE source_id = ?`, true).get(sourceId) as DocRow | undefined;
  }

  /** Inserts or overwrites `doc` (validated by the caller) by source_id. */
  write(doc: IndexedDocument, ctx: WriteContext): void {
    const seconds = isoSeconds(doc.published_at)!;
    const block = blockOfSeconds(seconds);
    const old = this.findRow(doc.source_id);
    if (old) {
      this.removeRow(old, ctx);
      // Same block and same source_id: the old slot is still between the same neighbours.
      if (Number(old.pubkey) === block) return this.insertRow(doc, old.rid, ctx);
    }
    this.insertRow(doc, this.allocate(block, doc.source_id, ctx), ctx);
  }

  /** Removes the document with `sourceId`; false when absent. */
  delete(sourceId: string, ctx: WriteContext): boolean {
    const old = this.findRow(sourceId);
    if (old) this.removeRow(old, ctx);
    return old !== undefined;
  }

  private allocate(block: number, sourceId: string, ctx: WriteContext): bigint {
    const pred = this.st(`SELECT rid FROM ${this.docs} WHERE pubkey = ? AND source_id < ? ORDER BY source_id DESC LIMIT 1`, true)
      .pluck()
      .get(block, sourceId) as bigint | undefined;
    const succ = this.st(`SELECT rid FROM ${this.docs} WHERE pubkey = ? AND source_id > ? ORDER BY source_id LIMIT 1`, true).pluck().get(block, sourceId) as
      | bigint
      | undefined;
    const seq = seqBetween(pred === undefined ? -1 : seqOf(pred), succ === undefined ? SEQ_SPACE : seqOf(succ));
    if (seq !== null) return makeRowid(block, seq);
    return this.renumber(block, sourceId, ctx);
  }

  /** Re-spreads the row ids of a block whose gap at `sourceId` is used up; returns the new document's id. */
  private renumber(block: number, sourceId: string, ctx: WriteContext): bigint {
    const rows = this.st(`SELECT * FROM ${this.docs} WHERE pubkey = ? ORDER BY source_id`, true).all(block) as DocRow[];
    const moved = rows.map((row) => ({ doc: { ...rowToStored(row), embedding: this.embedding(row.rid) } as IndexedDocument, row }));
    const order = [...rows.map((r) => r.source_id), sourceId].sort(compareCodePoints);
    const seqs = renumberedSeqs(order.length);
    const seqBySid = new Map(order.map((sid, i) => [sid, seqs[i]]));
    for (const { row } of moved) this.removeRow(row, ctx);
    for (const { doc } of moved) this.insertRow(doc, makeRowid(block, seqBySid.get(doc.source_id)!), ctx);
    this.warn('renumbered a publish-second block', { table: this.name, block, documents: order.length });
    return makeRowid(block, seqBySid.get(sourceId)!);
  }

  private insertRow(doc: IndexedDocument, rid: bigint, ctx: WriteContext): void {
    const text = docText(doc, this.textVersion);
    const ntok = text.title.length + text.body.length;
    const columns: DocColumns = {
      source_id: doc.source_id,
      source: doc.source,
      country: doc.country ?? '',
      title: doc.title ?? '',
      doc_type: doc.doc_type ?? '',
      doc_category: doc.doc_category ?? '',
      published_at: doc.published_at,
      source_url: doc.source_url ?? '',
      language: doc.language ?? '',
      quality_score: doc.quality_score,
      content: doc.content ?? '',
      summary: doc.summary ?? '',
      entities: JSON.stringify(doc.entities ?? { afm: [], ada: [], names: [] }),
      parties: JSON.stringify(doc.parties ?? []),
      procedure_type: doc.procedure_type ?? null,
      tenders_received: doc.tenders_received ?? null,
      act_date: doc.act_date ?? null,
      amount: doc.amount ? JSON.stringify(doc.amount) : null,
      cpv: JSON.stringify(doc.cpv ?? []),
      region: doc.region ?? null,
      sector: doc.sector ?? null,
      indexed_at: doc.indexed_at,
      content_hash: doc.content_hash ?? '',
      original: doc.original ? JSON.stringify(doc.original) : null,
      cpv_labels_en: doc.cpv_labels_en?.length ? JSON.stringify(doc.cpv_labels_en) : null,
      cpv_labels_el: doc.cpv_labels_el?.length ? JSON.stringify(doc.cpv_labels_el) : null,
    };
    const row = { rid, ...columns, pubkey: blockOf(rid), indexed_ms: Date.parse(doc.indexed_at), ntok, snippet_text: snippetText(doc.content) };
    const names = Object.keys(row);
    this.st(`INSERT INTO ${this.docs} (${names.join(', ')}) VALUES (${names.map((n) => `@${n}`).join(', ')})`).run(row);
    this.st(`INSERT INTO ${this.fts} (rowid, title, body) VALUES (?, ?, ?)`).run(rid, text.title.join(' '), text.body.join(' '));
    if (doc.embedding) {
      this.vectors.insert(rid, new Float32Array(doc.embedding));
      ctx.vectors += 1;
    }
    if (ctx.hot.size) {
      for (const [term, f] of termFrequencies(text, TITLE_WEIGHT, BODY_WEIGHT)) {
        const meta = ctx.hot.get(term);
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
    ctx.documentsDelta += 1;
    ctx.qualityDelta += nano(doc.quality_score);
    ctx.inserted += 1;
  }

  private removeRow(row: DocRow, ctx: WriteContext): void {
    // Contentless FTS5: a delete must repeat the indexed values, which docText() reproduces from the
    // stored fields, in the set's own text version.
    const text = docText(rowToStored(row), this.textVersion);
    this.st(`INSERT INTO ${this.fts} (${this.fts}, rowid, title, body) VALUES ('delete', ?, ?, ?)`).run(row.rid, text.title.join(' '), text.body.join(' '));
    const seq = this.vectors.remove(row.rid);
    if (seq !== null) {
      ctx.vectors -= 1;
      // The approximate index's next file leaves it out (vector-index.ts).
      if (seq > 0) this.st('INSERT INTO vector_removed (key) VALUES (?)').run(vectorKey(this, seq));
    }
    this.st(`DELETE FROM ${this.docs} WHERE rid = ?`).run(row.rid);
    if (ctx.hot.size) {
      for (const term of new Set([...text.title, ...text.body])) {
        const meta = ctx.hot.get(term);
        if (!meta) continue;
        meta.df -= 1;
        meta.dirty = true;
        meta.n -= this.st(`DELETE FROM ${this.hotlist} WHERE term = ? AND rid = ?`).run(term, row.rid).changes;
      }
    }
    ctx.documentsDelta -= 1;
    ctx.qualityDelta -= nano(row.quality_score);
    ctx.removed += 1;
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

  // ---------------------------------------------------------------- full-text reads

  totals(): TableTotals {
    const block = this.st(`SELECT block FROM "${this.name}_fts_data" WHERE id = 1`).pluck().get() as Buffer | undefined;
    return decodeAverages(block);
  }

  /**
   * The FTS5 conditions and parameters of a match inside a window and passing a filter (filter-sql.ts):
   * the filter reads `_docs` once into the set of row ids it keeps (`+rowid` keeps it out of FTS5, which
   * would otherwise start one search per id).
   */
  private filtered(match: string, rids: RidWindow | null, filter: FilterSql): { where: string; params: Record<string, unknown> } {
    const { from, to } = rids ?? ridWindow(null, null);
    return {
      where: `${this.fts} MATCH @match AND rowid >= @from AND rowid < @to AND +rowid IN (SELECT rid FROM ${this.docs} d WHERE ${filter.cond})`,
      params: { ...filter.params, match, from, to },
    };
  }

  /** Matches of `match`, those with a row id in `rids` when given (a published_at window, keys.ts ridWindow) and passing `filter`. */
  count(match: string, rids: RidWindow | null = null, filter: FilterSql | null = null): number {
    if (filter) {
      const { where, params } = this.filtered(match, rids, filter);
      return Number(this.st(`SELECT count(*) FROM ${this.fts} WHERE ${where}`, true).pluck().get(params) as bigint);
    }
    if (rids) {
      return Number(
        this.st(`SELECT count(*) FROM ${this.fts} WHERE ${this.fts} MATCH ? AND rowid >= ? AND rowid < ?`, true)
          .pluck()
          .get(match, rids.from, rids.to) as bigint,
      );
    }
    return this.st(`SELECT count(*) FROM ${this.fts} WHERE ${this.fts} MATCH ?`).pluck().get(match) as number;
  }

  /** The best `k` matches by bm25 (title weighted), ties by row id (= published_at desc, source_id asc). */
  rank(match: string, k: number, rids: RidWindow | null = null, filter: FilterSql | null = null): Ranked[] {
    if (k <= 0) return [];
    const score = `bm25(${this.fts}, ${TITLE_WEIGHT.toFixed(1)}, ${BODY_WEIGHT.toFixed(1)})`;
    if (filter) {
      const { where, params } = this.filtered(match, rids, filter);
      return this.st(`SELECT rowid AS rid, ${score} AS s FROM ${this.fts} WHERE ${where} ORDER BY s, rid LIMIT @k`, true).all({ ...params, k }) as Ranked[];
    }
    if (rids) {
      return this.st(
        `SELECT rowid AS rid, ${score} AS s FROM ${this.fts} WHERE ${this.fts} MATCH ? AND rowid >= ? AND rowid < ? ORDER BY s, rid LIMIT ?`,
        true,
      ).all(match, rids.from, rids.to, k) as Ranked[];
    }
    return this.st(`SELECT rowid AS rid, ${score} AS s FROM ${this.fts} WHERE ${this.fts} MATCH ? ORDER BY s, rid LIMIT ?`, true).all(match, k) as Ranked[];
  }

  /**
   * The best `k` of the matches whose row id is in `rids`, as rank() scores them: FTS5 walks every match
   * but scores only these (`+rowid` keeps the filter out of FTS5, which would otherwise start one
   * search, with its IDF scans, per id).
   */
  rankAmong(match: string, rids: Iterable<bigint>, k: number, window: RidWindow | null = null): Ranked[] {
    if (k <= 0) return [];
    const { from, to } = window ?? ridWindow(null, null);
    return this.st(
      `SELECT rowid AS rid, bm25(${this.fts}, ${TITLE_WEIGHT.toFixed(1)}, ${BODY_WEIGHT.toFixed(1)}) AS s
         FROM ${this.fts} WHERE ${this.fts} MATCH ? AND rowid >= ? AND rowid < ? AND +rowid IN (SELECT value FROM json_each(?))
         ORDER BY s, rid LIMIT ?`,
      true,
    ).all(match, from, to, `[${[...rids].join(',')}]`, k) as Ranked[];
  }

  /** Row ids of the first `limit` matches, in row-id order. */
  matchIds(match: string, limit: number): bigint[] {
    return this.st(`SELECT rowid FROM ${this.fts} WHERE ${this.fts} MATCH ? LIMIT ?`, true).pluck().all(match, limit) as bigint[];
  }

  /**
   * Documents holding `term`: its list's document frequency, kept exact by every write, where it has a
   * list (a frequent term's count walks its whole posting list), FTS5's count otherwise.
   */
  termCount(term: string): number {
    const df = this.st(`SELECT df FROM ${this.hot} WHERE term = ?`).pluck().get(term) as number | undefined;
    return df ?? this.count(`"${term}"`);
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
    const e = this.hotEntries(term, limit);
    return { df: h.df, rid: e.rid, f: e.f, dl: e.dl, outsideCost: h.theta === null ? null : h.theta * Math.min(1, h.a0 / avg) };
  }

  /** The first `k` matches in row-id order (published_at desc, source_id asc), all with score 0. */
  firstInOrder(match: string, k: number, rids: RidWindow | null = null, filter: FilterSql | null = null): Ranked[] {
    if (k <= 0) return [];
    if (filter) {
      const { where, params } = this.filtered(match, rids, filter);
      return this.st(`SELECT rowid AS rid, 0.0 AS s FROM ${this.fts} WHERE ${where} ORDER BY rowid LIMIT @k`, true).all({ ...params, k }) as Ranked[];
    }
    if (rids) {
      return this.st(`SELECT rowid AS rid, 0.0 AS s FROM ${this.fts} WHERE ${this.fts} MATCH ? AND rowid >= ? AND rowid < ? ORDER BY rowid LIMIT ?`, true).all(
        match,
        rids.from,
        rids.to,
        k,
      ) as Ranked[];
    }
    return this.st(`SELECT rowid AS rid, 0.0 AS s FROM ${this.fts} WHERE ${this.fts} MATCH ? ORDER BY rowid LIMIT ?`, true).all(match, k) as Ranked[];
  }

  /** The first `limit` entries of a term's list in c0 order (all of them when limit is null). */
  private hotEntries(term: string, limit: number | null): { rid: bigint[]; f: Float64Array; dl: Float64Array; c0: Float64Array } {
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
  hotTop(term: string, k: number): HotResult {
    const h = this.st(`SELECT df, a0, theta, n FROM ${this.hot} WHERE term = ?`).get(term) as
      | { df: number; a0: number; theta: number | null; n: number }
      | undefined;
    if (!h) return { kind: 'cold' };
    if (h.theta === null && h.n !== h.df) return { kind: 'stale' };
    if (h.df === 0) return { kind: 'ok', total: 0, top: [] };
    if (h.theta !== null && h.n < k) return { kind: 'stale' };
    const totals = this.totals();
    const avg = avgdl(totals);
    const shrink = Math.min(1, h.a0 / avg);
    const idfValue = idf(this.db, totals.rows, h.df);
    const prefix = Math.max(2 * k, k + 64);
    for (const limit of prefix < h.n ? [prefix, null] : [null]) {
      const e = this.hotEntries(term, limit);
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
   * (Re)builds the impact list of `term` from FTS5's own ranking (call inside a write transaction).
   * Returns false, and leaves no list, when the term is below hotMinDf or FTS5's scores are not
   * reproduced exactly (then the term is simply always ranked by FTS5).
   */
  buildHotList(term: string): boolean {
    const match = `"${term}"`;
    const df = this.count(match);
    this.st(`DELETE FROM ${this.hotlist} WHERE term = ?`).run(term);
    this.st(`DELETE FROM ${this.hot} WHERE term = ?`).run(term);
    if (df < this.tuning.hotMinDf) return false;
    const size = this.tuning.hotListSize;
    const ranked = this.rank(match, size + 1);
    const totals = this.totals();
    const avg = avgdl(totals);
    const idfValue = idf(this.db, totals.rows, df);
    // f is recovered from FTS5's own score (s = -idf·f·(k1+1)/(f + k1·L) solved for f, rounded to the
    // integer it must be) and accepted only if the replica then gives back exactly s: no document is
    // re-tokenized, and any disagreement with FTS5 leaves the term on the FTS5 path.
    const lengthOf = this.st(`SELECT ntok FROM ${this.docs} WHERE rid = ?`, true).pluck();
    const entries: { rid: bigint; f: number; dl: number }[] = [];
    for (const r of ranked) {
      const dl = Number(lengthOf.get(r.rid) as bigint);
      const x = -r.s / idfValue;
      const f = Math.round((K1 * (1 - B + (B * dl) / avg) * x) / (K1 + 1.0 - x));
      if (!(f >= 1) || bm25Score(idfValue, f, dl, avg) !== r.s) {
        TableSet.replicaMismatches += 1;
        this.warn('bm25 replica differs from FTS5; the term stays on the FTS5 path', { table: this.name, term });
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
    const vocab = `"${this.name}_vocab"`;
    this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${vocab} USING fts5vocab(main, '${this.name}_fts', 'row')`);
    try {
      // The gap, the unstemmed copies (only prefixes read those) and the Latin keys (only ever one of
      // a query word's alternatives) get no list.
      return this.db
        .prepare(`SELECT term FROM temp.${vocab} WHERE doc >= ? AND term != ? AND substr(term, 1, 1) NOT IN (?, ?)`)
        .pluck()
        .all(minDf, VALUE_GAP, RAW_MARK, LATIN_MARK) as string[];
    } finally {
      this.db.exec(`DROP TABLE IF EXISTS temp.${vocab}`);
    }
  }

  hotTerms(): string[] {
    return this.st(`SELECT term FROM ${this.hot}`).pluck().all() as string[];
  }

  /** FTS5 'optimize': merges the index segments into one (faster small queries, slower writes after). */
  optimize(): void {
    this.db.exec(`INSERT INTO ${this.fts} (${this.fts}) VALUES ('optimize')`);
  }

  // ---------------------------------------------------------------- documents, listings, vectors

  fetch(rid: bigint): StoredDocument {
    return rowToStored(this.st(`SELECT * FROM ${this.docs} WHERE rid = ?`, true).get(rid) as DocRow);
  }

  /** The document of `rid` as `view` reads it: the metadata columns alone, with the snippet text, or whole. */
  viewed(rid: bigint, view: TextQuery['view']): ViewedDoc {
    if (view === 'metadata') return { doc: this.st(`SELECT ${METADATA_COLUMNS} FROM ${this.docs} WHERE rid = ?`).get(rid) as MetadataDocument };
    if (view !== 'snippet') return { doc: this.fetch(rid) };
    // A row written before the column (schema 8) has none: cut from its content, read for it alone.
    const { snippet_text, content, ...doc } = this.st(
      `SELECT ${METADATA_COLUMNS}, snippet_text, CASE WHEN snippet_text IS NULL THEN content END AS content FROM ${this.docs} WHERE rid = ?`,
    ).get(rid) as MetadataDocument & { snippet_text: string | null; content: string | null };
    return { doc, snippetText: snippet_text ?? snippetText(content) };
  }

  sourceIdOf(rid: bigint): string {
    return this.st(`SELECT source_id FROM ${this.docs} WHERE rid = ?`, true).pluck().get(rid) as string;
  }

  find(sourceId: string): { doc: StoredDocument; rid: bigint } | null {
    const row = this.findRow(sourceId);
    return row ? { doc: rowToStored(row), rid: row.rid } : null;
  }

  /** Row ids in listing order (published_at desc, source_id asc) inside a published_at window, passing `filter`. */
  listFiltered(rids: RidWindow | null, filter: FilterSql | null, limit: number, offset: number): { total: number; rids: bigint[] } {
    const { from, to } = rids ?? ridWindow(null, null);
    const where = `d.rid >= @from AND d.rid < @to${filter ? ` AND ${filter.cond}` : ''}`;
    const params = { ...filter?.params, from, to };
    const total = Number(this.st(`SELECT count(*) FROM ${this.docs} d WHERE ${where}`, true).pluck().get(params) as bigint);
    const page = this.st(`SELECT d.rid FROM ${this.docs} d WHERE ${where} ORDER BY d.rid LIMIT @limit OFFSET @offset`, true)
      .pluck()
      .all({ ...params, limit, offset }) as bigint[];
    return { total, rids: page };
  }

  /** Row ids in listing order (published_at desc, source_id asc); the total is the set's own count. */
  list(limit: number, offset: number): { total: number; rids: bigint[] } {
    const rids = this.st(`SELECT rid FROM ${this.docs} ORDER BY pubkey, source_id LIMIT ? OFFSET ?`, true).pluck().all(limit, offset) as bigint[];
    return { total: this.documents(), rids };
  }

  /**
   * The row id of the first document after (published_at second's block, source_id) in listing order,
   * or null when none is after it: where an export goes on in this set (keys.ts).
   */
  firstAfter(block: number, sourceId: string): bigint | null {
    return (
      (this.st(`SELECT rid FROM ${this.docs} WHERE (pubkey, source_id) > (?, ?) ORDER BY pubkey, source_id LIMIT 1`, true).pluck().get(block, sourceId) as
        | bigint
        | undefined) ?? null
    );
  }

  /**
   * Up to `size` documents from row id `from` on, in listing order, inside a window, passing `filter`
   * and, with `match`, matching it: FTS5 walks its matches in row-id order and stops at `size`.
   */
  exportRows(match: string | null, from: bigint, rids: RidWindow | null, filter: FilterSql | null, size: number): ExportedRow[] {
    const { from: low, to } = rids ?? ridWindow(null, null);
    const cols = `d.rid, ${[...METADATA_FIELDS, ...EXPORT_FIELDS].map((c) => `d.${c}`).join(', ')}`;
    const where = `d.rid >= @from AND d.rid < @to${filter ? ` AND ${filter.cond}` : ''}`;
    const params = { ...filter?.params, from: from > low ? from : low, to, size };
    const sql =
      match === null
        ? `SELECT ${cols} FROM ${this.docs} d WHERE ${where} ORDER BY d.rid LIMIT @size`
        : `SELECT ${cols} FROM ${this.fts} f JOIN ${this.docs} d ON d.rid = f.rowid WHERE ${this.fts} MATCH @match AND f.rowid >= @from AND f.rowid < @to AND ${where}
           ORDER BY f.rowid LIMIT @size`;
    const rows = this.st(sql, true).all(match === null ? params : { ...params, match }) as (Record<string, unknown> & { rid: bigint })[];
    return rows.map(({ rid, ...row }) => ({
      rid,
      row: {
        ...row,
        parties: row.parties === null ? [] : JSON.parse(row.parties as string),
        amount: row.amount === null ? null : JSON.parse(row.amount as string),
        cpv: JSON.parse(row.cpv as string),
        tenders_received: row.tenders_received === null ? null : Number(row.tenders_received),
      } as unknown as ExportRow,
    }));
  }

  /** The k nearest vectors, by exact distance, of the documents inside a published_at window that pass `filter`. */
  nearestWhere(query: Float32Array, k: number, rids: RidWindow | null, filter: FilterSql | null): Ranked[] {
    const { from, to } = rids ?? ridWindow(null, null);
    const where = `d.rid >= @from AND d.rid < @to${filter ? ` AND ${filter.cond}` : ''}`;
    return this.vectors.exactWhere(query, k, this.docs, where, { ...filter?.params, from, to }).map((n) => ({ rid: n.rid, s: n.distance }));
  }

  embedding(rid: bigint): number[] | null {
    const vector = this.vectors.get(rid);
    return vector ? Array.from(vector) : null;
  }

  documents(): number {
    return this.st(`SELECT documents FROM generations WHERE source = ? AND gen = ?`).pluck().get(this.source, this.gen) as number;
  }

  stats(): SourceStats {
    const g = this.st(`SELECT documents, quality_nano FROM generations WHERE source = ? AND gen = ?`).get(this.source, this.gen) as {
      documents: number;
      quality_nano: number;
    };
    const last = this.st(`SELECT indexed_at FROM ${this.docs} ORDER BY indexed_ms DESC LIMIT 1`).pluck().get() as string | undefined;
    return {
      documents: g.documents,
      last_updated: last ?? null,
      avg_quality: g.documents ? g.quality_nano / 1e9 / g.documents : null,
    };
  }

  /**
   * The documents indexed at or after `sinceMs` (vector included) that `other` lacks or holds with
   * another content hash: what a rebuild catches up from the serving set.
   */
  changedSince(sinceMs: number, other: TableSet): IndexedDocument[] {
    const rids = this.st(`SELECT rid FROM ${this.docs} WHERE indexed_ms >= ?`, true).pluck().all(sinceMs) as bigint[];
    const out: IndexedDocument[] = [];
    for (const rid of rids) {
      const doc = this.fetch(rid);
      if (other.findRow(doc.source_id)?.content_hash === doc.content_hash) continue;
      out.push({ ...doc, embedding: this.embedding(rid) });
    }
    return out;
  }

  /** Row counts of the three stores, for the rebuild's verification (inside a write transaction). */
  counts(): { docs: number; fts: number; vec: number } {
    // FTS5 writes its row total when it flushes its pending terms (at commit): flushed now, so the
    // total counts this transaction's writes too.
    this.db.exec(`INSERT INTO ${this.fts} (${this.fts}) VALUES ('flush')`);
    return {
      docs: this.st(`SELECT count(*) FROM ${this.docs}`).pluck().get() as number,
      fts: this.totals().rows,
      vec: this.vectors.count(),
    };
  }
}

/** The c0 just after a prefix read: the last one read bounds every unread entry (they sort after it). */
function nextC0(c0: Float64Array): number {
  return c0.length ? c0[c0.length - 1] : Number.POSITIVE_INFINITY;
}
