// Identifiers named in a question lead ask's answer: an ΑΦΜ with a valid check digit, an ΑΔΑ, a CPV
// code, or a run of words that is a party's name in the entity index. Their documents come first in
// ask's sources, the most recent first, then the rest by relevance: `Which decisions concern ΑΦΜ X?`
// asks for X's documents, which neither leg ranks as a whole (the model barely reads digits, and the
// full-text leg ranks X among the question's other words).
import type { EntityReads } from '../entity-readers.js';
import type { ReadOptions, SearchProvider } from '../search/provider.js';
import { cpvLabel } from '../vocabulary/cpv.js';

/** A CPV code as written: 8 digits, with or without its check digit (`50232100-0`), not inside a longer number. */
const CPV_IN_TEXT = /(?<![\p{N}\p{L}])(\d{8})(?:-\d)?(?![\p{N}\p{L}]|[.,]\d)/gu;

export interface NamedDeps {
  entities: EntityReads;
  search: SearchProvider;
}

/** The CPV codes a text names (codes of the CPV 2008 vocabulary: not any 8-digit number), each once, in order. */
export function cpvCodesIn(text: string): string[] {
  return [...new Set([...text.matchAll(CPV_IN_TEXT)].map((m) => m[1]!).filter((code) => cpvLabel(code) !== undefined))];
}

/**
 * The documents carrying the identifiers `question` names, at most `limit`: each identifier's newest
 * first, taken in turn from each identifier (the first named first), each document once.
 */
export async function namedDocuments(question: string, limit: number, deps: NamedDeps, opts: ReadOptions = {}): Promise<string[]> {
  const codes = cpvCodesIn(question);
  const [keys, ...byCode] = await Promise.all([
    deps.entities.named(question, limit, opts),
    // A code is a word of the documents that carry it (each source writes its codes into the content).
    ...codes.map((code) => deps.search.search({ text: code, limit, offset: 0, sort: 'date', view: 'metadata' }, opts)),
  ]);
  const lists = [...keys.map((k) => k.source_ids), ...byCode.map((r) => r.hits.map((h) => h.doc.source_id))];
  const out = new Set<string>();
  for (let rank = 0; out.size < limit && lists.some((l) => rank < l.length); rank++) {
    for (const list of lists) if (rank < list.length && out.size < limit) out.add(list[rank]!);
  }
  return [...out];
}
