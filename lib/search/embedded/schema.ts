// Tables of the embedded index.
//
// Global: `meta` (schema version; text version of the newest build that opened the index, which an
// older build refuses; embedding model and dimension; each table set's own text version) and
// `generations` (one row per table set; exactly one `serving` per source). Per source and generation,
// a *table set* named `s_<source>_<gen>` — the embedded counterpart of Elasticsearch's physical index
// per source:
//   _docs     every field of the document (JSON for arrays and objects) and its snippet text, keyed by
//             the ordering row id
//   _fts      FTS5, contentless, columns (title, body), over folded tokens (text.ts)
//   _vectors  the float32 vectors by seq, from which the one approximate index of every source is built
//             (vectors.ts, vector-index.ts; older sets: _ivf, or _vec, sqlite-vec vec0)
//   _hot      common terms with an impact list: df, the avgdl the list was cut at, the cut-off
//   _hotlist  per common term, its best documents with their term frequency, length and cost
//   _facts, _keys  what filters select on and aggregates group by, beside the long `_docs` row (facts.ts)
// Per-source sets give per-source BM25 statistics (as Elasticsearch's per-index statistics), a free
// source filter, and a rebuild that is a one-row swap in `generations`.
import type { Database } from 'better-sqlite3';
import { createSideTables, fillSideTables, SIDE_TABLE_SUFFIXES } from './facts.js';
import { VECTOR_TABLE_SUFFIXES, createVectorTables, forgetVectorLayout, recordVectorLayout } from './vectors.js';

/**
 * 4: table sets hold their vectors by seq, and one approximate index file covers them (vector-index.ts).
 * Indexes of versions 2 and 3 still open (their sets keep layouts 1 and 2, scanned exactly); an older
 * build refuses a version 4 index.
 * 5: `_docs` has the columns parties, procedure_type, tenders_received and act_date. Sets of an index
 * of version 2 to 4 get them on open (addDocumentColumns), empty until `pdi reindex` writes them.
 * 6: `_docs` has the column cpv_labels_en (the English labels of the document's CPV codes), added on open
 * to the sets of older indexes, as in 5.
 * 7: `_docs` has the column cpv_labels_el (their Greek labels), added on open, as in 5.
 * 8: `_docs` has the column snippet_text (snippet.ts snippetText), before content in new sets so a page
 * of snippets never reads a long content's overflow pages; added on open to older sets, where a row
 * written before has none and its snippet text is cut from its content when read.
 * 9: each set has the side tables `_facts` and `_keys` (facts.ts); the sets of an older index get them on
 * open, filled from their stored rows.
 */
export const SCHEMA_VERSION = '9';

/** The `_docs` columns schemas 5 to 8 added, with their types, for sets made before. */
const ADDED_DOCUMENT_COLUMNS: [string, string][] = [
  ['parties', 'TEXT'],
  ['procedure_type', 'TEXT'],
  ['tenders_received', 'INTEGER'],
  ['act_date', 'TEXT'],
  ['cpv_labels_en', 'TEXT'],
  ['cpv_labels_el', 'TEXT'],
  ['snippet_text', 'TEXT'],
];

/**
 * Adds to every table set the `_docs` columns it lacks (call in the transaction that records the
 * schema version). ADD COLUMN rewrites nothing: old rows read the columns as NULL.
 */
export function addDocumentColumns(db: Database): void {
  for (const name of existingTableSets(db)) {
    const have = new Set(db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(`${name}_docs`) as string[]);
    for (const [column, type] of ADDED_DOCUMENT_COLUMNS) if (!have.has(column)) db.exec(`ALTER TABLE "${name}_docs" ADD COLUMN ${column} ${type}`);
  }
}

/**
 * Gives every table set made before schema 9 its side tables, filled from its stored rows (call in the
 * transaction that records the schema version, after addDocumentColumns). A set's tables are made and
 * filled in that one transaction, so a set that has them has them whole. About 10 s for 100,000
 * documents.
 */
export function addSideTables(db: Database): void {
  for (const name of existingTableSets(db)) {
    const have = db.prepare(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`).pluck().get(`${name}_facts`);
    if (have === 0) fillSideTables(db, name);
  }
}

export function createGlobalTables(db: Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS generations (
      source      TEXT NOT NULL,
      gen         INTEGER NOT NULL,
      state       TEXT NOT NULL CHECK (state IN ('serving', 'staging', 'retired')),
      documents   INTEGER NOT NULL DEFAULT 0,
      -- sum of quality_score in units of 1e-9, an integer so that inserts and deletes cancel exactly
      quality_nano INTEGER NOT NULL DEFAULT 0,
      created_at  TEXT NOT NULL,
      PRIMARY KEY (source, gen)
    );
    CREATE UNIQUE INDEX IF NOT EXISTS generations_one_serving ON generations (source) WHERE state = 'serving';
    -- keys of vectors deleted since the approximate index's file was written (vector-index.ts)
    CREATE TABLE IF NOT EXISTS vector_removed (id INTEGER PRIMARY KEY, key INTEGER NOT NULL);
  `);
}

export function tableSetName(source: string, gen: number): string {
  if (!/^[a-z_]+$/.test(source) || !Number.isInteger(gen)) throw new Error(`bad table set ${source}/${gen}`);
  return `s_${source}_${gen}`;
}

/** Where `meta` records the text version (text.ts) a table set is written with. */
function textVersionKey(name: string): string {
  return `text_version:${name}`;
}

/** A set's text version; sets made before sets recorded one were all written with version 1. */
export function tableSetTextVersion(db: Database, name: string): number {
  const value = db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(textVersionKey(name)) as string | undefined;
  return value === undefined ? 1 : Number(value);
}

export function createTableSet(db: Database, name: string, textVersion: number): void {
  db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(textVersionKey(name), String(textVersion));
  db.exec(`
    CREATE TABLE "${name}_docs" (
      rid           INTEGER PRIMARY KEY,
      source_id     TEXT NOT NULL UNIQUE,
      source        TEXT NOT NULL,
      country       TEXT NOT NULL,
      title         TEXT NOT NULL,
      doc_type      TEXT NOT NULL,
      doc_category  TEXT NOT NULL,
      published_at  TEXT NOT NULL,
      source_url    TEXT NOT NULL,
      language      TEXT NOT NULL,
      quality_score REAL NOT NULL,
      -- internal: the text a result's snippet is cut from (snippet.ts snippetText)
      snippet_text  TEXT,
      content       TEXT NOT NULL,
      summary       TEXT NOT NULL,
      entities      TEXT NOT NULL,
      parties       TEXT,
      procedure_type TEXT,
      tenders_received INTEGER,
      act_date      TEXT,
      amount        TEXT,
      cpv           TEXT NOT NULL,
      region        TEXT,
      sector        TEXT,
      indexed_at    TEXT NOT NULL,
      content_hash  TEXT NOT NULL,
      original      TEXT,
      cpv_labels_en TEXT,
      cpv_labels_el TEXT,
      -- internal: the row id's block (publish second, descending), indexed_at in ms, token count
      pubkey        INTEGER NOT NULL,
      indexed_ms    INTEGER NOT NULL,
      ntok          INTEGER NOT NULL
    );
    CREATE INDEX "${name}_docs_order" ON "${name}_docs" (pubkey, source_id);
    CREATE INDEX "${name}_docs_indexed" ON "${name}_docs" (indexed_ms);
    CREATE VIRTUAL TABLE "${name}_fts" USING fts5 (title, body, content = '', tokenize = 'ascii');
    CREATE TABLE "${name}_hot" (
      term  TEXT PRIMARY KEY,
      df    INTEGER NOT NULL,
      a0    REAL NOT NULL,
      theta REAL,
      n     INTEGER NOT NULL
    ) WITHOUT ROWID;
    -- c0: the entry's cost at the list's a0, the order entries are read in (best first)
    CREATE TABLE "${name}_hotlist" (
      term TEXT NOT NULL,
      c0   REAL NOT NULL,
      rid  INTEGER NOT NULL,
      f    INTEGER NOT NULL,
      dl   INTEGER NOT NULL,
      PRIMARY KEY (term, c0, rid)
    ) WITHOUT ROWID;
    CREATE UNIQUE INDEX "${name}_hotlist_rid" ON "${name}_hotlist" (term, rid);
  `);
  createSideTables(db, name);
  createVectorTables(db, name);
  recordVectorLayout(db, name);
}

export function dropTableSet(db: Database, name: string): void {
  for (const suffix of ['hotlist', 'hot', ...SIDE_TABLE_SUFFIXES, ...VECTOR_TABLE_SUFFIXES, 'fts', 'docs']) db.exec(`DROP TABLE IF EXISTS "${name}_${suffix}"`);
  db.prepare('DELETE FROM meta WHERE key = ?').run(textVersionKey(name));
  forgetVectorLayout(db, name);
}

/** Table set names present in the schema (from the `_docs` tables). */
export function existingTableSets(db: Database): string[] {
  const rows = db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name GLOB 's_*_docs'`).all() as { name: string }[];
  return rows.map((r) => r.name.slice(0, -'_docs'.length));
}
