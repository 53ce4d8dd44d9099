// A CPV code → label table learned from TED notices, for a what-if of the relevance benchmark (run.ts
// --cpv-labels): TED titles every notice `<country> – <CPV label> – <title>` in every EU language, the
// label being that of the notice's main (first) code, so its Greek and English titles give the code's
// label in both. The benchmark writes the English label into the KIMDIS and Diavgeia documents that
// carry the code, to measure what an English question then finds of them (docs/benchmarks.md "Relevance of
// ask's retrieval").
import type { NormalizedDocument } from '../../index-mappings/document.js';
import { searchedTitles } from '../../index-mappings/searched-text.js';

export interface CpvLabel {
  el: string;
  en: string;
}

const TITLE_PARTS = ' – ';

/** The label of a TED notice's main CPV code, from its Greek and English titles, or null. */
export function noticeCpvLabel(doc: NormalizedDocument): { code: string; label: CpvLabel } | null {
  if (doc.source !== 'ted' || doc.cpv.length === 0) return null;
  const [title, english] = searchedTitles(doc);
  const el = title?.split(TITLE_PARTS);
  const en = english?.split(TITLE_PARTS);
  if (!el || !en || el.length < 3 || en.length < 3) return null;
  return { code: doc.cpv[0], label: { el: el[1].trim(), en: en[1].trim() } };
}

/** Each code's label as most of its notices write it (the first seen on a tie). */
export function learnCpvLabels(docs: Iterable<NormalizedDocument>): Map<string, CpvLabel> {
  const votes = new Map<string, Map<string, { label: CpvLabel; n: number }>>();
  for (const doc of docs) {
    const found = noticeCpvLabel(doc);
    if (!found) continue;
    const byLabel = votes.get(found.code) ?? new Map<string, { label: CpvLabel; n: number }>();
    const key = `${found.label.el}\n${found.label.en}`;
    const seen = byLabel.get(key) ?? { label: found.label, n: 0 };
    seen.n += 1;
    byLabel.set(key, seen);
    votes.set(found.code, byLabel);
  }
  const table = new Map<string, CpvLabel>();
  for (const [code, byLabel] of votes) {
    let best: { label: CpvLabel; n: number } | null = null;
    for (const v of byLabel.values()) if (!best || v.n > best.n) best = v;
    table.set(code, best!.label);
  }
  return table;
}

/** The English labels of a document's codes, in its codes' order, each once. */
export function englishLabels(doc: Pick<NormalizedDocument, 'cpv'>, table: Map<string, CpvLabel>): string[] {
  return [...new Set(doc.cpv.map((c) => table.get(c)?.en).filter((l): l is string => l !== undefined))];
}
