// Pure request builders of the Elasticsearch adapter: a query in, a request body out, no I/O
// (tested body for body in test/elasticsearch/elasticsearch-bodies.test.ts).
import type { estypes } from '@elastic/elasticsearch';
import { METADATA_FIELDS } from '../../../index-mappings/document.js';
import {
  EMBEDDING_FIELD,
  ENGLISH_QUERY_FIELDS,
  GREEK_QUERY_FIELDS,
  METADATA_JSON_FIELD,
  OLDER_ENGLISH_QUERY_FIELDS,
  OLDER_GREEK_QUERY_FIELDS,
  OLDER_TEXT_QUERY_FIELDS,
  SEARCH_LATIN_FIELD,
  SNIPPET_TEXT_FIELD,
  TEXT_QUERY_FIELDS,
} from '../../../index-mappings/mapping.js';
import { ENGLISH_STOP_WORDS, GREEK_STOP_WORDS } from '../../../index-mappings/settings.js';
import type { SourceName } from '../../../index-mappings/sources.js';
import type { Filters } from '../filters.js';
import { filterClauses } from './filter-query.js';
import { KNN_MIN_CANDIDATES } from '../../../index-mappings/ranking.js';
import { tokens } from '../../greek.js';
import { exonymOf, latinPhraseKeys } from '../latin-names.js';
import { readQuery } from '../query-text.js';
import { MORE_LIKE_THIS_TERMS, type KnnQuery, type MoreLikeThisQuery } from '../provider.js';

/** Hits never carry the vector (provider.ts StoredDocument). */
export const HIT_SOURCE: estypes.SearchSourceConfig = { excludes: [EMBEDDING_FIELD] };
/**
 * Whole documents, vector included: indices leave vectors out of `_source` (lifecycle.ts
 * indexSettings) and Elasticsearch puts them back, as stored (float32), when asked to.
 */
export const VECTORS_IN_SOURCE: estypes.SearchSourceConfig = { exclude_vectors: false };
/**
 * What a request returns of each hit: whole documents from `_source`, or the metadata record from
 * doc values (mapping.ts METADATA_JSON_FIELD). `stored_fields: _none_` leaves out `_id` too: loading
 * it decompresses a stored-fields block per hit, a third of a 100-hit metadata page's cost at 1M
 * documents; the record carries source_id.
 */
export type Projection = Pick<estypes.SearchRequest, '_source' | 'docvalue_fields' | 'stored_fields'>;
export const WHOLE: Projection = { _source: HIT_SOURCE };
export const METADATA: Projection = { _source: false, stored_fields: '_none_', docvalue_fields: [METADATA_JSON_FIELD] };
/** The metadata record from `_source`, for documents written before the doc-values record existed. */
export const METADATA_FROM_SOURCE: Projection = { _source: { includes: [...METADATA_FIELDS] } };
/** The metadata record and the snippet text, both from doc values (TextQuery view `snippet`). */
export const METADATA_AND_SNIPPET: Projection = { _source: false, stored_fields: '_none_', docvalue_fields: [METADATA_JSON_FIELD, SNIPPET_TEXT_FIELD] };
/** The metadata record and the content from `_source`, for documents written before the snippet text existed: the text is cut from it. */
export const SNIPPET_FROM_SOURCE: Projection = { _source: { includes: [...METADATA_FIELDS, 'content'] } };
/** Sort values only: the skipped part of a deep walk. */
export const SORT_VALUES_ONLY: Projection = { _source: false, stored_fields: '_none_' };
/** Totals up to this are exact from the page request alone (Elasticsearch's default threshold). */
export const EXACT_COUNT_UP_TO = 10_000;

export type Query = estypes.QueryDslQueryContainer;
/** A query, the index or alias it runs on, and the signal that abandons it (ReadOptions). */
export type Target = { index: string; query: Query; signal?: AbortSignal };
export type SortSpec = { field: string; order: 'asc' | 'desc' }[];

/** BM25 first, then newest, then source_id: a total order, so pages never overlap or skip. */
export const TEXT_SORT: SortSpec = [
  { field: '_score', order: 'desc' },
  { field: 'published_at', order: 'desc' },
  { field: 'source_id', order: 'asc' },
];
export const LIST_SORT: SortSpec = [
  { field: 'published_at', order: 'desc' },
  { field: 'source_id', order: 'asc' },
];

/**
 * The full-text query. simple_query_string with only PHRASE, PREFIX and WHITESPACE enabled: `"a b"`
 * and `abc*` work, every other operator character is plain text, and it never raises on syntax.
 * Terms are ANDed; every searched text of a document is in one field (mapping.ts SEARCH_TEXT_FIELD), so
 * a query can match a Greek word in the title and an English one in the content.
 *
 * Each word or phrase is looked up only in the analysis that can match it (fieldGroupOf): a Greek word
 * in `search_text`, a Latin word in `search_text.en`. The other analysis of the same text cannot add a
 * match there, only a second score for the same occurrence (docs/search-engines.md).
 *
 * `olderIndices`: an index of a mapping version before SEARCH_TEXT_SINCE serves; the fields it searches
 * are named too. Not always: on a current index each such name costs a refused field per shard, a
 * fifth of a cheap query's time on Elasticsearch.
 */
export function buildTextQuery(text: string, filters: Filters = {}, olderIndices = false, translated: string[][] = []): Query {
  const own = textMatch(text, olderIndices);
  const filter = filterClauses(filters);
  if (translated.length === 0) {
    const query: Query = { bool: { must: own.must, filter } };
    return own.prefixesOnly ? { constant_score: { filter: query, boost: 1 } } : query;
  }
  // A document holds one alternative of every group, each alternative's words all (textMatch ANDs them).
  const anyOf = (group: string[]): Query => ({
    bool: { should: group.map((alt) => ({ bool: { must: textMatch(alt, olderIndices).must } })), minimum_should_match: 1 },
  });
  const translation: Query = { bool: { must: translated.map(anyOf) } };
  return { bool: { should: [{ bool: { must: own.must } }, translation], minimum_should_match: 1, filter } };
}

/** A text's words, ANDed, as clauses of a bool's `must`; `prefixesOnly` when it is prefixes alone. */
function textMatch(text: string, olderIndices: boolean): { must: Query[]; prefixesOnly: boolean } {
  const groups = new Map<FieldGroup, string[]>();
  const latin: Query[] = [];
  for (const chunk of queryChunks(text)) {
    const group = fieldGroupOf(chunk);
    const names = group === 'english' && !isPrefix(chunk) ? latinNameQueries(chunk, olderIndices) : [];
    if (names.length) {
      latin.push({ bool: { should: [simpleQuery(chunk, group, olderIndices), ...names], minimum_should_match: 1 } });
      continue;
    }
    const chunks = groups.get(group);
    if (chunks) chunks.push(chunk);
    else groups.set(group, [chunk]);
  }
  // Nothing to search for (no letter or digit anywhere): no hits, as on the embedded engine. Sent as
  // written, `*` alone would match every document.
  const must: Query[] =
    groups.size === 0 && latin.length === 0
      ? [{ match_none: {} }]
      : [...[...groups].map(([group, chunks]) => simpleQuery(chunks.join(' '), group, olderIndices)), ...latin];
  // Only prefixes: one score for every match, as on the embedded engine, so the order is the
  // tie-break alone (newest first). Scored, a prefix found in a title (weighted) came first.
  const prefixesOnly = groups.size > 0 && latin.length === 0 && [...groups.values()].every((chunks) => chunks.every(isPrefix));
  return { must, prefixesOnly };
}

/**
 * What else a Latin word or phrase may be: the Latin keys of Greek names (SEARCH_LATIN_FIELD, a
 * phrase of keys: `dimos athinaion` meets `Δήμος Αθηναίων`), and for a word, the Greek name it is an
 * English name of (`athens`: `αθηνα`, looked up in the Greek analysis). latin-names.ts.
 */
function latinNameQueries(chunk: string, olderIndices: boolean): Query[] {
  const words = tokens(chunk);
  const out: Query[] = [];
  const keys = latinPhraseKeys(words);
  if (keys) out.push({ match_phrase: { [SEARCH_LATIN_FIELD]: keys.join(' ') } });
  const greek = words.length === 1 && !chunk.startsWith('"') ? exonymOf(words[0]) : null;
  if (greek) out.push(simpleQuery(greek, 'greek', olderIndices));
  return out;
}

type FieldGroup = 'greek' | 'english' | 'all';
const FIELDS_OF: Record<FieldGroup, string[]> = { greek: GREEK_QUERY_FIELDS, english: ENGLISH_QUERY_FIELDS, all: TEXT_QUERY_FIELDS };
const FIELDS_WITH_OLDER: Record<FieldGroup, string[]> = {
  greek: [...GREEK_QUERY_FIELDS, ...OLDER_GREEK_QUERY_FIELDS],
  english: [...ENGLISH_QUERY_FIELDS, ...OLDER_ENGLISH_QUERY_FIELDS],
  all: [...TEXT_QUERY_FIELDS, ...OLDER_TEXT_QUERY_FIELDS],
};

function simpleQuery(query: string, group: FieldGroup, olderIndices: boolean): Query {
  return {
    simple_query_string: {
      query,
      fields: (olderIndices ? FIELDS_WITH_OLDER : FIELDS_OF)[group],
      default_operator: 'and',
      flags: 'PHRASE|PREFIX|WHITESPACE',
      lenient: true,
    },
  };
}

/**
 * The query's parts (query-text.ts, the reader both engines share) as simple_query_string chunks: a
 * word or phrase as written, folded (the analysers fold too, except for marks: the Greek lowercase
 * filter folds precomposed letters only, and left a combining mark in the token, which then matched
 * nothing), a prefix as `abc*` (a prefix is not analysed, so it is sent as the index holds it).
 */
export function queryChunks(text: string): string[] {
  return [...new Set(readQuery(text).map((p) => (p.kind === 'phrase' ? `"${p.text}"` : p.kind === 'prefix' ? `${p.text}*` : p.text)))];
}

/** A prefix chunk (`abc*`); phrases and plain words never end with a star (queryChunks). */
const isPrefix = (chunk: string) => chunk.endsWith('*') && !chunk.startsWith('"');

const GREEK_ONLY = /^"?[\p{Script=Greek}\p{M}\p{N}\s]+"?$/u;
const LATIN_ONLY = /^"?[\p{Script=Latin}\p{M}\p{N}\s]+"?$/u;
const GREEK_STOP = new Set(GREEK_STOP_WORDS);
const ENGLISH_STOP = new Set(ENGLISH_STOP_WORDS);

/**
 * Where a word or phrase is looked up. A word of Greek letters (and digits) found through a `.en`
 * field is the same word in the Greek field beside it, where the Greek analysis (a superset: folded and
 * stemmed) finds it too; likewise a Latin word found through a Greek field is found by the English
 * analysis of the same text. So such a word needs one analysis only, and the result set is the same.
 * All fields are kept where that reasoning does not hold: a prefix (matched against stemmed terms,
 * which can be shorter than it), punctuation (the tokenizer may split or join differently from
 * `tokens`), mixed scripts, digits alone, and words that are all stop words of their language (dropped
 * by that analysis, indexed by the other).
 */
export function fieldGroupOf(chunk: string): FieldGroup {
  const greek = GREEK_ONLY.test(chunk);
  if (!greek && !LATIN_ONLY.test(chunk)) return 'all';
  const words = tokens(chunk);
  if (!words.some((w) => /\p{L}/u.test(w))) return 'all';
  const stop = greek ? GREEK_STOP : ENGLISH_STOP;
  if (words.every((w) => stop.has(w))) return 'all';
  return greek ? 'greek' : 'english';
}

/** A score-ordered window around a text page: hits [from, from + size), the page starting `lead` in. */
export interface ScorePage {
  from: number;
  size: number;
  lead: number;
}

/**
 * The text-search fast path's request: the page by score alone, widened on each side by a quarter of
 * a page (less before it near the start), so that the score ties at the page's edges usually end inside
 * the window and the tie-breakers can be applied here (pageFromScoreWindow). Lucene quantizes length
 * norms to a byte, so equal scores are common: widened by one hit only, a rare term's first page (208
 * hits, 100 a page) had a tie group at hits 80-105 and sent a second, fully sorted request every time.
 * The wider window costs the common term ~10% (weaker pruning); half a page cost no more than this.
 * No field sort, and nothing counted past EXACT_COUNT_UP_TO (textPage): from there on, Lucene skips
 * blocks that cannot reach the top k (block-max WAND / MaxScore).
 */
export function buildScorePage(offset: number, limit: number): ScorePage {
  const margin = Math.max(1, Math.ceil(limit / 4));
  const lead = Math.min(offset, margin);
  return { from: offset - lead, size: lead + limit + margin, lead };
}

/**
 * The page out of a score-ordered window from buildScorePage, in TEXT_SORT order (score desc,
 * published_at desc, source_id asc), or null when the window cannot tell: the tie group of the page's
 * first hit may continue before the window, or that of its last hit after it. Otherwise every
 * document tied with one on the page is in the window, so sorting the window puts each in its place.
 */
export function pageFromScoreWindow<T extends { score: number; published_at: unknown; source_id: string }>(
  window: T[],
  page: ScorePage,
  limit: number,
): T[] | null {
  const { from, size, lead } = page;
  if (window.length <= lead) return [];
  const end = Math.min(window.length, lead + limit);
  // Hits before the window exist (from > 0) and may share the first page hit's score.
  if (from > 0 && window[0].score === window[lead].score) return null;
  // A full window may be followed by more hits sharing the last page hit's score.
  if (window.length === size && window[window.length - 1].score === window[end - 1].score) return null;
  // The tie-breakers are read only for hits whose score ties with another's (the window arrives in score
  // order, so sorting it compares most hits by score alone), and once a hit (parsing dates in every
  // comparison was a tenth of a search's CPU).
  const keyed: Keyed<T>[] = window.map((item) => ({ item, score: item.score, ms: null, id: undefined }));
  const tieKeys = (k: Keyed<T>): TextOrderKey => {
    if (k.id === undefined) {
      k.ms = dateMillis(k.item.published_at);
      k.id = k.item.source_id;
    }
    return k as TextOrderKey;
  };
  const ordered = keyed.sort((a, b) => (a.score !== b.score ? b.score - a.score : compareKeys(tieKeys(a), tieKeys(b))));
  return ordered.slice(lead, end).map((k) => k.item);
}

/** A hit's TEXT_SORT key: what Elasticsearch's sort compares, reproduced for the fast path. */
interface TextOrderKey {
  score: number;
  /** published_at in ms; null when missing. */
  ms: number | null;
  id: string;
}

/** A window item with its TEXT_SORT key, the tie-breakers filled in when first needed (`id` undefined until then). */
interface Keyed<T> extends Omit<TextOrderKey, 'id'> {
  item: T;
  id: string | undefined;
}

function compareKeys(a: TextOrderKey, b: TextOrderKey): number {
  if (a.score !== b.score) return b.score - a.score;
  // Missing dates sort last (buildSort's `missing: '_last'`).
  if (a.ms !== b.ms) return a.ms === null ? 1 : b.ms === null ? -1 : b.ms - a.ms;
  // keyword order is UTF-8 byte order, which JavaScript's UTF-16 comparison is not above U+FFFF.
  return Buffer.compare(Buffer.from(a.id, 'utf8'), Buffer.from(b.id, 'utf8'));
}

/** published_at as the mapping reads it (`strict_date_optional_time||epoch_millis`), in ms. */
function dateMillis(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string' || v === '') return null;
  if (/^-?\d+$/.test(v)) return Number(v);
  // Without a zone Elasticsearch reads UTC; Date.parse would read local time.
  const ms = Date.parse(/T[\d:.]+$/.test(v) ? `${v}Z` : v);
  return Number.isNaN(ms) ? null : ms;
}

/** A source's documents that pass `filters` (their own `source`, if any, is the listed one). */
export function buildListQuery(source: SourceName, filters: Filters = {}): Query {
  return { bool: { filter: filterClauses({ ...filters, source }) } };
}

/** Sort clauses; `reverse` flips every order (and where missing values go) for walking from the end. */
export function buildSort(spec: SortSpec, reverse = false): estypes.SortCombinations[] {
  return spec.map(({ field, order }) => {
    const o = reverse ? (order === 'asc' ? 'desc' : 'asc') : order;
    if (field === '_score') return { _score: { order: o } };
    // Missing values sort last going forward, so first going backward: the reverse is an exact mirror.
    return { [field]: { order: o, missing: o === order ? '_last' : '_first' } };
  });
}

export function buildKnn(q: KnnQuery): estypes.KnnSearch {
  const filter = filterClauses(q.filters ?? {});
  // By source_id, not `_id`: ids carry the document's generation (generations.ts).
  const mustNot: Query[] = q.excludeId !== undefined ? [{ term: { source_id: q.excludeId } }] : [];
  return {
    field: EMBEDDING_FIELD,
    query_vector: q.vector,
    // The filter applies during the graph search, so `k` hits come back even with `excludeId`.
    k: q.limit,
    // Similar asks ~20 deep, so a floor (ranking.ts KNN_MIN_CANDIDATES).
    num_candidates: Math.min(10_000, Math.max(KNN_MIN_CANDIDATES, q.limit * 10)),
    // The graph holds int8-quantised vectors (Elasticsearch's default for dense_vector), whose scores
    // are coarse: on small or low-dimensional data they even misorder neighbours. Re-scoring the best
    // 3 × k with the stored float vectors makes order and score exact cosine.
    rescore_vector: { oversample: 3 },
    filter: { bool: { filter, must_not: mustNot } },
  };
}

/** more_like_this of a text (MoreLikeThisQuery): any of its most distinctive words, as on the embedded engine. */
export function buildMoreLikeThis(q: MoreLikeThisQuery): Query {
  return {
    bool: {
      ...(q.filters && Object.keys(q.filters).length ? { filter: filterClauses(q.filters) } : {}),
      must: [
        {
          more_like_this: {
            fields: TEXT_QUERY_FIELDS,
            like: q.text,
            // A question or a title holds each word once, and a word of one document must still count.
            min_term_freq: 1,
            min_doc_freq: 1,
            max_query_terms: MORE_LIKE_THIS_TERMS,
            minimum_should_match: '1',
          },
        },
      ],
    },
  };
}
