// What of a document is searched, as both engines index it (elasticsearch SEARCH_TEXT_FIELD, embedded
// text.ts docText): its texts without the phrases a source writes into every document alike. TED's
// content is label lines (`Notice: Contract notice (cn-standard), …`, `Buyer: …`) and its summary a
// sentence of them (`Contract award notice 449657-2026: …`), so `contracts` matched every TED notice,
// each as well as the next. The labels stay in the stored content (shown, embedded); only the searched
// text leaves them out.
import type { IndexedDocument } from './document.js';

/** TED's notice category labels (doc_category → label), as its documents' content and summary write them. */
export const TED_CATEGORY_LABELS: Readonly<Record<string, string>> = {
  tender_notice: 'Contract notice',
  award: 'Contract award notice',
  modification: 'Contract modification notice',
  prior_information: 'Prior information notice',
  correction: 'Correction notice',
  company_registration: 'Company registration notice',
};

/** TED's English title of a notice in another language, a content line of its own (buildTedDocument). */
const TED_ENGLISH_TITLE = /^Title \(English\): (.*)$/m;

/** A TED content line's label, which ingest/sources/ted/facts.ts buildTedDocument writes before the value. */
const TED_LINE_LABEL =
  /^(?:Title \(English\)|Published|Buyer|Winner|Value \([^)\n]*\)|Procedure|Tenders received|Contract nature|CPV|Place of performance \(NUTS\)|Tender deadline|Modification): /gm;
const CATEGORY = [...Object.values(TED_CATEGORY_LABELS), 'Notice'].join('|');
/** `Notice: <category> (<type>), publication number <n>, notice id <id>`: the values kept. */
const TED_NOTICE_LINE = new RegExp(`^Notice: (?:${CATEGORY}) \\(([^)\\n]*)\\)(?:, publication number (\\S+))?(?:, notice id ([^\\n]+))?$`, 'gm');

export type SearchedFields = Pick<IndexedDocument, 'source' | 'title' | 'content' | 'summary' | 'entities' | 'cpv_labels_en' | 'cpv_labels_el'>;

/**
 * The titles as searched, each weighted as a title: the title, and a TED notice's English title beside
 * its Greek (or other) one, so that an English query finds the notice by its title's words (TED gives
 * every notice's title in every EU language; its middle part is the CPV label).
 */
export function searchedTitles(doc: Pick<SearchedFields, 'source' | 'title' | 'content'>): string[] {
  const english = doc.source === 'ted' ? TED_ENGLISH_TITLE.exec(doc.content ?? '')?.[1]?.trim() : undefined;
  return [doc.title ?? '', english ?? ''].filter((t) => t !== '');
}

/** The content as searched: TED's labels left out, their values kept (its first line is the title, its second the English one). */
export function searchedContent(doc: Pick<SearchedFields, 'source' | 'content'>): string {
  const content = doc.content ?? '';
  if (doc.source !== 'ted') return content;
  return content
    .replace(TED_NOTICE_LINE, (_m, type: string, pubno?: string, id?: string) => [type, pubno, id].filter(Boolean).join(' '))
    .replace(TED_LINE_LABEL, '');
}

/** The summary as searched: TED's is a sentence of its category label, title, parties and value, all searched elsewhere. */
export function searchedSummary(doc: Pick<SearchedFields, 'source' | 'summary'>): string {
  return doc.source === 'ted' ? '' : (doc.summary ?? '');
}

/**
 * The labels of a document's CPV codes (document.ts cpv_labels_en, cpv_labels_el), English then Greek,
 * searched as body text: each analysis of the searched field reads them as it reads the rest, so an
 * English word meets the English label's stem and a Greek word the Greek label's.
 */
export function searchedCpvLabels(doc: Pick<SearchedFields, 'cpv_labels_en' | 'cpv_labels_el'>): string[] {
  return [...(doc.cpv_labels_en ?? []), ...(doc.cpv_labels_el ?? [])];
}

/**
 * Everything of a document that is searched, as values: its titles, then the body (the content, the
 * summary, the CPV labels and the entity names). Elasticsearch writes these into SEARCH_TEXT_FIELD
 * (mapping.ts searchText) and alert keywords match them (api/alerts/match.ts), so a keyword meets the
 * words a search would.
 */
export function searchedValues(doc: SearchedFields): { titles: string[]; body: string[] } {
  const body = [searchedContent(doc), searchedSummary(doc), ...searchedCpvLabels(doc), ...(doc.entities?.names ?? [])];
  return { titles: searchedTitles(doc), body: body.filter((s) => typeof s === 'string' && s !== '') };
}
