// The document model: what ingest produces (NormalizedDocument) and what the index holds
// (IndexedDocument). The one home for these field names.
import type { SourceName } from './sources.js';

export interface Entities {
  /** Greek VAT numbers (ΑΦΜ), 9 digits, check digit valid. */
  afm: string[];
  /** Diavgeia decision ids (ΑΔΑ). */
  ada: string[];
  /** Organization and person names as written in the source. */
  names: string[];
}

export interface Amount {
  value: number;
  currency: string;
}

/**
 * The roles a document's party can have: a small closed set, the same for every source
 * (docs/ingest-procurement-sources.md "Parties").
 * - `buyer`: the contracting authority, or the public body that spends (Diavgeia `org`, KIMDIS
 *   `organization`, TED's buyers);
 * - `supplier`: the contractor, winner or payee (KIMDIS contracting members, TED's winners, the persons
 *   of a Diavgeia award and the beneficiaries of its spending decisions);
 * - `issuer`: the public body that publishes a record that is not procurement (a geodata dataset's
 *   organisation, the body that owns a Mitos procedure);
 * - `holder`: the holder of a licence or permit (RAE);
 * - `other`: a party named without one of these roles (a person in a Diavgeia decision that is not an
 *   award, the party of a commitment's budget line).
 */
export const PARTY_ROLES = ['buyer', 'supplier', 'issuer', 'holder', 'other'] as const;
export type PartyRole = (typeof PARTY_ROLES)[number];

/** One party a document names, as the upstream record states it. */
export interface Party {
  role: PartyRole;
  /** As written in the source; null when the record gives only an ΑΦΜ. */
  name: string | null;
  /** Greek VAT number (9 digits, check digit valid) when the record gives one; else null. */
  afm: string | null;
}

/** A stored original (the upstream record or file) in the blob store. */
export interface OriginalRef {
  /** SHA-256 hex of the bytes; the blob store key. */
  sha256: string;
  content_type: string;
}

/** Output of an ingest normalizer: one upstream record in the common model. */
export interface NormalizedDocument {
  /** `<source>:<upstream id>`, deterministic, unique across sources (e.g. `diavgeia:Ω6Η2ΟΡΡ9-Β9Ω`). */
  source_id: string;
  source: SourceName;
  /** ISO 3166 alpha-2 (`GR`), or `EU`. */
  country: string;
  title: string;
  doc_type: string;
  doc_category: string;
  /** ISO 8601 UTC, seconds precision: `2024-05-01T10:00:00Z`. */
  published_at: string;
  source_url: string;
  /** ISO 639-1 (`el`, `en`). */
  language: string;
  /** 0..1, see docs/quality-score.md. */
  quality_score: number;
  content: string;
  summary: string;
  entities: Entities;
  /** The parties the record names, with their roles, in the record's order. */
  parties: Party[];
  /** The award procedure as the source states it (TED's BT-105 code, KIMDIS's and Diavgeia's label), or null. */
  procedure_type: string | null;
  /**
   * Tenders received, when the source states it (TED eForms BT-759, the fewest any lot received; KIMDIS
   * `bidsSubmitted`), else null.
   */
  tenders_received: number | null;
  /** The day the act was issued or signed (YYYY-MM-DD), when the source states it apart from publication. */
  act_date: string | null;
  amount: Amount | null;
  cpv: string[];
  region: string | null;
  sector: string | null;
}

/** What the index holds for one document. */
export interface IndexedDocument extends NormalizedDocument {
  /** ISO 8601 UTC of the write into the index. */
  indexed_at: string;
  /** SHA-256 hex of the normalized content; unchanged hash means nothing to re-embed. */
  content_hash: string;
  original: OriginalRef | null;
  /** Unit-length embedding of title + content, or null when not embedded. */
  embedding: number[] | null;
  /**
   * The English labels of its CPV codes (ingest/stages/cpv-labels.ts: the official vocabulary's, or for a
   * code it lacks, one learned from TED): searched, so an English query finds a Greek-only document; not
   * in its content hash, vector or API fields. Absent when none is known or its text holds them all.
   */
  cpv_labels_en?: string[];
  /** The Greek labels of its CPV codes, as cpv_labels_en: a Greek query finds a document that writes only the codes. */
  cpv_labels_el?: string[];
}

/**
 * How both engines hold a field: its type (Elasticsearch's mapping type; in the embedded `_docs` table,
 * TEXT for strings, arrays and objects, which it keeps as JSON, REAL or INTEGER for numbers, and its
 * vector table for `vector`), whether it is an array or may be null (or absent), and whether search reads
 * it (searched-text.ts) rather than only filters, sorts or shows it.
 */
export interface FieldSpec {
  type: 'keyword' | 'text' | 'date' | 'integer' | 'float' | 'double' | 'object' | 'nested' | 'vector';
  array?: true;
  nullable?: true;
  /** In the searched text of both engines, and searched only through it (not indexed on its own). */
  searched?: true;
  /** An object's members. */
  fields?: Record<string, FieldSpec>;
}

/** A declaration of every member of `T`. */
type FieldsOf<T> = { [K in keyof T]-?: FieldSpec };

/**
 * The document model, declared once: each field of IndexedDocument and how it is held. The Elasticsearch
 * mapping (mapping.ts), the embedded engine's columns (lib/search/embedded/schema.ts) and what both search
 * (searched-text.ts) are tested against it (test/house/document-model.test.ts); the compiler checks that it
 * names every field, and the test that each field's TypeScript type is the one declared.
 */
export const DOCUMENT_FIELDS = {
  source_id: { type: 'keyword' },
  source: { type: 'keyword' },
  country: { type: 'keyword' },
  title: { type: 'text', searched: true },
  doc_type: { type: 'keyword' },
  doc_category: { type: 'keyword' },
  published_at: { type: 'date' },
  source_url: { type: 'keyword' },
  language: { type: 'keyword' },
  quality_score: { type: 'float' },
  content: { type: 'text', searched: true },
  summary: { type: 'text', searched: true },
  entities: {
    type: 'object',
    fields: {
      afm: { type: 'keyword', array: true },
      ada: { type: 'keyword', array: true },
      names: { type: 'text', array: true, searched: true },
    } satisfies FieldsOf<Entities>,
  },
  parties: {
    type: 'nested',
    array: true,
    fields: {
      role: { type: 'keyword' },
      name: { type: 'keyword', nullable: true },
      afm: { type: 'keyword', nullable: true },
    } satisfies FieldsOf<Party>,
  },
  procedure_type: { type: 'keyword', nullable: true },
  tenders_received: { type: 'integer', nullable: true },
  act_date: { type: 'date', nullable: true },
  amount: {
    type: 'object',
    nullable: true,
    fields: { value: { type: 'double' }, currency: { type: 'keyword' } } satisfies FieldsOf<Amount>,
  },
  cpv: { type: 'keyword', array: true },
  region: { type: 'keyword', nullable: true },
  sector: { type: 'keyword', nullable: true },
  indexed_at: { type: 'date' },
  content_hash: { type: 'keyword' },
  original: {
    type: 'object',
    nullable: true,
    fields: { sha256: { type: 'keyword' }, content_type: { type: 'keyword' } } satisfies FieldsOf<OriginalRef>,
  },
  embedding: { type: 'vector', nullable: true },
  cpv_labels_en: { type: 'text', array: true, nullable: true, searched: true },
  cpv_labels_el: { type: 'text', array: true, nullable: true, searched: true },
} as const satisfies FieldsOf<IndexedDocument>;

/**
 * A document as the document store's feed gives it, in store order: stored first (`new`) or changed
 * (`updated`) at `stored_at`. Written by ingest, read by the API's watcher.
 */
export interface FeedEntry {
  seq: number;
  kind: 'new' | 'updated';
  stored_at: string;
  doc: NormalizedDocument;
}

/** The metadata fields every listing shows (docs/openapi.json DocumentMetadata). */
export const METADATA_FIELDS = [
  'source_id',
  'source',
  'country',
  'title',
  'doc_type',
  'doc_category',
  'published_at',
  'source_url',
  'language',
  'quality_score',
] as const;

/**
 * The metadata record (docs/openapi.json DocumentMetadata): METADATA_FIELDS in that order (Elasticsearch stores its JSON,
 * and recordTieFields relies on source_id coming first). The one place the record is cut from a document.
 */
export function metadataOf(doc: Pick<NormalizedDocument, (typeof METADATA_FIELDS)[number]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of METADATA_FIELDS) out[f] = doc[f];
  return out;
}

/** The extra fields Pro and Enterprise listings show (decisions.md "Sources and documents"). */
export const FULL_CONTENT_FIELDS = [
  'content',
  'summary',
  'entities',
  'parties',
  'procedure_type',
  'tenders_received',
  'amount',
  'cpv',
  'region',
  'sector',
] as const;

/**
 * A document's full-content fields, with the values a document stored before a field existed reads as
 * (its parties empty, the rest null) so that a response always carries every field.
 */
export function fullContentOf(doc: Partial<Pick<NormalizedDocument, (typeof FULL_CONTENT_FIELDS)[number]>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of FULL_CONTENT_FIELDS) out[f] = doc[f] ?? (f === 'parties' ? [] : null);
  return out;
}
