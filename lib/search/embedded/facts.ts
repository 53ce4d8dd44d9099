// A table set's analysis side tables (schema.ts): what the filters select on and the aggregates group by,
// kept beside `_docs` so that neither reads a document's JSON nor its long row:
//   _facts  a narrow row per document: its row id, source_id, published_at, the single-valued keys and
//           the numbers an aggregate sums (tenders received, the amount in EUR)
//   _keys   a row per document and each of its multi-valued keys (index-mappings/analysis.ts
//           analysisKeysOf: buyer, supplier, party, cpv, cpv_division, cpv_group) and each ΑΔΑ it
//           carries (the contract-value rule's links), indexed by key and by row id
// Written by the code that writes the `_docs` row (table-set.ts), from the same document, so a rebuild
// fills them; the sets of an index made before them are filled on open (fillSideTables).
import type { Database, Statement } from 'better-sqlite3';
import { analysisKeysOf } from '../../../index-mappings/analysis.js';
import type { IndexedDocument } from '../../../index-mappings/document.js';
import type { StoredDocument } from '../provider.js';
import { rowToStored, type DocRow } from './doc-rows.js';

/** The kinds of `_keys` rows: the multi-valued analysis keys, and `ada`. */
export const KEY_KINDS = ['buyer', 'supplier', 'party', 'cpv', 'cpv_division', 'cpv_group', 'ada'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

/** The `_facts` columns of a document, as the aggregates and filters read them. */
export interface FactsRow {
  source_id: string;
  published_at: string;
  doc_category: string;
  procedure_type: string | null;
  region: string | null;
  tenders_received: number | null;
  /** The amount's value when its currency is EUR, else null. */
  eur: number | null;
}

export const SIDE_TABLE_SUFFIXES = ['keys', 'facts'] as const;

export function createSideTables(db: Database, name: string): void {
  db.exec(`
    CREATE TABLE "${name}_facts" (
      rid              INTEGER PRIMARY KEY,
      source_id        TEXT NOT NULL,
      published_at     TEXT NOT NULL,
      doc_category     TEXT NOT NULL,
      procedure_type   TEXT,
      region           TEXT,
      tenders_received INTEGER,
      eur              REAL
    );
    CREATE TABLE "${name}_keys" (
      kind TEXT NOT NULL,
      key  TEXT NOT NULL,
      rid  INTEGER NOT NULL,
      PRIMARY KEY (kind, key, rid)
    ) WITHOUT ROWID;
    CREATE INDEX "${name}_keys_rid" ON "${name}_keys" (rid, kind);
  `);
}

/** The `_facts` row of a document (stored as `_docs` stores it: doc-rows.ts columnsOf). */
export function factsOf(doc: StoredDocument | IndexedDocument): FactsRow {
  return {
    source_id: doc.source_id,
    published_at: doc.published_at,
    doc_category: doc.doc_category ?? '',
    procedure_type: doc.procedure_type ?? null,
    region: doc.region ?? null,
    tenders_received: doc.tenders_received ?? null,
    eur: doc.amount?.currency === 'EUR' && typeof doc.amount.value === 'number' ? doc.amount.value : null,
  };
}

/** The `_keys` rows of a document, each [kind, key] once. */
export function keyRowsOf(doc: StoredDocument | IndexedDocument): [KeyKind, string][] {
  const keys = analysisKeysOf(doc);
  const rows: [KeyKind, string][] = [];
  for (const kind of KEY_KINDS) {
    const values = kind === 'ada' ? new Set((doc.entities?.ada ?? []).filter((a) => typeof a === 'string' && a !== '')) : keys[kind];
    for (const key of values) rows.push([kind, key]);
  }
  return rows;
}

/** Writes and removes a table set's side-table rows (inside its caller's write transaction). */
export class SideTables {
  readonly facts: string;
  readonly keys: string;
  private insertFacts: Statement | null = null;
  private insertKey: Statement | null = null;
  private deleteFacts: Statement | null = null;
  private deleteKeys: Statement | null = null;

  constructor(
    private readonly db: Database,
    name: string,
  ) {
    this.facts = `"${name}_facts"`;
    this.keys = `"${name}_keys"`;
  }

  write(rid: bigint, doc: StoredDocument | IndexedDocument): void {
    const facts = factsOf(doc);
    this.insertFacts ??= this.db.prepare(
      `INSERT INTO ${this.facts} (rid, source_id, published_at, doc_category, procedure_type, region, tenders_received, eur)
       VALUES (@rid, @source_id, @published_at, @doc_category, @procedure_type, @region, @tenders_received, @eur)`,
    );
    this.insertFacts.run({ rid, ...facts });
    this.insertKey ??= this.db.prepare(`INSERT INTO ${this.keys} (kind, key, rid) VALUES (?, ?, ?)`);
    for (const [kind, key] of keyRowsOf(doc)) this.insertKey.run(kind, key, rid);
  }

  remove(rid: bigint): void {
    this.deleteFacts ??= this.db.prepare(`DELETE FROM ${this.facts} WHERE rid = ?`);
    this.deleteKeys ??= this.db.prepare(`DELETE FROM ${this.keys} WHERE rid = ?`);
    this.deleteFacts.run(rid);
    this.deleteKeys.run(rid);
  }
}

/**
 * Creates and fills the side tables of a set made before them, from its stored rows: the documents'
 * rows are read back as written (doc-rows.ts rowToStored), so the rows are those a write makes.
 */
export function fillSideTables(db: Database, name: string): void {
  createSideTables(db, name);
  const side = new SideTables(db, name);
  // In pages: the connection cannot write while a read of it is open.
  const page = db.prepare(`SELECT * FROM "${name}_docs" WHERE rid > ? ORDER BY rid LIMIT 1000`).safeIntegers(true);
  for (let after = -1n; ; ) {
    const rows = page.all(after) as DocRow[];
    for (const row of rows) side.write(row.rid, rowToStored(row));
    if (rows.length < 1000) return;
    after = rows.at(-1)!.rid;
  }
}
