// The labels a document is searched by for its CPV codes (document.ts cpv_labels_en, cpv_labels_el):
// each code's official English and Greek label (lib/vocabulary/cpv.ts), so that an English question
// finds a Greek-only contract by its code, and a Greek one a Diavgeia decision that writes only the code.
// A code the official vocabulary lacks takes the label learned from TED notices, when enough buyers
// taught one (ingest/sources/ted/cpv-labels.ts). Not in the content hash, the vector or the API fields.
import type { IndexedDocument } from '../../index-mappings/document.js';
import { fold } from '../../lib/greek.js';
import { cpvLabel } from '../../lib/vocabulary/cpv.js';
import type { CpvLabel } from '../sources/ted/cpv-labels.js';

/** The sources whose normalizers write CPV codes: `pdi reindex` of one of them learns the TED labels again first. */
export const CPV_SOURCES: ReadonlySet<string> = new Set(['ted', 'kimdis', 'diavgeia']);

/**
 * The document with the labels of its codes, in its codes' order, each once; a label its title or
 * content already holds (KIMDIS writes each code's Greek label, TED its main code's English one) is
 * left out, so a word is not counted twice for the same fact.
 */
export function withCpvLabels<T extends Pick<IndexedDocument, 'cpv' | 'title' | 'content' | 'cpv_labels_en' | 'cpv_labels_el'>>(
  doc: T,
  learned: (code: string) => CpvLabel | undefined,
): T {
  const { cpv_labels_en: _en, cpv_labels_el: _el, ...bare } = doc;
  if (doc.cpv.length === 0) return bare as T;
  const own = fold(`${doc.title}\n${doc.content}`);
  const en = new Set<string>();
  const el = new Set<string>();
  for (const code of doc.cpv) {
    const label = cpvLabel(code) ?? learned(code);
    if (!label) continue;
    if (!own.includes(fold(label.en))) en.add(label.en);
    if (!own.includes(fold(label.el))) el.add(label.el);
  }
  return { ...bare, ...(en.size > 0 && { cpv_labels_en: [...en] }), ...(el.size > 0 && { cpv_labels_el: [...el] }) } as T;
}
