// The label of a CPV code in Greek and English, learned from TED notices: TED titles every notice
// `<country> – <CPV label> – <title>` in every EU language, the label being that of the notice's main
// (first) code, so its Greek and English titles give the code's label in both. The store keeps the
// votes (ingest/state/cpv-labels.ts); KIMDIS and Diavgeia documents carrying a code are searched by its
// English label too.
import type { NormalizedDocument } from '../../../index-mappings/document.js';
import { searchedTitles } from '../../../index-mappings/searched-text.js';

export interface CpvLabel {
  el: string;
  en: string;
}

/** The sources whose documents are given the English labels of their codes (TED has its own English title). */
export const LABELLED_SOURCES: ReadonlySet<string> = new Set(['kimdis', 'diavgeia']);

const TITLE_PARTS = ' – ';

/** The label of a TED notice's main CPV code, from its Greek and English titles, or null. */
export function noticeCpvLabel(doc: NormalizedDocument): { code: string; label: CpvLabel } | null {
  if (doc.source !== 'ted' || doc.cpv.length === 0) return null;
  const [title, english] = searchedTitles(doc);
  const el = title?.split(TITLE_PARTS);
  const en = english?.split(TITLE_PARTS);
  if (!el || !en || el.length < 3 || en.length < 3) return null;
  const label = { el: el[1].trim(), en: en[1].trim() };
  return label.el && label.en ? { code: doc.cpv[0], label } : null;
}

/** Which of two labels with as many votes wins: the lesser by code point, as the store's ORDER BY el, en. */
function before(a: CpvLabel, b: CpvLabel): boolean {
  return a.el !== b.el ? a.el < b.el : a.en < b.en;
}

/** Each code's label as most of its notices write it (ties as the store breaks them). */
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
    for (const v of byLabel.values()) if (!best || v.n > best.n || (v.n === best.n && before(v.label, best.label))) best = v;
    table.set(code, best!.label);
  }
  return table;
}

/** The English labels of a document's codes, in its codes' order, each once. */
export function englishLabels(doc: Pick<NormalizedDocument, 'cpv'>, table: ReadonlyMap<string, CpvLabel>): string[] {
  return [...new Set(doc.cpv.map((c) => table.get(c)?.en).filter((l): l is string => l !== undefined))];
}
