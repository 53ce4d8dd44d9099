// The source names: the canonical eight and the alias accepted for one. Labels and descriptions are
// the API's business (lib/sources.ts).

export const SOURCE_NAMES = ['ted', 'diavgeia', 'elstat', 'rae', 'data_gov_gr', 'mitos', 'kimdis', 'geodata'] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

/** Names accepted wherever a source name is, mapped to the canonical one. */
// A Map, not an object literal: a lookup in `{...}` also finds `constructor` and `__proto__`.
const ALIASES = new Map<string, SourceName>([['e_procurement', 'kimdis']]);

/** Resolves a source name or alias to its canonical name, or null when unknown. */
export function resolveSource(name: string): SourceName | null {
  if ((SOURCE_NAMES as readonly string[]).includes(name)) return name as SourceName;
  return ALIASES.get(name) ?? null;
}
