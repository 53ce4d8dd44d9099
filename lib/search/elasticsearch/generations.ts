// Generations of each source inside one physical index. Every document carries GENERATION_FIELD,
// `<source>@<stamp>`, and its `_id` is `<source_id>@<stamp>`, so two generations of one source live side
// by side without their ids colliding. The read alias is filtered to each source's current generation;
// a one-source rebuild writes the new generation beside the old one, swaps the filter in one
// `_aliases` call (readers see one or the other, never both or neither) and deletes the old one.
// The filter is the one record of which generation serves: writers and gets by id read it too.
import { GENERATION_FIELD } from '../../../index-mappings/mapping.js';
import { SOURCE_NAMES, type SourceName } from '../../../index-mappings/sources.js';
import { EngineResponseError, type EngineClient } from './client.js';
import type { Query } from './queries.js';

/** Each source's current generation stamp. */
export type Generations = ReadonlyMap<SourceName, string>;

/** Every source at one stamp: a new physical index. */
export function freshGenerations(stamp: string): Generations {
  return new Map(SOURCE_NAMES.map((s) => [s, stamp]));
}

export function generationValue(source: SourceName, stamp: string): string {
  return `${source}@${stamp}`;
}

/**
 * The `_id` of a document in a generation. Stamps hold no `@`, so the part after the last `@` is the
 * stamp and two (source_id, stamp) pairs never share an id.
 */
export function docId(sourceId: string, stamp: string): string {
  return `${sourceId}@${stamp}`;
}

/** The read alias's filter: each source's current generation. */
export function aliasFilter(gens: Generations): Query {
  return { terms: { [GENERATION_FIELD]: [...gens].map(([s, stamp]) => generationValue(s, stamp)) } };
}

/** The generations a filter made by aliasFilter lists, or null for any other filter (or none). */
export function parseFilter(filter: unknown): Generations | null {
  const values = (filter as { terms?: Record<string, unknown> } | undefined)?.terms?.[GENERATION_FIELD];
  if (!Array.isArray(values)) return null;
  const gens = new Map<SourceName, string>();
  for (const v of values) {
    const at = String(v).lastIndexOf('@');
    const source = String(v).slice(0, at) as SourceName;
    if (at < 0 || !SOURCE_NAMES.includes(source)) return null;
    gens.set(source, String(v).slice(at + 1));
  }
  return SOURCE_NAMES.every((s) => gens.has(s)) ? gens : null;
}

/** The source a source_id names (`<source>:<upstream id>`), or null. */
export function sourceOf(sourceId: string): SourceName | null {
  const s = sourceId.slice(0, sourceId.indexOf(':')) as SourceName;
  return SOURCE_NAMES.includes(s) ? s : null;
}

/** An index behind an alias and the alias's filter on it. */
export interface AliasedIndex {
  index: string;
  filter?: Query;
}

/** What an alias points at ([] when it does not exist). */
export async function aliasState(engine: EngineClient, alias: string): Promise<AliasedIndex[]> {
  try {
    const res = await engine.call('indices.get_alias', () => engine.es.indices.getAlias({ name: alias }));
    return Object.entries(res).map(([index, v]) => ({ index, filter: v.aliases?.[alias]?.filter as Query | undefined }));
  } catch (err) {
    if (err instanceof EngineResponseError && err.status === 404) return [];
    throw err;
  }
}

/** The one index behind the alias and its generations, or null (no alias, several indices, or an alias of a build before generations). */
export async function servingGenerations(engine: EngineClient, alias: string): Promise<{ index: string; gens: Generations } | null> {
  const state = await aliasState(engine, alias);
  if (state.length !== 1) return null;
  const gens = parseFilter(state[0].filter);
  return gens && { index: state[0].index, gens };
}

/** Documents of `source` in `index` not of generation `keep` (a replaced generation, or one a killed rebuild half wrote). */
export function otherGenerations(source: SourceName, keep: string): Query {
  return { bool: { filter: [{ term: { source } }], must_not: [{ term: { [GENERATION_FIELD]: generationValue(source, keep) } }] } };
}

/** Documents of `source` of generation `stamp`. */
export function ofGeneration(source: SourceName, stamp: string): Query {
  return { term: { [GENERATION_FIELD]: generationValue(source, stamp) } };
}
