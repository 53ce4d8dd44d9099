// The documents a report is about: the one place that decides which documents belong to an entity.
// Today a full-text search for the identifier, kept to the documents whose extracted entities hold it
// (AFM, ADA) or whose names or text hold the folded name; to be switched to the entity resolver.
import { fold } from '../lib/greek.js';
import { normalizeAda, normalizeAfm } from '../lib/identifiers.js';
import type { SearchProvider, StoredDocument } from '../lib/search/provider.js';
import type { IdentifierType } from '../api/db/reports.js';

/** Documents read per search page. */
const PAGE = 500;
/** Documents a report covers at most; past it the report says it is partial. */
export const MAX_REPORT_DOCUMENTS = 5_000;

export interface EntityDocuments {
  documents: StoredDocument[];
  /** Matching documents the engine counted (may exceed documents.length when capped). */
  total: number;
  truncated: boolean;
}

/** The identifier as documents hold it: a bare AFM, an ADA in Greek capitals, a name as given. */
export function canonicalIdentifier(identifier: string, type: IdentifierType): string {
  if (type === 'afm') return normalizeAfm(identifier) ?? identifier;
  if (type === 'ada') return normalizeAda(identifier) ?? identifier.trim();
  return identifier.trim().replace(/\s+/g, ' ');
}

function belongs(doc: StoredDocument, identifier: string, type: IdentifierType): boolean {
  if (type === 'afm') return doc.entities?.afm?.includes(identifier) ?? false;
  if (type === 'ada') return doc.entities?.ada?.includes(identifier) ?? false;
  const wanted = fold(identifier);
  return (doc.entities?.names ?? []).some((n) => fold(n).includes(wanted)) || fold(doc.title).includes(wanted);
}

export async function entityDocuments(search: SearchProvider, identifier: string, type: IdentifierType): Promise<EntityDocuments> {
  const id = canonicalIdentifier(identifier, type);
  // A name is searched as a phrase; quotes inside it would end the phrase early.
  const text = type === 'name' ? `"${id.replace(/"/g, ' ')}"` : id;
  const documents: StoredDocument[] = [];
  let total = 0;
  let offset = 0;
  for (;;) {
    const page = await search.search({ text, limit: PAGE, offset, view: 'full' });
    total = page.total;
    for (const hit of page.hits) if (belongs(hit.doc, id, type)) documents.push(hit.doc);
    offset += page.hits.length;
    if (page.hits.length < PAGE || offset >= page.total || offset >= MAX_REPORT_DOCUMENTS) break;
  }
  return { documents, total, truncated: offset < total };
}
