// One source's generation of the embedded index (schema.ts): writes, rankings, listings, vectors; its
// common-term lists in hot-lists.ts. All methods are synchronous and expect the caller to hold the right
// transaction (index-file.ts read and write).
import type { Database, Statement } from 'better-sqlite3';
import type { IndexedDocument } from '../../../index-mappings/document.js';
import type { SourceName } from '../../../index-mappings/sources.js';
import { EXPORT_FIELDS, type ExportRow, type MetadataDocument, type SourceStats, type StoredDocument, type TextQuery } from '../provider.js';
import { METADATA_FIELDS } from '../../../index-mappings/document.js';
import { columnsOf, exportRowOf, METADATA_COLUMNS, rowToStored, type DocRow } from './doc-rows.js';
import { BODY_WEIGHT, TITLE_WEIGHT } from '../../../index-mappings/ranking.js';
import { decodeAverages, type TableTotals } from './bm25.js';
import { blockOf, blockOfSeconds, isoSeconds, makeRowid, renumberedSeqs, ridWindow, seqBetween, seqOf, SEQ_SPACE, type RidWindow } from './keys.js';
import { compareCodePoints, docText } from './text.js';
import { HotLists, type HotWrite } from './hot-lists.js';
import { Statements } from './statements.js';
import { SideTables } from './facts.js';
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

/** State of one write transaction on a table set; flushed by endWrite(). */
export class WriteContext {
  constructor(readonly hot: HotWrite) {}
  documentsDelta = 0;
  qualityDelta = 0;
  inserted = 0;
  removed = 0;
  /** Net change in stored vectors. */
  vectors = 0;
}

/** A hit's document as a search's view reads it (provider.ts TextQuery.view). */
export interface ViewedDoc {
  doc: StoredDocument | MetadataDocument;
  snippetText?: string;
}

const nano = (q: number) => Math.round(q * 1e9);

export class TableSet {
  private readonly statements: Statements;
  readonly docs: string;
  readonly fts: string;
  /** The set's common-term lists. */
  readonly lists: HotLists;
  /** The set's vectors, in the layout the set was created with. */
  readonly vectors: VectorStore;
  /** The set's analysis side tables (facts.ts): `side.facts`, `side.keys`. */
  readonly side: SideTables;

  constructor(
    readonly db: Database,
    readonly name: string,
    readonly source: SourceName,
    readonly gen: number,
    /** The text version (text.ts) this set's rows are tokenized with. */
    readonly textVersion: number,
    tuning: Tuning,
    private readonly warn: (msg: string, extra?: object) => void,
  ) {
    this.statements = new Statements(db);
    this.docs = `"${name}_docs"`;
    this.fts = `"${name}_fts"`;
    this.vectors = openVectorStore(db, name);
    this.side = new SideTables(db, name);
    this.lists = new HotLists(this, tuning, warn);
  }

  /** Prepared statements, cached per table set; `safe` returns integers as BigInt (row ids). */
  private st(sql: string, safe = false): Statement {
    return this.statements.get(sql, safe);
  }

  // ---------------------------------------------------------------- writes

  beginWrite(): WriteContext {
    return new WriteContext(this.lists.load());
  }

  endWrite(ctx: WriteContext): void {
    this.lists.flush(ctx.hot);
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
    const columns = columnsOf(doc);
    const row = { rid, ...columns, pubkey: blockOf(rid), indexed_ms: Date.parse(doc.indexed_at), ntok, snippet_text: snippetText(doc.content) };
    const names = Object.keys(row);
    this.st(`INSERT INTO ${this.docs} (${names.join(', ')}) VALUES (${names.map((n) => `@${n}`).join(', ')})`).run(row);
    this.st(`INSERT INTO ${this.fts} (rowid, title, body) VALUES (?, ?, ?)`).run(rid, text.title.join(' '), text.body.join(' '));
    this.side.write(rid, doc);
    if (doc.embedding) {
      this.vectors.insert(rid, new Float32Array(doc.embedding));
      ctx.vectors += 1;
    }
    this.lists.added(ctx.hot, text, rid, ntok);
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
    this.side.remove(row.rid);
    this.lists.removed(ctx.hot, text, row.rid);
    ctx.documentsDelta -= 1;
    ctx.qualityDelta -= nano(row.quality_score);
    ctx.removed += 1;
  }

  // ---------------------------------------------------------------- full-text reads

  totals(): TableTotals {
    const block = this.st(`SELECT block FROM "${this.name}_fts_data" WHERE id = 1`).pluck().get() as Buffer | undefined;
    return decodeAverages(block);
  }

  /**
   * The FTS5 conditions and parameters of a match inside a window and passing a filter (filter-sql.ts):
   * each condition is read once into the set of row ids it keeps (`+rowid` keeps it out of FTS5, which
   * would otherwise start one search per id).
   */
  private filtered(match: string, rids: RidWindow | null, filter: FilterSql): { where: string; params: Record<string, unknown> } {
    const { from, to } = rids ?? ridWindow(null, null);
    return {
      where: `${this.fts} MATCH @match AND rowid >= @from AND rowid < @to AND ${filter.cond(this.side, '+rowid')}`,
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

  /** FTS5 'optimize': merges the index segments into one (faster small queries, slower writes after). */
  optimize(): void {
    this.db.exec(`INSERT INTO ${this.fts} (${this.fts}) VALUES ('optimize')`);
  }

  // ---------------------------------------------------------------- documents, listings, vectors

  /** The tokens of the document at `rid` (its length in BM25). */
  tokenCount(rid: bigint): number {
    return Number(this.st(`SELECT ntok FROM ${this.docs} WHERE rid = ?`, true).pluck().get(rid) as bigint);
  }

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
    const where = `d.rid >= @from AND d.rid < @to${filter ? ` AND ${filter.cond(this.side, 'd.rid')}` : ''}`;
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
   * The row ids and source_ids of up to `size` documents from row id `from` on, in listing order, inside
   * a window, passing `filter` and, with `match`, matching it: FTS5 walks its matches in row-id order
   * and stops at `size`. An export merges the sets' keys, then reads the rows it keeps (exportRow).
   */
  exportKeys(match: string | null, from: bigint, rids: RidWindow | null, filter: FilterSql | null, size: number): { rid: bigint; sid: string }[] {
    const { from: low, to } = rids ?? ridWindow(null, null);
    const where = `d.rid >= @from AND d.rid < @to${filter ? ` AND ${filter.cond(this.side, 'd.rid')}` : ''}`;
    const params = { ...filter?.params, from: from > low ? from : low, to, size };
    const sql =
      match === null
        ? `SELECT d.rid, d.source_id AS sid FROM ${this.side.facts} d WHERE ${where} ORDER BY d.rid LIMIT @size`
        : `SELECT d.rid, d.source_id AS sid FROM ${this.fts} f JOIN ${this.side.facts} d ON d.rid = f.rowid WHERE ${this.fts} MATCH @match AND f.rowid >= @from AND f.rowid < @to AND ${where}
           ORDER BY f.rowid LIMIT @size`;
    return this.st(sql, true).all(match === null ? params : { ...params, match }) as { rid: bigint; sid: string }[];
  }

  /** An export's row of the document at `rid` (its metadata and EXPORT_FIELDS). */
  exportRow(rid: bigint): ExportRow {
    const cols = [...METADATA_FIELDS, ...EXPORT_FIELDS].map((c) => `d.${c}`).join(', ');
    return exportRowOf(this.st(`SELECT ${cols} FROM ${this.docs} d WHERE d.rid = ?`, true).get(rid) as Record<string, unknown>);
  }

  /** The k nearest vectors, by exact distance, of the documents inside a published_at window that pass `filter`. */
  nearestWhere(query: Float32Array, k: number, rids: RidWindow | null, filter: FilterSql | null): Ranked[] {
    const { from, to } = rids ?? ridWindow(null, null);
    const where = `d.rid >= @from AND d.rid < @to${filter ? ` AND ${filter.cond(this.side, 'd.rid')}` : ''}`;
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
