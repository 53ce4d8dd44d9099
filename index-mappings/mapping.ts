// The mapping of an indexed document (document.ts IndexedDocument): strict, so a field that is not
// declared here is a rejected write, never a silently guessed type. The one home of Elasticsearch
// field names and types; test/unit/index-mappings.test.ts snapshots it.
import { ENGLISH_ANALYZER, FOLDED_NORMALIZER, GREEK_ANALYZER } from './settings.js';
import { MAPPING_VERSION } from './version.js';

/** Greek analysis on the field itself, English on `<field>.en`: the text may be in either language. */
function bilingualText(): Record<string, unknown> {
  return {
    type: 'text',
    analyzer: GREEK_ANALYZER,
    fields: { en: { type: 'text', analyzer: ENGLISH_ANALYZER } },
  };
}

const keyword = { type: 'keyword' } as const;
/** Kept in `_source` only: neither searchable nor sortable. */
const stored = { type: 'keyword', index: false, doc_values: false } as const;
/** ISO 8601 as ingest writes it, or epoch milliseconds. */
const date = { type: 'date', format: 'strict_date_optional_time||epoch_millis' } as const;

/**
 * The fields a full-text query searches, with boosts: the title counts three times, in both analyses.
 * `entities.names` lets a search for an organisation find documents that only list it as a party.
 * A word is looked up in one analysis when the other cannot add a match (elasticsearch.ts
 * buildTextQuery): Greek words in the Greek fields, Latin words in the English ones; `entities.names`
 * is Greek-analysed only, so it is in both groups.
 */
export const GREEK_QUERY_FIELDS = ['title^3', 'content', 'summary', 'entities.names'];
export const ENGLISH_QUERY_FIELDS = ['title.en^3', 'content.en', 'summary.en', 'entities.names'];
export const TEXT_QUERY_FIELDS = [
  'title^3',
  'title.en^3',
  'content',
  'content.en',
  'summary',
  'summary.en',
  'entities.names',
];

/** The dense_vector field kNN queries run on; never returned in hits. */
export const EMBEDDING_FIELD = 'embedding';

/**
 * The metadata record (document.ts METADATA_FIELDS) as UTF-8 JSON in a binary doc value (base64 on
 * the wire): search results read it column-wise instead of loading and filtering each hit's stored
 * `_source`. Binary, not keyword: Lucene keeps keyword doc values in an LZ4-compressed terms
 * dictionary, and decompressing a block per hit made fetching 100 records cost 4-6x the query itself
 * at 1M documents; its binary doc values are stored uncompressed and have no 32,766-byte limit.
 * Neither searchable nor in `_source`; the adapter writes it (docs/benchmarks.md, docs/search-engines.md).
 */
export const METADATA_JSON_FIELD = 'metadata_json';

/** The mapping for an embedding of `dimension` floats (the embedder's dimension, e.g. 384). */
export function buildMapping(dimension: number, meta: Record<string, unknown> = {}): Record<string, unknown> {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > 4096) {
    throw new RangeError(`embedding dimension must be an integer from 1 to 4096, got ${dimension}`);
  }
  return {
    dynamic: 'strict',
    _source: { excludes: [METADATA_JSON_FIELD] },
    _meta: { mapping_version: MAPPING_VERSION, embedding_dimension: dimension, ...meta },
    properties: {
      source_id: keyword,
      source: keyword,
      country: keyword,
      title: bilingualText(),
      doc_type: keyword,
      doc_category: keyword,
      published_at: date,
      source_url: { type: 'keyword', ignore_above: 2048 },
      language: keyword,
      quality_score: { type: 'float' },
      content: bilingualText(),
      summary: bilingualText(),
      entities: {
        properties: {
          afm: keyword,
          // ΑΔΑ mixes Greek capitals and digits; folded so a lower-case or accented query still matches.
          ada: { type: 'keyword', normalizer: FOLDED_NORMALIZER },
          // Searched as Greek text; `.exact` matches a whole name, case and accents folded.
          names: {
            type: 'text',
            analyzer: GREEK_ANALYZER,
            fields: { exact: { type: 'keyword', normalizer: FOLDED_NORMALIZER, ignore_above: 512 } },
          },
        },
      },
      amount: {
        properties: {
          value: { type: 'double' },
          currency: keyword,
        },
      },
      cpv: keyword,
      region: { type: 'keyword', normalizer: FOLDED_NORMALIZER },
      sector: { type: 'keyword', normalizer: FOLDED_NORMALIZER },
      indexed_at: date,
      content_hash: keyword,
      original: {
        properties: {
          sha256: stored,
          content_type: stored,
        },
      },
      [METADATA_JSON_FIELD]: { type: 'binary', doc_values: true },
      [EMBEDDING_FIELD]: {
        type: 'dense_vector',
        dims: dimension,
        index: true,
        similarity: 'cosine',
      },
    },
  };
}
