// The mapping of an indexed document (document.ts IndexedDocument): strict, so a field that is not
// declared here is a rejected write, never a silently guessed type. The one home of Elasticsearch
// field names and types; test/elasticsearch/index-mappings.test.ts snapshots it.
import { ENGLISH_ANALYZER, FOLDED_NORMALIZER, GREEK_ANALYZER } from './settings.js';
import { ANALYSIS_FIELD } from './analysis.js';
import type { IndexedDocument } from './document.js';
import { searchedValues, type SearchedFields } from './searched-text.js';
import { MAPPING_VERSION } from './version.js';
import { TITLE_WEIGHT } from './ranking.js';

/** Greek analysis on the field itself, English on `<field>.en`: the text may be in either language. */
const bilingualText = {
  type: 'text',
  analyzer: GREEK_ANALYZER,
  fields: { en: { type: 'text', analyzer: ENGLISH_ANALYZER } },
} as const;

/** Text kept in `_source` for reading, not searched itself: SEARCH_TEXT_FIELD holds it for search. */
const readText = { type: 'text', index: false } as const;

const keyword = { type: 'keyword' } as const;
/** Kept in `_source` only: neither searchable nor sortable. */
const stored = { type: 'keyword', index: false, doc_values: false } as const;
/** ISO 8601 as ingest writes it, or epoch milliseconds. */
const date = { type: 'date', format: 'strict_date_optional_time||epoch_millis' } as const;

/**
 * Every text a search looks in, in one field: the title, the content, the summary, the CPV labels
 * (English and Greek) and the entity names (so a search for an organisation finds documents that only list it as a party). One field, so a
 * word is one postings list to score, where four fields made it four and their best match. At 1M
 * documents that gave a two-term query ~2x and the most common term 1.1-1.8x the throughput on
 * Elasticsearch alone (docs/benchmarks-history.md, "one searched field; Elasticsearch 9.5 beside 8.19").
 */
export const SEARCH_TEXT_FIELD = 'search_text';

/**
 * What the adapter writes into SEARCH_TEXT_FIELD (searched-text.ts: a source's labels left out);
 * Elasticsearch keeps 100 positions between values, so a phrase never spans two. The title comes
 * TITLE_WEIGHT times (ranking.ts), so a word of it counts that many times in BM25 (BM25F's field
 * weights). Not a query-time boost: boosting a title field in a second clause made every word two
 * postings lists again and gave back most of the gain.
 */
export function searchText(doc: SearchedFields): string[] {
  const { titles, body } = searchedValues(doc);
  return [...titles.flatMap((t) => Array<string>(TITLE_WEIGHT).fill(t)), ...body];
}

/**
 * The Latin keys of the Greek words of the title and of each entity name, one value each (written by the
 * adapter: lib/search/latin-names.ts latinValues), so that a Latin-script query (`Thessaloniki`, `Dimos
 * Athinaion`) finds the Greek names (elasticsearch/queries.ts buildTextQuery). Keys are lower-case Latin
 * letters; the standard analyzer splits them at spaces. Not in `_source`.
 */
export const SEARCH_LATIN_FIELD = 'search_latin';

/**
 * The fields a full-text query searches. A word is looked up in one analysis when the other cannot add
 * a match (lib/search/elasticsearch/queries.ts buildTextQuery): Greek words in the Greek analysis, Latin words in the
 * English one, and both for prefixes, mixed scripts, digits and stop words.
 */
export const GREEK_QUERY_FIELDS = [SEARCH_TEXT_FIELD];
export const ENGLISH_QUERY_FIELDS = [`${SEARCH_TEXT_FIELD}.en`];
export const TEXT_QUERY_FIELDS = [SEARCH_TEXT_FIELD, `${SEARCH_TEXT_FIELD}.en`];

/** The first mapping version with SEARCH_TEXT_FIELD. */
export const SEARCH_TEXT_SINCE = 5;

/**
 * The fields indices of mapping versions before SEARCH_TEXT_SINCE searched instead, the title boosted
 * at query time (`entities.names` had no English analysis). While such an index still serves (until
 * `pdi reindex` rebuilds it), a query names these too, and is `lenient`, so each index searches the
 * fields it has: an older one lacks SEARCH_TEXT_FIELD, a current one does not index these.
 */
export const OLDER_GREEK_QUERY_FIELDS = ['title^3', 'content', 'summary', 'entities.names'];
export const OLDER_ENGLISH_QUERY_FIELDS = ['title.en^3', 'content.en', 'summary.en', 'entities.names'];
export const OLDER_TEXT_QUERY_FIELDS = [...new Set([...OLDER_GREEK_QUERY_FIELDS, ...OLDER_ENGLISH_QUERY_FIELDS])];

/** The dense_vector field kNN queries run on; never returned in hits. */
export const EMBEDDING_FIELD = 'embedding';

/**
 * The metadata record (document.ts METADATA_FIELDS) as UTF-8 JSON in a binary doc value (base64 on the
 * wire): search results read it column-wise instead of loading and filtering each hit's stored `_source`.
 * Binary, not keyword: Lucene keeps keyword doc values in an LZ4-compressed terms dictionary, and
 * decompressing a block per hit made fetching 100 records cost 4-6x the query itself at 1M documents; its
 * binary doc values are stored uncompressed and have no 32,766-byte limit. Neither searchable nor in
 * `_source`; the adapter writes it (docs/benchmarks-history.md "the fetch phase, ties, one segment",
 * docs/search-engines.md).
 */
export const METADATA_JSON_FIELD = 'metadata_json';

/**
 * The text a document's snippet is cut from (lib/search/snippet.ts snippetText: the opening of its
 * content, capped), UTF-8 in a binary doc value like METADATA_JSON_FIELD, so a page of search results
 * reads it column-wise beside the record instead of each hit's `_source` (reading `content` from
 * `_source` made a 100-hit page with snippets cost 12x the page without). Written by the adapter, not
 * in `_source`; a rebuild that copies a source writes it again from the content.
 */
export const SNIPPET_TEXT_FIELD = 'snippet_text';

/**
 * Which generation of its source a document belongs to, `<source>@<stamp>` (written by the adapter,
 * not in `_source`): a one-source rebuild writes the source's new generation beside the old one in the
 * same index, and the read alias is filtered to each source's current generation
 * (lib/search/elasticsearch/generations.ts).
 */
export const GENERATION_FIELD = 'generation';

/** The mapping for an embedding of `dimension` floats (the embedder's dimension, e.g. 384). */
export function buildMapping(dimension: number, meta: Record<string, unknown> = {}): Record<string, unknown> {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > 4096) {
    throw new RangeError(`embedding dimension must be an integer from 1 to 4096, got ${dimension}`);
  }
  return {
    dynamic: 'strict',
    _source: { excludes: [METADATA_JSON_FIELD, SNIPPET_TEXT_FIELD, SEARCH_TEXT_FIELD, SEARCH_LATIN_FIELD, GENERATION_FIELD, ANALYSIS_FIELD] },
    _meta: { mapping_version: MAPPING_VERSION, embedding_dimension: dimension, ...meta },
    properties: {
      source_id: keyword,
      source: keyword,
      country: keyword,
      title: readText,
      doc_type: keyword,
      doc_category: keyword,
      published_at: date,
      source_url: { type: 'keyword', ignore_above: 2048 },
      language: keyword,
      quality_score: { type: 'float' },
      content: readText,
      summary: readText,
      entities: {
        properties: {
          afm: keyword,
          // ΑΔΑ mixes Greek capitals and digits; folded so a lower-case or accented query still matches.
          ada: { type: 'keyword', normalizer: FOLDED_NORMALIZER },
          // Searched through SEARCH_TEXT_FIELD; `.exact` matches a whole name, case and accents folded.
          names: {
            ...readText,
            fields: { exact: { type: 'keyword', normalizer: FOLDED_NORMALIZER, ignore_above: 512 } },
          },
        },
      },
      // Who the document names and in what role; `nested` so that a role, a name and an ΑΦΜ read
      // together belong to one party.
      parties: {
        type: 'nested',
        properties: {
          role: keyword,
          name: { type: 'keyword', normalizer: FOLDED_NORMALIZER, ignore_above: 512 },
          afm: keyword,
        },
      },
      procedure_type: keyword,
      tenders_received: { type: 'integer' },
      act_date: { type: 'date', format: 'strict_date' },
      amount: {
        properties: {
          value: { type: 'double' },
          currency: keyword,
        },
      },
      cpv: keyword,
      // Searched through SEARCH_TEXT_FIELD; in `_source` so that a rebuild that copies a source keeps them.
      cpv_labels_en: readText,
      cpv_labels_el: readText,
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
      [SEARCH_TEXT_FIELD]: bilingualText,
      [SEARCH_LATIN_FIELD]: { type: 'text', analyzer: 'standard' },
      [METADATA_JSON_FIELD]: { type: 'binary', doc_values: true },
      [SNIPPET_TEXT_FIELD]: { type: 'binary', doc_values: true },
      [GENERATION_FIELD]: keyword,
      // analysis.ts analysisKeysOf, written by the adapter: what filters, aggregates and facets read.
      [ANALYSIS_FIELD]: {
        properties: {
          buyer: keyword,
          supplier: keyword,
          party: keyword,
          cpv: keyword,
          cpv_division: keyword,
          cpv_group: keyword,
          year: keyword,
          month: keyword,
          region: keyword,
        },
      },
      [EMBEDDING_FIELD]: {
        type: 'dense_vector',
        dims: dimension,
        index: true,
        similarity: 'cosine',
      },
    },
  };
}
