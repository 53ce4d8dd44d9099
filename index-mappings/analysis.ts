// The analysis keys of a document: what the filters select on and what aggregates and facets group by
// (lib/search/filters.ts, lib/search/aggregate.ts). Computed from the document's own fields, the same
// on both engines: Elasticsearch indexes them in ANALYSIS_FIELD (written by the adapter), the embedded
// engine writes them into its side tables (lib/search/embedded/facts.ts); the contract suites check
// both against analysisKeysOf.
import type { NormalizedDocument } from './document.js';

/** What /v1/aggregate groups by and /v1/search facets on. */
export const GROUPINGS = [
  'buyer',
  'supplier',
  'cpv_division',
  'cpv_group',
  'cpv',
  'year',
  'month',
  'source',
  'region',
  'procedure_type',
  'doc_category',
] as const;
export type Grouping = (typeof GROUPINGS)[number];

/**
 * Groupings where a document may have several keys (two suppliers, codes of two divisions): it counts
 * in the bucket of each, as a filter on either key finds it, so such buckets may overlap.
 */
export const MULTI_VALUED: ReadonlySet<Grouping> = new Set(['buyer', 'supplier', 'cpv_division', 'cpv_group', 'cpv']);

/** Groupings every document has a key of (its year, month, source and category): a document outside some of their buckets is in another. */
export const EVERY_DOCUMENT_KEYED: ReadonlySet<Grouping> = new Set(['year', 'month', 'source', 'doc_category']);

/** Keys of the ΑΦΜ groupings and filters, and of the CPV ones: a document's distinct values. */
export interface AnalysisKeys {
  /** ΑΦΜs of the parties with role buyer. */
  buyer: string[];
  /** ΑΦΜs of the parties with role supplier. */
  supplier: string[];
  /** ΑΦΜs of every party, whatever its role. */
  party: string[];
  /** The CPV codes as 8 digits, without a check digit; a code written otherwise is left out. */
  cpv: string[];
  /** Their first 2 digits. */
  cpv_division: string[];
  /** Their first 3 digits. */
  cpv_group: string[];
  /** published_at's year, `2024` (UTC, as ingest writes published_at). */
  year: string;
  /** published_at's month, `2024-05`. */
  month: string;
  /** `region` as the source writes it. */
  region: string | null;
}

/** A CPV code's 8 digits when it starts with them. */
const CPV_CODE = /^(\d{8})/;

const unique = (values: (string | null)[]) => [...new Set(values.filter((v): v is string => v !== null && v !== ''))];

export type AnalysedFields = Pick<NormalizedDocument, 'parties' | 'cpv' | 'published_at' | 'region'>;

export function analysisKeysOf(doc: AnalysedFields): AnalysisKeys {
  const parties = doc.parties ?? [];
  const cpv = unique((doc.cpv ?? []).map((c) => CPV_CODE.exec(c)?.[1] ?? null));
  return {
    buyer: unique(parties.filter((p) => p.role === 'buyer').map((p) => p.afm)),
    supplier: unique(parties.filter((p) => p.role === 'supplier').map((p) => p.afm)),
    party: unique(parties.map((p) => p.afm)),
    cpv,
    cpv_division: unique(cpv.map((c) => c.slice(0, 2))),
    cpv_group: unique(cpv.map((c) => c.slice(0, 3))),
    year: doc.published_at.slice(0, 4),
    month: doc.published_at.slice(0, 7),
    region: doc.region ?? null,
  };
}

/**
 * The object field the Elasticsearch adapter writes analysisKeysOf into (not in `_source`), one keyword
 * per key: flat, so that a filter, a terms or composite aggregation and a facet read the same values
 * (parties are nested, and an aggregation cannot key on a prefix of a code).
 */
export const ANALYSIS_FIELD = 'analysis';

/** The keyword field each grouping's keys are read from on Elasticsearch. */
export const GROUPING_FIELDS: Record<Grouping, string> = {
  buyer: `${ANALYSIS_FIELD}.buyer`,
  supplier: `${ANALYSIS_FIELD}.supplier`,
  cpv_division: `${ANALYSIS_FIELD}.cpv_division`,
  cpv_group: `${ANALYSIS_FIELD}.cpv_group`,
  cpv: `${ANALYSIS_FIELD}.cpv`,
  year: `${ANALYSIS_FIELD}.year`,
  month: `${ANALYSIS_FIELD}.month`,
  source: 'source',
  region: `${ANALYSIS_FIELD}.region`,
  procedure_type: 'procedure_type',
  doc_category: 'doc_category',
};

/** The ΑΦΜ of any party, which the `party` filter reads. */
export const PARTY_FIELD = `${ANALYSIS_FIELD}.party`;
