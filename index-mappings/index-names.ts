// Naming of indices and aliases (STYLE.md "Index lifecycle"):
//   physical index  <prefix>-docs-<source>-m<MAPPING_VERSION>-<stamp>   one per source and generation
//   read alias      <prefix>-docs                                       every source; clients query it
//   write alias     <prefix>-docs-<source>                              one source; writes go through it
// A rebuild creates a new physical index and moves both aliases to it in one atomic update.
import type { SourceName } from './sources.js';
import { MAPPING_VERSION } from './version.js';

/** The alias every read goes through: all sources. */
export function readAlias(prefix: string): string {
  return `${prefix}-docs`;
}

/** The alias one source's writes go through (and reads restricted to that source may use). */
export function writeAlias(prefix: string, source: SourceName): string {
  return `${prefix}-docs-${source}`;
}

/** Pattern matching every physical index of this prefix, whatever the source or mapping version. */
export function physicalIndexPattern(prefix: string): string {
  return `${prefix}-docs-*-m*`;
}

/**
 * A physical index name. `stamp` defaults to the UTC time to the millisecond (`20250101t093000123`),
 * which orders generations by name; `init` is used for the first generation `init()` creates, so that
 * two processes initialising at once agree on one name.
 */
export function physicalIndexName(prefix: string, source: SourceName, stamp: string = timeStamp()): string {
  return `${prefix}-docs-${source}-m${MAPPING_VERSION}-${stamp}`;
}

export function timeStamp(d: Date = new Date()): string {
  return d.toISOString().replace(/[-:.Z]/g, '').toLowerCase();
}

/** What every index records in its mapping `_meta`. */
export interface IndexMeta {
  mapping_version: number;
  source: SourceName;
  embedding_model: string;
  embedding_dimension: number;
}

export function indexMeta(source: SourceName, embeddingModel: string, dimension: number): IndexMeta {
  return { mapping_version: MAPPING_VERSION, source, embedding_model: embeddingModel, embedding_dimension: dimension };
}
