// The vectors of one table set (table-set.ts): the float32 vectors SQLite keeps, from which the one
// approximate index of every source (vector-index.ts) is built and rebuilt. Three layouts, recorded per
// set in `meta`:
//
//   1  `_vec`: sqlite-vec vec0 (sets made before layout 2)
//   2  `_ivf`: the inverted file of schema 3 (its `_lists` are no longer read)
//   3  `_vectors`: seq (AUTOINCREMENT, never reused) → rid, embedding. A vector's key in the approximate
//      index carries its seq, so an entry whose vector was since replaced or deleted finds no row.
//
// Sets of layouts 1 and 2 are not in the approximate index: they are searched exactly, as a scan, until
// `pdi reindex` rebuilds them in layout 3.
import type { Database, Statement } from 'better-sqlite3';
import { Statements } from './statements.js';

export const VECTOR_LAYOUT = 3;

/** Where `meta` records a set's vector layout. */
const layoutKey = (name: string) => `vector_layout:${name}`;

export function recordVectorLayout(db: Database, name: string): void {
  db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(layoutKey(name), String(VECTOR_LAYOUT));
}

/** A set's vector layout; sets made before sets recorded one use layout 1. */
export function vectorLayout(db: Database, name: string): number {
  const value = db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(layoutKey(name)) as string | undefined;
  return value === undefined ? 1 : Number(value);
}

export function forgetVectorLayout(db: Database, name: string): void {
  // `ivf:` held layout 2's training state.
  db.prepare('DELETE FROM meta WHERE key IN (?, ?)').run(layoutKey(name), `ivf:${name}`);
}

/** The table of the newest layout (sets are only ever created in it). */
export function createVectorTables(db: Database, name: string): void {
  db.exec(`CREATE TABLE "${name}_vectors" (seq INTEGER PRIMARY KEY AUTOINCREMENT, rid INTEGER NOT NULL UNIQUE, embedding BLOB NOT NULL)`);
}

/** The tables of every layout, for dropping a set. */
export const VECTOR_TABLE_SUFFIXES = ['vec', 'ivf', 'ivf_new', 'lists', 'vectors'];

export interface Neighbour {
  rid: bigint;
  distance: number;
}

/** A row found by its seq: the row id and its exact cosine distance to the query. */
export interface KeyedNeighbour extends Neighbour {
  seq: number;
}

export interface VectorStore {
  /** Whether the set's vectors have seqs and belong in the approximate index (layout 3). */
  readonly keyed: boolean;
  /** Stores the vector of `rid` (absent before); its seq (layout 3), else null. */
  insert(rid: bigint, vector: Float32Array): number | null;
  /** Removes the vector of `rid`: the seq it had (layout 3), -1 for a vector of another layout, null if none. */
  remove(rid: bigint): number | null;
  get(rid: bigint): Float32Array | null;
  count(): number;
  /** The k nearest by exact cosine distance (1 - cos) among the vectors with seq > `afterSeq` (all of them: 0). */
  exact(query: Float32Array, k: number, afterSeq: number): Neighbour[];
  /** Of the given seqs, those still stored, with their exact distance to `query`. */
  byKeys(query: Float32Array, seqs: number[]): KeyedNeighbour[];
  /**
   * The k nearest by exact cosine distance among the vectors whose row of `docs` (named `d`) meets
   * `where` (named parameters `params`): a filtered kNN, scanned in SQL.
   */
  exactWhere(query: Float32Array, k: number, docs: string, where: string, params: Record<string, unknown>): Neighbour[];
  /** The largest seq given so far (0: none). */
  lastSeq(): number;
  /** Vectors with seq > afterSeq. */
  countAfter(afterSeq: number): number;
  /** Every (seq, vector) with afterSeq < seq ≤ upTo, in seq order. */
  scan(afterSeq: number, upTo: number): IterableIterator<[number, Buffer]>;
}

export const asBlob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const asVector = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

export function openVectorStore(db: Database, name: string): VectorStore {
  const layout = vectorLayout(db, name);
  if (layout === 1) return new UnkeyedVectors(db, `"${name}_vec"`, 'rowid');
  if (layout === 2) return new UnkeyedVectors(db, `"${name}_ivf"`, 'rid');
  return new KeyedVectors(db, `"${name}_vectors"`);
}

/** Layouts 1 and 2: a table of (key column, embedding), searched by a scan of every vector in C. */
class UnkeyedVectors implements VectorStore {
  readonly keyed = false;
  private readonly statements: Statements;

  constructor(
    db: Database,
    private readonly table: string,
    private readonly key: 'rowid' | 'rid',
  ) {
    this.statements = new Statements(db);
  }

  private st(sql: string): Statement {
    return this.statements.get(sql, true);
  }

  insert(rid: bigint, vector: Float32Array): null {
    // Layout 2's vid (the list's range) is no longer read: a new row takes the next one.
    this.st(`INSERT INTO ${this.table} (${this.key}, embedding) VALUES (?, ?)`).run(rid, asBlob(vector));
    return null;
  }

  remove(rid: bigint): number | null {
    return this.st(`DELETE FROM ${this.table} WHERE ${this.key} = ?`).run(rid).changes ? -1 : null;
  }

  get(rid: bigint): Float32Array | null {
    const blob = this.st(`SELECT embedding FROM ${this.table} WHERE ${this.key} = ?`).pluck().get(rid) as Buffer | undefined;
    return blob ? asVector(blob) : null;
  }

  count(): number {
    return Number(this.st(`SELECT count(*) FROM ${this.table}`).pluck().get());
  }

  exactWhere(query: Float32Array, k: number, docs: string, where: string, params: Record<string, unknown>): Neighbour[] {
    return this.st(
      `SELECT v.${this.key} AS rid, vec_distance_cosine(v.embedding, @query) AS distance FROM ${this.table} v JOIN ${docs} d ON d.rid = v.${this.key}
        WHERE ${where} ORDER BY distance, rid LIMIT @k`,
    ).all({ ...params, query: asBlob(query), k }) as Neighbour[];
  }

  exact(query: Float32Array, k: number): Neighbour[] {
    return this.st(`SELECT ${this.key} AS rid, vec_distance_cosine(embedding, ?) AS distance FROM ${this.table} ORDER BY distance, rid LIMIT ?`).all(
      asBlob(query),
      k,
    ) as Neighbour[];
  }

  byKeys(): KeyedNeighbour[] {
    return [];
  }

  lastSeq(): number {
    return 0;
  }

  countAfter(): number {
    return 0;
  }

  *scan(): IterableIterator<[number, Buffer]> {}
}

/** Layout 3. */
class KeyedVectors implements VectorStore {
  readonly keyed = true;
  private readonly statements: Statements;

  constructor(
    private readonly db: Database,
    private readonly table: string,
  ) {
    this.statements = new Statements(db);
  }

  private st(sql: string, safe = false): Statement {
    return this.statements.get(sql, safe);
  }

  insert(rid: bigint, vector: Float32Array): number {
    return Number(this.st(`INSERT INTO ${this.table} (rid, embedding) VALUES (?, ?)`).run(rid, asBlob(vector)).lastInsertRowid);
  }

  remove(rid: bigint): number | null {
    const seq = this.st(`DELETE FROM ${this.table} WHERE rid = ? RETURNING seq`).pluck().get(rid) as number | undefined;
    return seq ?? null;
  }

  get(rid: bigint): Float32Array | null {
    const blob = this.st(`SELECT embedding FROM ${this.table} WHERE rid = ?`, true).pluck().get(rid) as Buffer | undefined;
    return blob ? asVector(blob) : null;
  }

  count(): number {
    return this.st(`SELECT count(*) FROM ${this.table}`).pluck().get() as number;
  }

  exact(query: Float32Array, k: number, afterSeq: number): Neighbour[] {
    return this.st(`SELECT rid, vec_distance_cosine(embedding, ?) AS distance FROM ${this.table} WHERE seq > ? ORDER BY distance, rid LIMIT ?`, true).all(
      asBlob(query),
      afterSeq,
      k,
    ) as Neighbour[];
  }

  exactWhere(query: Float32Array, k: number, docs: string, where: string, params: Record<string, unknown>): Neighbour[] {
    return this.st(
      `SELECT v.rid, vec_distance_cosine(v.embedding, @query) AS distance FROM ${this.table} v JOIN ${docs} d ON d.rid = v.rid
        WHERE ${where} ORDER BY distance, v.rid LIMIT @k`,
      true,
    ).all({ ...params, query: asBlob(query), k }) as Neighbour[];
  }

  byKeys(query: Float32Array, seqs: number[]): KeyedNeighbour[] {
    if (!seqs.length) return [];
    return this.st(`SELECT seq, rid, vec_distance_cosine(embedding, ?) AS distance FROM ${this.table} WHERE seq IN (SELECT value FROM json_each(?))`, true)
      .all(asBlob(query), JSON.stringify(seqs))
      .map((r) => {
        const row = r as { seq: bigint; rid: bigint; distance: number };
        return { seq: Number(row.seq), rid: row.rid, distance: row.distance };
      });
  }

  lastSeq(): number {
    // AUTOINCREMENT's high-water mark: seqs of deleted rows are never given again.
    const name = this.table.slice(1, -1);
    return (this.db.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').pluck().get(name) as number | undefined) ?? 0;
  }

  countAfter(afterSeq: number): number {
    return this.st(`SELECT count(*) FROM ${this.table} WHERE seq > ?`).pluck().get(afterSeq) as number;
  }

  scan(afterSeq: number, upTo: number): IterableIterator<[number, Buffer]> {
    return this.st(`SELECT seq, embedding FROM ${this.table} WHERE seq > ? AND seq <= ? ORDER BY seq`).raw().iterate(afterSeq, upTo) as IterableIterator<
      [number, Buffer]
    >;
  }
}
