// Naming of indices and aliases (docs/operations.md "Elasticsearch"):
//   physical index  <prefix>-docs-m<MAPPING_VERSION>-<stamp>   one per generation, every source in it
//   alias           <prefix>-docs                              reads and writes (its one write index)
// A rebuild creates a new physical index and moves the alias to it in one atomic update.
// Builds of mapping version 5 and before kept one index per source (`<prefix>-docs-<source>-m<v>-<stamp>`)
// behind a write alias `<prefix>-docs-<source>` each; a rebuild replaces them all (legacyIndexPattern).
import { SOURCE_NAMES } from './sources.js';
import { MAPPING_VERSION } from './version.js';

/** The alias every read and write goes through: all sources, one physical index. */
export function readAlias(prefix: string): string {
  return `${prefix}-docs`;
}

/** Pattern matching every physical index of this layout and prefix, whatever the mapping version. */
export function physicalIndexPattern(prefix: string): string {
  return `${prefix}-docs-m*`;
}

/** Patterns matching the per-source indices of builds before the one-index layout (mapping version ≤ 5). */
export function legacyIndexPatterns(prefix: string): string[] {
  return SOURCE_NAMES.map((source) => `${prefix}-docs-${source}-m*`);
}

/**
 * A physical index name. `stamp` defaults to the UTC time to the millisecond (`20250101t093000123`),
 * which orders generations by name; `init` is used for the first generation `init()` creates, so that
 * two processes initialising at once agree on one name.
 */
export function physicalIndexName(prefix: string, stamp: string = timeStamp()): string {
  return `${prefix}-docs-m${MAPPING_VERSION}-${stamp}`;
}

export function timeStamp(d: Date = new Date()): string {
  return d
    .toISOString()
    .replace(/[-:.Z]/g, '')
    .toLowerCase();
}

/** What every index records in its mapping `_meta`. */
export interface IndexMeta {
  mapping_version: number;
  embedding_model: string;
  embedding_dimension: number;
}

export function indexMeta(embeddingModel: string, dimension: number): IndexMeta {
  return { mapping_version: MAPPING_VERSION, embedding_model: embeddingModel, embedding_dimension: dimension };
}
