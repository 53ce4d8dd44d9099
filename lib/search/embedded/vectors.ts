// The vectors of one table set (table-set.ts), in one of two layouts recorded per set in `meta`:
//
//   1  `_vec`: sqlite-vec vec0, float32, exact cosine by scanning every vector (sets made before layout 2;
//      they keep working, and `pdi reindex` rebuilds them in layout 2).
//   2  an inverted file (IVF-Flat): `_lists` holds unit centroids from spherical k-means over the set's
//      vectors; `_ivf` holds each float vector under the row id vid = list · 2^32 + n, so a list is one
//      contiguous row-id range. A query scans the lists of its Tuning.vectorProbes nearest centroids (plus list 0,
//      vectors written before the set had centroids) with sqlite-vec's exact cosine, in C: a few percent
//      of the vectors instead of all (docs/benchmarks.md "Vector search at 1,000,000").
//
// Lists are trained once a set holds TRAIN_MIN vectors and retrained (every vector reassigned) when it has
// grown RETRAIN_GROWTH times since: a write pays for it, so the total work stays proportional to the set.
import type { Database, Statement } from 'better-sqlite3';
import { Statements } from './statements.js';
import { CentroidGroups, centroidsByScore, nearestCentroid, trainCentroids } from './ivf.js';

export const VECTOR_LAYOUT = 2;

/** Below this many vectors a set is scanned whole: a few milliseconds in C. */
export const TRAIN_MIN = 8_000;
/** Retrain when the set holds this many times the vectors it was trained on. */
const RETRAIN_GROWTH = 4;
/** k-means sample: this many vectors per list (at most), and rounds. */
const SAMPLE_PER_LIST = 24;
const ROUNDS = 5;
const LIST_SHIFT = 2 ** 32;

/** Lists for a set of n vectors: about √n, so a list holds about √n vectors. */
export function listsFor(n: number): number {
  return Math.max(16, Math.min(4096, Math.round(Math.sqrt(n))));
}

/** Where `meta` records a set's vector layout, and (layout 2) its training state. */
const layoutKey = (name: string) => `vector_layout:${name}`;
const stateKey = (name: string) => `ivf:${name}`;

export function recordVectorLayout(db: Database, name: string): void {
  db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(layoutKey(name), String(VECTOR_LAYOUT));
  db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(stateKey(name), JSON.stringify(EMPTY));
}

/** A set's vector layout; sets made before sets recorded one use layout 1. */
export function vectorLayout(db: Database, name: string): number {
  const value = db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(layoutKey(name)) as string | undefined;
  return value === undefined ? 1 : Number(value);
}

export function forgetVectorLayout(db: Database, name: string): void {
  db.prepare('DELETE FROM meta WHERE key IN (?, ?)').run(layoutKey(name), stateKey(name));
}

/** The tables of layout 2 (sets are only ever created in the newest layout). */
export function createVectorTables(db: Database, name: string): void {
  db.exec(`
    CREATE TABLE "${name}_ivf" (vid INTEGER PRIMARY KEY, rid INTEGER NOT NULL UNIQUE, embedding BLOB NOT NULL);
    CREATE TABLE "${name}_lists" (list INTEGER PRIMARY KEY, centroid BLOB NOT NULL);
  `);
}

/** The tables of every layout, for dropping a set. */
export const VECTOR_TABLE_SUFFIXES = ['vec', 'ivf', 'ivf_new', 'lists'];

export interface Neighbour {
  rid: bigint;
  distance: number;
}

export interface VectorStore {
  /** Stores the vector of `rid` (absent before). */
  insert(rid: bigint, vector: Float32Array): void;
  /** Removes the vector of `rid`; 1 if there was one, else 0. */
  remove(rid: bigint): number;
  get(rid: bigint): Float32Array | null;
  /** The k nearest by cosine distance (1 - cos), nearest first. */
  knn(query: Float32Array, k: number): Neighbour[];
  count(): number;
  /** After a write transaction's rows: (re)trains the lists when the set has grown enough. */
  afterWrite(delta: number): void;
  /** Retrains the lists if the set holds TRAIN_MIN vectors and has grown `growth` times since the last training. */
  train(growth?: number): void;
}

const asBlob = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const asVector = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));

export function openVectorStore(db: Database, name: string, dimension: number, probes: number, log: (msg: string, extra?: object) => void): VectorStore {
  return vectorLayout(db, name) === 1 ? new ExactVectors(db, name) : new InvertedFile(db, name, dimension, probes, log);
}

/** Layout 1: vec0, every vector compared. */
class ExactVectors implements VectorStore {
  private readonly vec: string;
  private readonly statements: Statements;

  constructor(db: Database, name: string) {
    this.vec = `"${name}_vec"`;
    this.statements = new Statements(db);
  }

  private st(sql: string): Statement {
    return this.statements.get(sql, true);
  }

  insert(rid: bigint, vector: Float32Array): void {
    this.st(`INSERT INTO ${this.vec} (rowid, embedding) VALUES (?, ?)`).run(rid, asBlob(vector));
  }

  remove(rid: bigint): number {
    return this.st(`DELETE FROM ${this.vec} WHERE rowid = ?`).run(rid).changes;
  }

  get(rid: bigint): Float32Array | null {
    const blob = this.st(`SELECT embedding FROM ${this.vec} WHERE rowid = ?`).pluck().get(rid) as Buffer | undefined;
    return blob ? asVector(blob) : null;
  }

  knn(query: Float32Array, k: number): Neighbour[] {
    return this.st(`SELECT rowid AS rid, distance FROM ${this.vec} WHERE embedding MATCH ? AND k = ? ORDER BY distance`)
      .all(asBlob(query), k) as Neighbour[];
  }

  count(): number {
    return Number(this.st(`SELECT count(*) FROM ${this.vec}`).pluck().get());
  }

  afterWrite(): void {}

  train(): void {}
}

/** Layout 2's training state, in `meta`: lists (0 = untrained), vectors then, all vectors, epoch. */
interface IvfState {
  lists: number;
  trainedOn: number;
  vectors: number;
  epoch: number;
}

const EMPTY: IvfState = { lists: 0, trainedOn: 0, vectors: 0, epoch: 0 };

/** Layout 2: the inverted file. */
class InvertedFile implements VectorStore {
  private readonly ivf: string;
  private readonly listsTable: string;
  private readonly statements: Statements;
  /** Centroids as last read, and the training epoch they belong to. */
  private centroids: { epoch: number; lists: number; data: Float32Array } | null = null;

  constructor(
    private readonly db: Database,
    private readonly name: string,
    private readonly dimension: number,
    /** Lists scanned at least per query (Tuning.vectorProbes). */
    private readonly minProbes: number,
    private readonly log: (msg: string, extra?: object) => void,
  ) {
    this.ivf = `"${name}_ivf"`;
    this.listsTable = `"${name}_lists"`;
    this.statements = new Statements(db);
  }

  private st(sql: string, safe = false): Statement {
    return this.statements.get(sql, safe);
  }

  private state(): IvfState {
    const value = this.st('SELECT value FROM meta WHERE key = ?').pluck().get(stateKey(this.name)) as string | undefined;
    return value ? (JSON.parse(value) as IvfState) : { ...EMPTY };
  }

  private saveState(state: IvfState): void {
    this.st('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(stateKey(this.name), JSON.stringify(state));
  }

  private loadCentroids(state: IvfState): Float32Array | null {
    if (!state.lists) return null;
    if (this.centroids?.epoch !== state.epoch) {
      const rows = this.st(`SELECT centroid FROM ${this.listsTable} ORDER BY list`).pluck().all() as Buffer[];
      const data = new Float32Array(rows.length * this.dimension);
      rows.forEach((b, i) => data.set(new Float32Array(b.buffer, b.byteOffset, this.dimension), i * this.dimension));
      this.centroids = { epoch: state.epoch, lists: rows.length, data };
    }
    return this.centroids.data;
  }

  /** The next free vid of list `list` (1-based; 0 holds the vectors written before training). */
  private nextVid(list: number): number {
    const last = this.st(`SELECT vid FROM ${this.ivf} WHERE vid < ? ORDER BY vid DESC LIMIT 1`).pluck().get((list + 1) * LIST_SHIFT) as number | undefined;
    return last !== undefined && last >= list * LIST_SHIFT ? last + 1 : list * LIST_SHIFT;
  }

  private listOf(vector: Float32Array, centroids: Float32Array | null, lists: number): number {
    return centroids ? 1 + nearestCentroid(centroids, lists, vector, 0, this.dimension) : 0;
  }

  insert(rid: bigint, vector: Float32Array): void {
    const state = this.state();
    const list = this.listOf(vector, this.loadCentroids(state), state.lists);
    this.st(`INSERT INTO ${this.ivf} (vid, rid, embedding) VALUES (?, ?, ?)`).run(this.nextVid(list), rid, asBlob(vector));
  }

  remove(rid: bigint): number {
    return this.st(`DELETE FROM ${this.ivf} WHERE rid = ?`).run(rid).changes;
  }

  get(rid: bigint): Float32Array | null {
    const blob = this.st(`SELECT embedding FROM ${this.ivf} WHERE rid = ?`).pluck().get(rid) as Buffer | undefined;
    return blob ? asVector(blob) : null;
  }

  knn(query: Float32Array, k: number): Neighbour[] {
    const state = this.state();
    const centroids = this.loadCentroids(state);
    const probed = [0];
    if (centroids) {
      // At least minProbes lists, and enough to hold about 10 k vectors for a deep k.
      const perList = Math.max(1, state.vectors / state.lists);
      const probes = Math.min(state.lists, Math.max(this.minProbes, Math.ceil((10 * k) / perList)));
      for (const c of centroidsByScore(centroids, state.lists, query, this.dimension).slice(0, probes)) probed.push(c + 1);
    }
    // One row-id range per list (the join walks each in order), every vector in it compared in C.
    return this.st(
      `SELECT v.rid AS rid, vec_distance_cosine(v.embedding, ?) AS distance
         FROM json_each(?) AS l JOIN ${this.ivf} AS v ON v.vid >= l.value * ${LIST_SHIFT} AND v.vid < (l.value + 1) * ${LIST_SHIFT}
        ORDER BY distance, rid LIMIT ?`,
      true,
    ).all(asBlob(query), JSON.stringify(probed), k) as Neighbour[];
  }

  count(): number {
    return this.st(`SELECT count(*) FROM ${this.ivf}`).pluck().get() as number;
  }

  afterWrite(delta: number): void {
    const state = this.state();
    state.vectors += delta;
    this.saveState(state);
    const due = state.lists ? state.vectors >= RETRAIN_GROWTH * state.trainedOn : state.vectors >= TRAIN_MIN;
    if (due) this.train(RETRAIN_GROWTH);
  }

  train(growth = 1): void {
    const state = this.state();
    const n = state.vectors;
    if (n < TRAIN_MIN || (state.lists && n < growth * state.trainedOn)) return;
    const started = performance.now();
    const d = this.dimension;
    const lists = listsFor(n);
    // An evenly spaced sample in row-id order (one pass over the vectors).
    const size = Math.min(n, lists * SAMPLE_PER_LIST);
    const sample = new Float32Array(size * d);
    let seen = 0;
    let taken = 0;
    for (const blob of this.st(`SELECT embedding FROM ${this.ivf} ORDER BY vid`).pluck().iterate() as IterableIterator<Buffer>) {
      if (taken < size && Math.floor((taken * n) / size) === seen) {
        sample.set(new Float32Array(blob.buffer, blob.byteOffset, d), taken * d);
        taken += 1;
      }
      seen += 1;
    }
    const centroids = trainCentroids(sample, taken, d, lists, ROUNDS);
    const trained = centroids.length / d;
    const groups = new CentroidGroups(centroids, trained, d);
    // Every vector moves to its list's range, written list by list so each list is contiguous.
    const moves: { list: number; vid: number }[] = [];
    for (const row of this.st(`SELECT vid, embedding FROM ${this.ivf}`).raw().iterate() as IterableIterator<[number, Buffer]>) {
      const vector = new Float32Array(row[1].buffer, row[1].byteOffset, d);
      moves.push({ list: 1 + groups.nearest(vector, 0), vid: row[0] });
    }
    moves.sort((a, b) => a.list - b.list || a.vid - b.vid);
    const fresh = `"${this.name}_ivf_new"`;
    this.db.exec(`DROP TABLE IF EXISTS ${fresh}; CREATE TABLE ${fresh} (vid INTEGER PRIMARY KEY, rid INTEGER NOT NULL UNIQUE, embedding BLOB NOT NULL)`);
    const copy = this.db.prepare(`INSERT INTO ${fresh} (vid, rid, embedding) SELECT ?, rid, embedding FROM ${this.ivf} WHERE vid = ?`);
    let list = -1;
    let next = 0;
    for (const m of moves) {
      if (m.list !== list) {
        list = m.list;
        next = list * LIST_SHIFT;
      }
      copy.run(next++, m.vid);
    }
    this.db.exec(`DROP TABLE ${this.ivf}; ALTER TABLE ${fresh} RENAME TO ${this.ivf.slice(1, -1)}`);
    this.statements.clear();
    this.st(`DELETE FROM ${this.listsTable}`).run();
    const put = this.st(`INSERT INTO ${this.listsTable} (list, centroid) VALUES (?, ?)`);
    for (let c = 0; c < trained; c++) put.run(c + 1, asBlob(centroids.subarray(c * d, (c + 1) * d)));
    this.saveState({ lists: trained, trainedOn: n, vectors: n, epoch: state.epoch + 1 });
    this.log('trained the vector lists', { table: this.name, vectors: n, lists: trained, ms: Math.round(performance.now() - started) });
  }
}
