// One approximate-nearest-neighbour index over the vectors of every source (an HNSW graph, usearch), as
// Elasticsearch has one index: a file beside the SQLite file, written whole and never changed, so every
// reader thread maps the same pages (`view`) instead of holding a copy. SQLite stays the truth:
//
// - A file covers, per table set, the vectors up to a seq (`meta` 'vector_index'). Vectors written since
//   (the delta) are scanned exactly; a file entry counts only while its set serves and its seq is still
//   stored, so deleted and replaced vectors drop out at once (vectors.ts).
// - When the delta passes Tuning.vectorDeltaMax, the writer writes the next file (the last one, minus the
//   keys deleted since, plus the delta) and switches `meta` to it in one transaction. A rebuild writes a
//   whole new file for the sets it swaps in, switched by the swap's own transaction.
// - A missing or damaged file is rebuilt from SQLite's vectors when the index is opened for writing
//   (init()); until then, and for an in-memory database, searches scan exactly.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Index, type IndexConfig } from 'usearch';
import type { Database } from 'better-sqlite3';
import { SOURCE_NAMES } from '../../../index-mappings/sources.js';
import type { TableSet } from './table-set.js';
import type { Neighbour } from './vectors.js';

/** What `meta` records of the current file. */
export interface Snapshot {
  file: string;
  bytes: number;
  sha1: string;
  /** Per table set: the last seq in the file, and how many vectors it held then. */
  sets: Record<string, { upTo: number; count: number }>;
}

/** A neighbour with its table set. */
export interface SetNeighbour extends Neighbour {
  set: TableSet;
}

const META_KEY = 'vector_index';
// A key: source (4 bits) | generation (19) | seq (40); unique over every generation a file can hold.
const GEN_SHIFT = 40n;
const SOURCE_SHIFT = 59n;
const SEQ_MASK = (1n << GEN_SHIFT) - 1n;
const GEN_MASK = (1n << (SOURCE_SHIFT - GEN_SHIFT)) - 1n;

export function vectorKey(set: TableSet, seq: number): bigint {
  return (BigInt(SOURCE_NAMES.indexOf(set.source)) << SOURCE_SHIFT) | (BigInt(set.gen) << GEN_SHIFT) | BigInt(seq);
}

/** The graph's shape. Quantized to int8 in the graph (a quarter of float32's pages); distances are then
 * recomputed from SQLite's float32 vectors, so scores are exact and only recall is approximate. */
const GRAPH = { metric: 'cos', quantization: 'i8', connectivity: 16, expansion_add: 128, expansion_search: 128, multi: false } as const;
/** Vectors per add() call while building. */
const BATCH = 8192;

export interface VectorIndexOptions {
  /** The SQLite file; null for an in-memory database, whose vectors are always scanned. */
  file: string | null;
  dimension: number;
  /** A kNN whose sets hold at most this many of the graph's vectors scans them exactly (Tuning.vectorExactScope). */
  exactScope: number;
  /** Candidates a search asks the graph for at least, before filtering and exact rescoring (Tuning.vectorCandidates). */
  candidates: number;
  log: (level: 'info' | 'warn', msg: string, extra?: object) => void;
}

export class VectorIndex {
  /** Searches of a graph, in this thread (tests show a kNN took the graph's path). */
  static graphSearches = 0;
  private opened: { file: string; index: Index | null } | null = null;

  constructor(private readonly opts: VectorIndexOptions) {}

  private newIndex(): Index {
    return new Index({ dimensions: this.opts.dimension, ...GRAPH } as unknown as IndexConfig);
  }

  snapshot(db: Database): Snapshot | null {
    const value = db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(META_KEY) as string | undefined;
    return value ? (JSON.parse(value) as Snapshot) : null;
  }

  private pathOf(name: string): string {
    return path.join(path.dirname(this.opts.file!), name);
  }

  /** The graph of `snap`, mapped once per file; null when the file is missing or unreadable. */
  private graph(snap: Snapshot | null): Index | null {
    if (!snap || !this.opts.file) return null;
    if (this.opened?.file === snap.file) return this.opened.index;
    let index: Index | null = null;
    const where = this.pathOf(snap.file);
    try {
      if (fs.statSync(where).size !== snap.bytes) throw new Error(`size differs from the ${snap.bytes} bytes recorded`);
      index = this.newIndex();
      index.view(where);
    } catch (err) {
      index = null;
      this.opts.log('warn', 'the vector index file cannot be read; vectors are scanned exactly until it is rebuilt (init)', { file: where, err: String(err) });
    }
    this.opened = { file: snap.file, index };
    return index;
  }

  /** The k nearest of `scope` (serving sets), with exact distances, at most k per set. */
  knn(db: Database, scope: TableSet[], query: Float32Array, k: number): SetNeighbour[] {
    const snap = this.snapshot(db);
    const graph = this.graph(snap);
    const out: SetNeighbour[] = [];
    const add = (set: TableSet, found: Neighbour[]) => {
      for (const n of found) out.push({ set, rid: n.rid, distance: n.distance });
    };
    const covered = graph ? scope.filter((set) => set.vectors.keyed && snap!.sets[set.name]) : [];
    const inGraph = covered.reduce((sum, set) => sum + snap!.sets[set.name].count, 0);
    const found = inGraph > this.opts.exactScope ? this.approximate(graph!, covered, inGraph, query, k) : null;
    for (const set of scope) {
      if (found && covered.includes(set)) add(set, set.vectors.exact(query, k, snap!.sets[set.name].upTo));
      else add(set, set.vectors.exact(query, k, 0));
    }
    if (found) out.push(...found);
    return out;
  }

  /**
   * The graph's nearest entries that are live vectors of `sets`, rescored exactly: oversampled by the
   * share of the graph the filter keeps, and asked again 4x deeper until k are found or the whole graph
   * was asked; null then (the caller scans those sets exactly), so a filter always gets its k.
   */
  private approximate(graph: Index, sets: TableSet[], live: number, query: Float32Array, k: number): SetNeighbour[] | null {
    const size = graph.size();
    const bySourceGen = new Map(sets.map((set) => [`${SOURCE_NAMES.indexOf(set.source)}:${set.gen}`, set]));
    let ask = Math.min(size, Math.ceil((Math.max(k, this.opts.candidates) * size) / Math.max(1, live)));
    for (;;) {
      VectorIndex.graphSearches += 1;
      const keys = graph.search(query, ask, 1).keys;
      const seqs = new Map<TableSet, number[]>();
      for (const key of keys) {
        const set = bySourceGen.get(`${Number(key >> SOURCE_SHIFT)}:${Number((key >> GEN_SHIFT) & GEN_MASK)}`);
        if (!set) continue;
        let list = seqs.get(set);
        if (!list) seqs.set(set, (list = []));
        list.push(Number(key & SEQ_MASK));
      }
      const found: SetNeighbour[] = [];
      for (const [set, list] of seqs) for (const n of set.vectors.byKeys(query, list)) found.push({ set, rid: n.rid, distance: n.distance });
      if (found.length >= k) return found;
      if (ask >= size) return null;
      ask = Math.min(size, ask * 4);
    }
  }

  /** Vectors of `sets` not in the current file. */
  delta(db: Database, sets: TableSet[]): number {
    const snap = this.snapshot(db);
    return sets.filter((set) => set.vectors.keyed).reduce((sum, set) => sum + set.vectors.countAfter(snap?.sets[set.name]?.upTo ?? 0), 0);
  }

  /** Whether the current file is missing, or differs from what `meta` records of it (reads it whole). */
  damaged(db: Database): boolean {
    const snap = this.snapshot(db);
    if (!snap || !this.opts.file) return false;
    try {
      return sha1Of(this.pathOf(snap.file)) !== snap.sha1;
    } catch {
      return true;
    }
  }

  /**
   * Writes the next file for `sets` (inside the caller's read transaction, so it is one consistent
   * state), without the vectors of `leaving` (the generations a rebuild retires): from the current file
   * unless `whole` or it covers a set that is in neither, else from the stored vectors alone. Returns
   * what to record with commit(); null for an in-memory database.
   */
  write(db: Database, sets: TableSet[], whole: boolean, leaving: TableSet[] = []): { snap: Snapshot; removedUpTo: number } | null {
    if (!this.opts.file) return null;
    const started = performance.now();
    // In catalogue order, each set in seq order, added on one thread: the same stored vectors give the
    // same graph, so a file rebuilt after a loss answers as the lost one did (a whole build's).
    const keyed = sets.filter((set) => set.vectors.keyed).sort((a, b) => SOURCE_NAMES.indexOf(a.source) - SOURCE_NAMES.indexOf(b.source));
    const current = this.snapshot(db);
    const names = new Set([...keyed, ...leaving].map((set) => set.name));
    const incremental = !whole && current !== null && Object.keys(current.sets).every((name) => names.has(name)) && !this.damaged(db);
    const index = this.newIndex();
    const removedUpTo = db.prepare('SELECT coalesce(max(id), 0) FROM vector_removed').pluck().get() as number;
    if (incremental) {
      index.load(this.pathOf(current.file));
      const removed = db.prepare('SELECT key FROM vector_removed WHERE id <= ?').pluck().safeIntegers().all(removedUpTo) as bigint[];
      for (const set of leaving.filter((s) => current.sets[s.name])) {
        for (const [seq] of set.vectors.scan(0, current.sets[set.name].upTo)) removed.push(vectorKey(set, seq));
      }
      for (let i = 0; i < removed.length; i += BATCH) index.remove(BigUint64Array.from(removed.slice(i, i + BATCH)));
    }
    const snap: Snapshot = {
      file: `${path.basename(this.opts.file)}.vectors-${Date.now()}-${randomBytes(4).toString('hex')}.usearch`,
      bytes: 0,
      sha1: '',
      sets: {},
    };
    let added = 0;
    const d = this.opts.dimension;
    const keys = new BigUint64Array(BATCH);
    const matrix = new Float32Array(BATCH * d);
    let n = 0;
    const flush = () => {
      if (n) index.add(keys.subarray(0, n), matrix.subarray(0, n * d), 1);
      added += n;
      n = 0;
    };
    for (const set of keyed) {
      const from = incremental ? (current.sets[set.name]?.upTo ?? 0) : 0;
      const upTo = set.vectors.lastSeq();
      snap.sets[set.name] = { upTo, count: set.vectors.count() };
      // In batches, as read: a source's vectors are up to 0.7 GB of floats at 1M documents.
      for (const [seq, blob] of set.vectors.scan(from, upTo)) {
        keys[n] = vectorKey(set, seq);
        matrix.set(new Float32Array(blob.buffer, blob.byteOffset, d), n * d);
        if (++n === BATCH) flush();
      }
      flush();
    }
    const where = this.pathOf(snap.file);
    const temporary = `${where}.tmp`;
    index.save(temporary);
    const fd = fs.openSync(temporary, 'r');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(temporary, where);
    snap.bytes = fs.statSync(where).size;
    snap.sha1 = sha1Of(where);
    this.opts.log('info', 'wrote the vector index', {
      file: snap.file,
      incremental,
      added,
      vectors: index.size(),
      ms: Math.round(performance.now() - started),
    });
    return { snap, removedUpTo };
  }

  /** Makes `written` the current file (inside the caller's write transaction). */
  commit(db: Database, written: { snap: Snapshot; removedUpTo: number }): void {
    db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(META_KEY, JSON.stringify(written.snap));
    db.prepare('DELETE FROM vector_removed WHERE id <= ?').run(written.removedUpTo);
  }

  /** Deletes a written file that was never committed. */
  discard(written: { snap: Snapshot } | null): void {
    if (written) fs.rmSync(this.pathOf(written.snap.file), { force: true });
  }

  /**
   * Deletes this index's files other than the current one and `previous` (readers still on it finish
   * their query), left by switches and crashes: those older than the current one, and any older than a
   * minute (a newer one may be another writer's, about to be committed).
   */
  prune(db: Database, previous: string | null): void {
    if (!this.opts.file) return;
    const current = this.snapshot(db)?.file;
    const dir = path.dirname(this.opts.file);
    const prefix = `${path.basename(this.opts.file)}.vectors-`;
    const mtime = (name: string) => fs.statSync(path.join(dir, name)).mtimeMs;
    let currentTime = 0;
    try {
      if (current) currentTime = mtime(current);
    } catch {
      // The current file is missing: init() rebuilds it.
    }
    for (const name of fs.readdirSync(dir)) {
      if (!name.startsWith(prefix) || name === current || name === previous) continue;
      try {
        const time = mtime(name);
        if (time < currentTime || Date.now() - time > 60_000) fs.rmSync(path.join(dir, name), { force: true });
      } catch {
        // Gone already: another process pruned it.
      }
    }
  }

  close(): void {
    this.opened = null;
  }
}

function sha1Of(file: string): string {
  const hash = createHash('sha1');
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(1 << 22);
    for (let n; (n = fs.readSync(fd, buffer, 0, buffer.length, null)) > 0; ) hash.update(buffer.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}
