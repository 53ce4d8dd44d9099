// How a `_docs` row of a table set (schema.ts) holds a document: each field a column, arrays and objects
// as JSON text, read back as the document stored; beside them the set's own columns (the row id, its
// publish-second block, the token count, the snippet text). And what a document must hold to be one.
import { METADATA_FIELDS, type IndexedDocument } from '../../../index-mappings/document.js';
import { SOURCE_NAMES } from '../../../index-mappings/sources.js';
import type { ExportRow, StoredDocument } from '../provider.js';
import { isoSeconds } from './keys.js';

/** How a `_docs` column holds a field of the document: arrays and objects as JSON text. */
type Column<T> = T extends string | number | null ? T : string;

/** The fields stored as JSON text. */
const JSON_COLUMNS = [
  'entities',
  'parties',
  'amount',
  'cpv',
  'original',
  'cpv_labels_en',
  'cpv_labels_el',
] as const satisfies readonly (keyof StoredDocument)[];

/** The optional fields, a column each that is NULL when the document has none. */
type Optional = 'cpv_labels_en' | 'cpv_labels_el';

/** The stored document's fields as `_docs` columns (schema.ts, in the same order); NULL for no CPV labels. */
export type DocColumns = { [K in Exclude<keyof StoredDocument, Optional>]: Column<StoredDocument[K]> } & { [K in Optional]: string | null };
/** A `_docs` row as read: the document's columns and the internal ones. */
export type DocRow = DocColumns & { rid: bigint; pubkey: bigint; indexed_ms: bigint; ntok: bigint; snippet_text: string | null };

/** The metadata record's columns (document.ts METADATA_FIELDS): the fields as they are, no JSON among them. */
export const METADATA_COLUMNS = METADATA_FIELDS.join(', ');

/** The columns of `doc` (validated by the caller), with the values a missing field is stored as. */
export function columnsOf(doc: IndexedDocument): DocColumns {
  return {
    source_id: doc.source_id,
    source: doc.source,
    country: doc.country ?? '',
    title: doc.title ?? '',
    doc_type: doc.doc_type ?? '',
    doc_category: doc.doc_category ?? '',
    published_at: doc.published_at,
    source_url: doc.source_url ?? '',
    language: doc.language ?? '',
    quality_score: doc.quality_score,
    content: doc.content ?? '',
    summary: doc.summary ?? '',
    entities: JSON.stringify(doc.entities ?? { afm: [], ada: [], names: [] }),
    parties: JSON.stringify(doc.parties ?? []),
    procedure_type: doc.procedure_type ?? null,
    tenders_received: doc.tenders_received ?? null,
    act_date: doc.act_date ?? null,
    amount: doc.amount ? JSON.stringify(doc.amount) : null,
    cpv: JSON.stringify(doc.cpv ?? []),
    region: doc.region ?? null,
    sector: doc.sector ?? null,
    indexed_at: doc.indexed_at,
    content_hash: doc.content_hash ?? '',
    original: doc.original ? JSON.stringify(doc.original) : null,
    cpv_labels_en: doc.cpv_labels_en?.length ? JSON.stringify(doc.cpv_labels_en) : null,
    cpv_labels_el: doc.cpv_labels_el?.length ? JSON.stringify(doc.cpv_labels_el) : null,
  };
}

/** The document a row stores, without the set's own columns. */
export function rowToStored(row: DocRow): StoredDocument {
  const { rid: _rid, pubkey: _pubkey, indexed_ms: _indexedMs, ntok: _ntok, snippet_text: _snippet, ...fields } = row;
  const doc: Record<string, unknown> = fields;
  for (const key of JSON_COLUMNS) doc[key] = row[key] === null ? null : JSON.parse(row[key]);
  // Rows written before these columns existed (schema.ts addDocumentColumns) read as a document stored then.
  doc.parties ??= [];
  // A document without CPV labels has none in its stored form either (as Elasticsearch's `_source`).
  if (doc.cpv_labels_en === null) delete doc.cpv_labels_en;
  if (doc.cpv_labels_el === null) delete doc.cpv_labels_el;
  // Rows are read with safe integers (row ids): a count is a plain number.
  if (typeof row.tenders_received === 'bigint') doc.tenders_received = Number(row.tenders_received);
  return doc as StoredDocument;
}

/** An export's row (provider.ts ExportRow) from the columns of the metadata and EXPORT_FIELDS, read with safe integers. */
export function exportRowOf(row: Record<string, unknown>): ExportRow {
  return {
    ...row,
    parties: row.parties === null ? [] : JSON.parse(row.parties as string),
    amount: row.amount === null ? null : JSON.parse(row.amount as string),
    cpv: JSON.parse(row.cpv as string),
    tenders_received: row.tenders_received === null ? null : Number(row.tenders_received),
  } as unknown as ExportRow;
}

/** Why `doc` cannot be written as a row (the fields a row and its row id need), or null. */
export function invalidDocument(doc: IndexedDocument, dimension: number): string | null {
  if (!doc || typeof doc !== 'object') return 'not a document';
  if (typeof doc.source_id !== 'string' || !doc.source_id) return 'source_id is missing';
  if (!SOURCE_NAMES.includes(doc.source)) return `unknown source ${String(doc.source)}`;
  if (typeof doc.title !== 'string') return 'title is not a string';
  if (typeof doc.published_at !== 'string' || isoSeconds(doc.published_at) === null) return 'published_at is not a timestamp';
  if (typeof doc.indexed_at !== 'string' || isoSeconds(doc.indexed_at) === null) return 'indexed_at is not a timestamp';
  if (typeof doc.quality_score !== 'number' || !Number.isFinite(doc.quality_score)) return 'quality_score is not a number';
  if (doc.embedding != null) {
    if (!Array.isArray(doc.embedding) || doc.embedding.length !== dimension) return `embedding must have ${dimension} dimensions`;
    if (!doc.embedding.every(Number.isFinite)) return 'embedding has a non-finite value';
  }
  return null;
}
