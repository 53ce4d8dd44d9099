// What the embedded engine's parts share (provider.ts builds it): the index file, its generations, the
// vector index, the tuning, the counters of how searches were served, and the engine's log.
import type { Logger } from '../../logger.js';
import type { Generations } from './generations.js';
import type { IndexFile } from './index-file.js';
import type { Counters } from './read-pool.js';
import type { Tuning } from './table-set.js';
import type { VectorIndex } from './vector-index.js';

export interface Engine {
  readonly file: IndexFile;
  readonly gens: Generations;
  readonly vectors: VectorIndex;
  readonly tuning: Tuning;
  /** Embedding dimension the index holds. */
  readonly dimension: number;
  /** How searches were served, per table set consulted (for tests, benchmarks and debugging). */
  readonly counters: Counters;
  readonly log?: Logger;
}

/** One debug line per engine call, with its time since `started`. */
export function logCall(engine: Engine, op: string, started: number, extra: object): void {
  engine.log?.debug({ op, ms: Math.round((performance.now() - started) * 100) / 100, ...extra }, 'embedded engine call');
}
