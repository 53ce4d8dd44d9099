// Procurement documents for report tests, written as the KIMDIS normalizer writes them
// (ingest/sources/kimdis/normalize.ts): parties, procedure, tenders, signing date, entities, an amount,
// and the content lines rendered from them.
import type { IndexedDocument, Party } from '../../index-mappings/document.js';
import { partyLines } from '../../ingest/sources/parties.js';
import type { DocumentStore } from '../../ingest/state/documents.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { makeDoc } from './elasticsearch.js';

export const BUYER = { name: 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', afm: '090025537' };
export const SUPPLIER = { name: 'ΑΛΦΑ ΤΕΧΝΙΚΗ ΑΕ', afm: '094014201' };

export interface ContractSpec {
  buyer?: { name: string; afm: string };
  supplier?: { name: string; afm: string };
  value?: number;
  published?: string;
  signed?: string;
  procedure?: string;
  /** Tenders received; absent when the source does not state it. */
  tenders?: number;
  /** ΑΔΑs the document carries (a KIMDIS contract names the Diavgeia award it follows). */
  adas?: string[];
  category?: 'contract' | 'award' | 'payment' | 'modification';
  title?: string;
}

export function contractDoc(id: string, spec: ContractSpec = {}): IndexedDocument {
  const buyer = spec.buyer ?? BUYER;
  const supplier = spec.supplier ?? SUPPLIER;
  const published = spec.published ?? '2024-05-01T10:00:00Z';
  const parties: Party[] = [
    { role: 'buyer', ...buyer },
    { role: 'supplier', ...supplier },
  ];
  const signed = spec.signed ?? published.slice(0, 10);
  const lines = [spec.title ?? `Σύμβαση προμήθειας ${id}`, `ΑΔΑΜ: ${id}`, ...partyLines(parties, 'el')];
  if (spec.procedure) lines.push(`Διαδικασία: ${spec.procedure}`);
  if (spec.tenders !== undefined) lines.push(`Αριθμός προσφορών: ${spec.tenders}`);
  lines.push(`Ημερομηνία υπογραφής: ${signed}`);
  if (spec.value !== undefined) lines.push(`Αξία χωρίς ΦΠΑ: ${spec.value} EUR`);
  const category = spec.category ?? 'contract';
  return makeDoc('kimdis', id, {
    title: spec.title ?? `Σύμβαση προμήθειας ${id}`,
    doc_type: category,
    doc_category: category,
    published_at: published,
    content: lines.join('\n'),
    entities: { afm: [buyer.afm, supplier.afm], ada: spec.adas ?? [], names: [buyer.name, supplier.name] },
    parties,
    procedure_type: spec.procedure ?? null,
    tenders_received: spec.tenders ?? null,
    act_date: signed,
    amount: spec.value === undefined ? null : { value: spec.value, currency: 'EUR' },
  });
}

/** Writes documents into the document store and its entity index, as ingest does first. */
export function storeDocs(documents: DocumentStore, docs: IndexedDocument[]): void {
  documents.save(docs.map(({ embedding: _e, indexed_at, content_hash, original, ...doc }) => ({ doc, indexed_at, content_hash, original })));
}

/** Writes documents as ingest does: the document store (and its entity index), then the search index. */
export async function ingestDocs(documents: DocumentStore, search: SearchProvider, docs: IndexedDocument[]): Promise<void> {
  storeDocs(documents, docs);
  await search.upsert(docs);
  await search.refresh();
}
