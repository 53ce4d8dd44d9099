// Vector reads of the embedded engine: the nearest neighbours of a vector (the one usearch graph of
// every source, vector-index.ts, or an exact scan of what a filter keeps), and the writing of the
// graph's next file. Design: docs/search-engines.md "Vectors".
import type { KnnQuery, SearchHit } from '../provider.js';
import { publishedWindow } from '../published-window.js';
import { compareCandidates, sidOf, type Candidate } from './candidates.js';
import { logCall, type Engine } from './engine.js';
import { filterSql } from './filter-sql.js';
import { ridWindow } from './keys.js';

/** The deepest kNN answered (sqlite-vec's limit, which vector search had before it had a graph). */
const MAX_KNN = 4096;

/** KnnQuery's neighbours, in this thread. */
export function nearest(engine: Engine, q: KnnQuery, signal?: AbortSignal): SearchHit[] {
  const { file, gens, vectors, dimension } = engine;
  const started = performance.now();
  if (q.vector.length !== dimension) {
    throw new Error(`knn vector has ${q.vector.length} dimensions; the index holds ${dimension}`);
  }
  const limit = Math.max(0, Math.floor(q.limit));
  if (!limit) return [];
  const k = Math.min(limit + (q.excludeId ? 1 : 0), MAX_KNN);
  const vector = new Float32Array(q.vector);
  const filters = q.filters ?? {};
  const window = publishedWindow(filters.since, filters.until);
  const filter = filterSql(filters);
  const hits = file.read(() => {
    const sets = gens.serving(filters.source);
    // Filtered: every vector that passes is scanned exactly, in SQL (no graph can be asked for the
    // nearest of an arbitrary subset).
    const candidates: Candidate[] =
      window || filter
        ? sets.flatMap((set) =>
            set.nearestWhere(vector, k, window && ridWindow(window.afterMs, window.beforeMs), filter).map((r) => ({ set, rid: r.rid, s: r.s })),
          )
        : vectors.knn(file.open(), sets, vector, k).map((n) => ({ set: n.set, rid: n.rid, s: n.distance }));
    return (
      candidates
        .sort(compareCandidates)
        .filter((c) => !q.excludeId || sidOf(c) !== q.excludeId)
        .slice(0, limit)
        // Cosine distance d = 1 - cos; Elasticsearch's cosine score is (1 + cos) / 2 = 1 - d / 2.
        .map((c) => ({ doc: c.set.fetch(c.rid), score: Math.min(1, Math.max(0, 1 - c.s / 2)) }))
    );
  }, signal);
  logCall(engine, 'knn', started, { hits: hits.length });
  return hits;
}

/**
 * Writes the vector index's next file for the serving sets (`whole`: from the stored vectors alone) and
 * switches to it. Another writer's switch meanwhile is simply superseded: a file is correct for the
 * state it was read from, and what was written after is in the delta.
 */
export function writeVectorIndex(engine: Engine, whole: boolean): void {
  const { file, gens, vectors } = engine;
  const db = file.open();
  const previous = file.read(() => vectors.snapshot(db)?.file ?? null);
  const written = file.read(() => vectors.write(db, gens.serving(), whole));
  if (!written) return;
  try {
    file.write(() => vectors.commit(db, written));
  } catch (err) {
    vectors.discard(written);
    throw err;
  }
  vectors.prune(db, previous);
}

/** Puts the vectors written since the vector index's file into a new file, once more than `atMost` are. */
export function catchUpVectors(engine: Engine, atMost: number): void {
  const { file, gens, vectors } = engine;
  if (file.read(() => vectors.delta(file.open(), gens.serving())) > atMost) writeVectorIndex(engine, false);
}
