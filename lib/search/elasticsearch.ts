// The Elasticsearch adapter of the SearchProvider port: the only file that imports
// @elastic/elasticsearch, and the place its errors become ours.
//
// Layout (index-mappings/index-names.ts): one physical index per generation holds every source (`source`
// a keyword filter), behind one alias. Reads and writes go to the alias, writes with `require_alias`,
// so a missing alias is an error rather than an auto-created, dynamically mapped index.
//
// Errors: anything that means "cannot reach a working engine" (refused or reset connections,
// timeouts, 429/502/503/504) becomes EngineUnavailableError (503) with our own message. With a single
// node the client's connection pool never marks the node dead (WeightedConnectionPool.markDead is a
// no-op for one node), so the next request after Elasticsearch returns simply succeeds.
import { Client, errors, Transport, type estypes } from '@elastic/elasticsearch';
import { METADATA_FIELDS, metadataOf, type IndexedDocument } from '../../index-mappings/document.js';
import { indexMeta, legacyIndexPatterns, physicalIndexName, physicalIndexPattern, readAlias } from '../../index-mappings/index-names.js';
import {
  buildMapping,
  EMBEDDING_FIELD,
  ENGLISH_QUERY_FIELDS,
  GREEK_QUERY_FIELDS,
  METADATA_JSON_FIELD,
  OLDER_ENGLISH_QUERY_FIELDS,
  OLDER_GREEK_QUERY_FIELDS,
  OLDER_TEXT_QUERY_FIELDS,
  SEARCH_LATIN_FIELD,
  SEARCH_TEXT_FIELD,
  SEARCH_TEXT_SINCE,
  searchText,
  TEXT_QUERY_FIELDS,
} from '../../index-mappings/mapping.js';
import { buildSettings, ENGLISH_STOP_WORDS, GREEK_STOP_WORDS, MAX_RESULT_WINDOW, type ShardLayout } from '../../index-mappings/settings.js';
import { fold, tokens } from '../greek.js';
import { exonymOf, latinPhraseKeys, latinValues } from './latin-names.js';
import { BadRequestError, EngineUnavailableError } from '../errors.js';
import { createLogger, type Logger } from '../logger.js';
import { SOURCE_NAMES, type SourceName } from '../../index-mappings/sources.js';
import {
  MIN_PREFIX_CHARS,
  type BulkFailure,
  type BulkResult,
  type KnnQuery,
  type MetadataDocument,
  type MoreLikeThisQuery,
  MORE_LIKE_THIS_TERMS,
  type ListQuery,
  type ReadOptions,
  type RebuildResult,
  type SearchHit,
  type SearchProvider,
  type SearchResult,
  type SourceStats,
  type IndexStats,
  type StoredDocument,
  type TextQuery,
} from './provider.js';
import { markWalk, newWalk, planWalk, WalkCache, type Walk } from './deep-walks.js';

export interface ElasticsearchProviderOptions {
  /** e.g. `http://127.0.0.1:9200` */
  url: string;
  /** Index name prefix (PDI_INDEX_PREFIX); tests use a random one per run. */
  prefix: string;
  /** The embedder's dimension: the `dims` of the `embedding` field. */
  dimension: number;
  /** The embedder's id, recorded in each index's `_meta`. */
  embeddingModel: string;
  /** Shards and replicas of new indices (default: one shard, a replica once a second node holds it). */
  layout?: ShardLayout;
  logger?: Logger;
  /** Per-request timeout in ms (default 30,000). */
  requestTimeoutMs?: number;
  /**
   * Deepest `offset + limit` served by plain from/size (default 10,000), and then the step of the
   * point-in-time walk deeper pages use (default MAX_RESULT_WINDOW). Lowered only by tests, to
   * exercise the walk on small data.
   */
  pageWindow?: number;
}

/** How long a node that could not be reached gets to answer a ping before a call is given up. */
const PING_TIMEOUT_MS = 2_000;

/**
 * Pages ending within this many hits are plain from/size requests; deeper ones are walked in a point
 * in time (deepPage), which a client paging on resumes. Plain from/size past it costs more per page
 * than a resumed walk (a listing page at offset 45,000: ~450 ms, against ~20 ms).
 */
const PLAIN_WINDOW = 10_000;
/** Bulk requests stay under this many bytes (estimated) and documents. */
const BULK_MAX_BYTES = 8 * 1024 * 1024;
const BULK_MAX_DOCS = 1_000;
/** Documents read per step when a rebuild carries sources over from the serving generation. */
const CARRY_PAGE = 1_000;
/**
 * Documents indexed this long before a rebuild started are copied again from the serving generation
 * once it is write-blocked, just before the swap: what other ingests wrote meanwhile (indexed_at comes
 * from the writer's clock, hence the margin).
 */
const CATCH_UP_MARGIN_MS = 5 * 60_000;
/** The oldest Elasticsearch major this adapter talks to (the client's major matches it). */
export const MIN_SERVER_MAJOR = 9;
/** A force merge of a large source (450k documents: ~1 min here) outlasts the per-request timeout. */
const FORCE_MERGE_TIMEOUT_MS = 30 * 60_000;
const FORCE_MERGE_POLL_MS = 250;
/** Keep-alive of a deep walk's point in time: longer than WALKS.idleMs, so a kept walk is never expired. */
const PIT_KEEP_ALIVE = '2m';
/**
 * Deep walks kept between pages (deep-walks.ts): a client paging on within a minute resumes; a walk
 * answers from its point in time for at most 5 minutes, then a new one sees the index as it is.
 */
const WALKS = { maxWalks: 32, idleMs: 60_000, maxAgeMs: 5 * 60_000 };
/** Hits never carry the vector (provider.ts StoredDocument). */
const HIT_SOURCE: estypes.SearchSourceConfig = { excludes: [EMBEDDING_FIELD] };
/**
 * What a request returns of each hit: whole documents from `_source`, or the metadata record from
 * doc values (mapping.ts METADATA_JSON_FIELD). `stored_fields: _none_` leaves out `_id` too: loading
 * it decompresses a stored-fields block per hit, a third of a 100-hit metadata page's cost at 1M
 * documents; the record carries source_id.
 */
type Projection = Pick<estypes.SearchRequest, '_source' | 'docvalue_fields' | 'stored_fields'>;
const WHOLE: Projection = { _source: HIT_SOURCE };
const METADATA: Projection = { _source: false, stored_fields: '_none_', docvalue_fields: [METADATA_JSON_FIELD] };
/** The metadata record from `_source`, for documents written before the doc-values record existed. */
const METADATA_FROM_SOURCE: Projection = { _source: { includes: [...METADATA_FIELDS] } };
/** Sort values only: the skipped part of a deep walk. */
const SORT_VALUES_ONLY: Projection = { _source: false, stored_fields: '_none_' };
/** Totals up to this are exact from the page request alone (Elasticsearch's default threshold). */
const EXACT_COUNT_UP_TO = 10_000;

type Query = estypes.QueryDslQueryContainer;
/** A query, the index or alias it runs on, and the signal that abandons it (ReadOptions). */
type Target = { index: string; query: Query; signal?: AbortSignal };
type SortSpec = { field: string; order: 'asc' | 'desc' }[];

/** BM25 first, then newest, then source_id: a total order, so pages never overlap or skip. */
const TEXT_SORT: SortSpec = [
  { field: '_score', order: 'desc' },
  { field: 'published_at', order: 'desc' },
  { field: 'source_id', order: 'asc' },
];
const LIST_SORT: SortSpec = [
  { field: 'published_at', order: 'desc' },
  { field: 'source_id', order: 'asc' },
];

/** An Elasticsearch error response that is not an outage (bad request, missing index, ...). */
export class EngineResponseError extends Error {
  constructor(readonly status: number, readonly type: string, message: string) {
    super(message);
    this.name = 'EngineResponseError';
  }
}

// ---- pure request builders (no I/O) ----------------------------------------------------------------

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
export function buildTextQuery(text: string, source?: SourceName, olderIndices = false): Query {
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
  const must: Query[] = groups.size === 0 && latin.length === 0
    ? [{ match_none: {} }]
    : [...[...groups].map(([group, chunks]) => simpleQuery(chunks.join(' '), group, olderIndices)), ...latin];
  const query: Query = { bool: { must, filter: source ? [{ term: { source } }] : [] } };
  // Only prefixes: one score for every match, as on the embedded engine, so the order is the
  // tie-break alone (newest first). Scored, a prefix found in a title (weighted) came first.
  const prefixesOnly = groups.size > 0 && [...groups.values()].every((chunks) => chunks.every(isPrefix));
  return prefixesOnly ? { constant_score: { filter: query, boost: 1 } } : query;
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

const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * Emoji (with their modifiers and flags) and invisible format characters (joiners, zero-width spaces):
 * the standard tokenizer keeps an emoji as a token, and a joiner inside the word it joins, so either
 * made a word that no document holds and emptied the whole search. The embedded engine reads them as
 * separators; so do we.
 */
const INVISIBLE_OR_PICTOGRAPHIC = /[\p{Cf}\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}]/gu;

/**
 * The query's words and `"phrases"`, read as the embedded engine reads them (embedded/text.ts
 * parseQuery), so both engines answer one text the same way:
 * - quotes pair up left to right; a quote left over is ignored;
 * - a word or phrase with no letter or digit is dropped. Sent on its own, a `-` or `–` between two words
 *   became a clause of its own that analyses to nothing and matched no document;
 * - emoji and invisible characters separate words (INVISIBLE_OR_PICTOGRAPHIC);
 * - `word*` is a prefix only when the star follows a letter or digit and the prefix has at least
 *   MIN_PREFIX_CHARS characters, otherwise a plain term (`σ* σ* …` cost seconds and matched most of the
 *   index). A prefix is not analysed, so it is sent as the index holds it: folded, and split at
 *   punctuation into its words, the last one the prefix (`ν.4412*` is `ν` and `4412*`; sent whole, a
 *   prefix with punctuation or a bracket in it matched nothing);
 * - the text is folded (greek.ts fold: accents, including combining marks with no precomposed form,
 *   case, final sigma), which the analysers do anyway, except for marks: the Greek lowercase filter
 *   folds precomposed letters only, and left a combining mark in the token, which then matched nothing;
 * - a chunk given twice is sent once.
 */
export function queryChunks(text: string): string[] {
  const input = fold(text.replace(INVISIBLE_OR_PICTOGRAPHIC, ' '));
  const out = new Set<string>();
  let i = 0;
  while (i < input.length) {
    const open = input.indexOf('"', i);
    const close = open < 0 ? -1 : input.indexOf('"', open + 1);
    if (close < 0) {
      addWords(input.slice(i).replaceAll('"', ' '), out);
      break;
    }
    addWords(input.slice(i, open), out);
    const phrase = input.slice(open + 1, close).replaceAll('*', ' ').trim().split(/\s+/u).join(' ');
    if (WORD_CHAR.test(phrase)) out.add(`"${phrase}"`);
    i = close + 1;
  }
  return [...out];
}

/** Adds the (folded) words of `segment`. */
function addWords(segment: string, out: Set<string>): void {
  for (const word of segment.split(/\s+/u)) {
    if (!WORD_CHAR.test(word)) continue;
    const star = /\*+$/u.exec(word);
    if (!star) {
      out.add(word);
      continue;
    }
    const stem = word.slice(0, star.index);
    const words = tokens(stem);
    const last = words.pop() ?? '';
    if (!WORD_CHAR.test([...stem].pop() ?? '') || [...last].length < MIN_PREFIX_CHARS) {
      out.add(stem);
      continue;
    }
    for (const w of words) out.add(w);
    out.add(`${last}*`);
  }
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

/** A source's documents, optionally those published after `since` (YYYY-MM-DD) at 00:00:00Z. */
export function buildListQuery(source: SourceName, since?: string): Query {
  const filter: Query[] = [{ term: { source } }];
  if (since !== undefined) filter.push({ range: { published_at: { gt: `${since}T00:00:00Z` } } });
  return { bool: { filter } };
}

/** Sort clauses; `reverse` flips every order (and where missing values go) for walking from the end. */
export function buildSort(spec: SortSpec, reverse = false): estypes.SortCombinations[] {
  return spec.map(({ field, order }) => {
    const o = reverse ? (order === 'asc' ? 'desc' : 'asc') : order;
    if (field === '_score') return { _score: { order: o } };
    // Missing values sort last going forward, so first going backward: the reverse is an exact mirror.
    return { [field]: { order: o, missing: (o === order) ? '_last' : '_first' } };
  });
}

export function buildKnn(q: KnnQuery): estypes.KnnSearch {
  const filter: Query[] = q.source ? [{ term: { source: q.source } }] : [];
  const mustNot: Query[] = q.excludeId !== undefined ? [{ ids: { values: [q.excludeId] } }] : [];
  return {
    field: EMBEDDING_FIELD,
    query_vector: q.vector,
    // The filter applies during the graph search, so `k` hits come back even with `excludeId`.
    k: q.limit,
    num_candidates: Math.min(10_000, Math.max(100, q.limit * 10)),
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
      must: [{
        more_like_this: {
          fields: TEXT_QUERY_FIELDS,
          like: q.text,
          // A question or a title holds each word once, and a word of one document must still count.
          min_term_freq: 1,
          min_doc_freq: 1,
          max_query_terms: MORE_LIKE_THIS_TERMS,
          minimum_should_match: '1',
        },
      }],
      filter: q.source ? [{ term: { source: q.source } }] : [],
      must_not: q.excludeIds?.length ? [{ ids: { values: q.excludeIds } }] : [],
    },
  };
}

// ---- errors ------------------------------------------------------------------------------------------

function isOutage(err: unknown): boolean {
  if (
    err instanceof errors.ConnectionError ||
    err instanceof errors.TimeoutError ||
    err instanceof errors.NoLivingConnectionsError ||
    err instanceof errors.ProductNotSupportedError
  ) {
    return true;
  }
  if (err instanceof errors.ResponseError) {
    return [429, 502, 503, 504].includes(err.statusCode ?? 0);
  }
  return false;
}

function responseInfo(err: errors.ResponseError): { type: string; reason: string } {
  const body = err.body as { error?: { type?: string; reason?: string } | string } | undefined;
  if (body && typeof body.error === 'object') {
    return { type: body.error.type ?? 'unknown', reason: body.error.reason ?? '' };
  }
  return { type: typeof body?.error === 'string' ? 'error' : 'unknown', reason: String(body?.error ?? err.message) };
}

function describe(err: unknown): string {
  if (err instanceof errors.ResponseError) {
    const { type, reason } = responseInfo(err);
    return `${err.statusCode} ${type}: ${reason}`;
  }
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/** Read failures worth one retry: an index swapped out (rebuild) between alias resolution and search. */
function isTransientRead(err: unknown): boolean {
  return (
    err instanceof EngineResponseError &&
    [
      'index_not_found_exception',
      'search_phase_execution_exception',
      'search_context_missing_exception',
      'no_shard_available_action_exception',
    ].includes(err.type)
  );
}

function isIndexNotFound(err: unknown): boolean {
  return err instanceof EngineResponseError && err.type === 'index_not_found_exception';
}

// ---- the provider ------------------------------------------------------------------------------------

/**
 * The client's default backoff between retries is 1-2 s, then 2-4 s: with two retries an outage took
 * up to 6 s to surface as a 503. Retries exist here for a node restarting between two requests, which
 * 100 ms and 200 ms cover; an outage now fails in well under a second.
 */
class QuickRetryTransport extends Transport {
  constructor(opts: ConstructorParameters<typeof Transport>[0]) {
    super({ ...opts, retryBackoff: (_min: number, _max: number, attempt: number) => 0.1 * attempt });
  }
}

interface BulkOutcome {
  written: number;
  /** Items that created a new document (the rest overwrote one), by source: what a fresh index must hold. */
  created: Map<string, number>;
  failed: BulkFailure[];
}

/** A physical index behind the alias and its mapping `_meta`. */
interface ServingIndex {
  index: string;
  meta: Record<string, unknown>;
}

export function unsupportedServer(version: string): string {
  return `Elasticsearch ${version} is not supported: pdi needs Elasticsearch ${MIN_SERVER_MAJOR}.x (8.x and older are no longer supported); upgrade the node, or unset ELASTICSEARCH_URL to use the embedded engine`;
}

export class ElasticsearchProvider implements SearchProvider {
  readonly engine = 'elasticsearch' as const;
  private readonly client: Client;
  private readonly prefix: string;
  private readonly dimension: number;
  private readonly embeddingModel: string;
  private readonly log: Logger;
  private readonly window: number;
  /** Hits a step of a deep walk skips or reads at most (index.max_result_window). */
  private readonly step: number;
  private readonly walks = new WalkCache(WALKS);
  private initialized = false;
  /** Why what serves is not one index of this build (checkServing), or null when it is. */
  private outdated: string | null = null;
  /** An index of a mapping version before SEARCH_TEXT_SINCE serves (olderIndicesServe), as last read. */
  private olderServing = false;
  private versionsReadAt = -Infinity;
  private versionsReading?: Promise<void>;
  /** The server's version (serverMajor), read once. */
  private serverVersion?: Promise<{ major: number; version: string }>;
  private readonly layout: ShardLayout | undefined;
  private brokenLoggedAt = -Infinity;
  /**
   * The last call could not reach Elasticsearch, or none has yet: the next ones first check that it
   * answers. True from the start, or a node frozen at start held each of init's calls (pdi status, the
   * server start) for its whole request timeout.
   */
  private unanswered = true;
  private ping: Promise<void> | null = null;

  constructor(opts: ElasticsearchProviderOptions) {
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(opts.prefix)) throw new RangeError(`invalid index prefix "${opts.prefix}"`);
    buildMapping(opts.dimension); // validates the dimension now rather than at the first index creation
    this.prefix = opts.prefix;
    this.dimension = opts.dimension;
    this.embeddingModel = opts.embeddingModel;
    this.layout = opts.layout;
    this.window = Math.min(PLAIN_WINDOW, Math.max(1, opts.pageWindow ?? PLAIN_WINDOW));
    this.step = opts.pageWindow === undefined ? MAX_RESULT_WINDOW : this.window;
    this.log = (opts.logger ?? createLogger('silent')).child({ component: 'elasticsearch' });
    this.client = new Client({
      node: opts.url,
      requestTimeout: opts.requestTimeoutMs ?? 30_000,
      // Retries cover a node restarting between two requests (see QuickRetryTransport).
      maxRetries: 2,
      Transport: QuickRetryTransport,
      compression: false,
    });
  }

  /**
   * One line per engine call; errors converted to ours. `fn` passes the options it is given to the
   * client, so an aborted `signal` ends the HTTP request, and Elasticsearch cancels a search whose
   * connection closes; the call then rejects with the signal's reason.
   */
  private async call<T>(op: string, fn: (options: { signal?: AbortSignal }) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const started = performance.now();
    try {
      if (this.unanswered) await this.answering();
      const result = await fn({ signal });
      this.log.debug({ op, ms: Math.round(performance.now() - started) }, 'engine call');
      return result;
    } catch (err) {
      const ms = Math.round(performance.now() - started);
      if (signal?.aborted) {
        this.log.debug({ op, ms }, 'engine call abandoned');
        throw signal.reason;
      }
      if (isOutage(err)) {
        if (err instanceof errors.TimeoutError || err instanceof errors.ConnectionError) this.unanswered = true;
        this.log.warn({ op, ms, error: describe(err) }, 'engine unavailable');
        throw new EngineUnavailableError(undefined, `${op}: ${err instanceof errors.TimeoutError ? `no answer within ${ms} ms` : describe(err)}`);
      }
      if (err instanceof errors.ResponseError) {
        const { type, reason } = responseInfo(err);
        // 404s are expected answers here (no alias yet); anything else is worth seeing.
        const level = err.statusCode === 404 ? 'debug' : 'warn';
        this.log[level]({ op, ms, status: err.statusCode, type }, 'engine call failed');
        throw new EngineResponseError(err.statusCode ?? 500, type, `Elasticsearch ${op} failed: ${type}: ${reason}`);
      }
      this.log.warn({ op, ms, error: describe(err) }, 'engine call failed');
      throw err;
    }
  }

  /**
   * Resolves once Elasticsearch answers a ping with any status (a minimal distribution refuses `HEAD /`
   * with 405, which is an answer all the same), or throws a TimeoutError / ConnectionError. Asked before
   * every call while the last one could not reach it: a node that is frozen (stopped, not dead, or cut
   * off by the network) accepts connections and never answers, so each call would otherwise wait out
   * its whole request timeout (30 s) before its 503. Calls waiting at once share one ping.
   */
  private answering(): Promise<void> {
    this.ping ??= this.client.ping({}, { requestTimeout: PING_TIMEOUT_MS, maxRetries: 0 })
      .catch((err: unknown) => {
        if (!(err instanceof errors.ResponseError)) throw err;
      })
      .then(() => { this.unanswered = false; })
      .finally(() => { this.ping = null; });
    return this.ping;
  }

  /** Runs a read once more when an index disappeared under it (alias swap in progress). */
  private async read<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (!isTransientRead(err)) throw err;
      this.log.debug({ error: (err as Error).message }, 'read retried');
      return fn();
    }
  }

  private mapping(): estypes.MappingTypeMapping {
    return buildMapping(this.dimension, { ...indexMeta(this.embeddingModel, this.dimension) }) as estypes.MappingTypeMapping;
  }

  /** Physical indices an alias points at ([] when the alias does not exist). */
  private async aliasTargets(alias: string): Promise<string[]> {
    try {
      const res = await this.call('indices.get_alias', () => this.client.indices.getAlias({ name: alias }));
      return Object.keys(res);
    } catch (err) {
      if (err instanceof EngineResponseError && err.status === 404) return [];
      throw err;
    }
  }

  async init(): Promise<void> {
    await this.checkServerVersion();
    const alias = readAlias(this.prefix);
    await this.checkAliasName(alias);
    let targets = await this.aliasTargets(alias);
    if (targets.length === 0) {
      // A fixed first-generation name: two processes initialising at once create one index, not two.
      const index = physicalIndexName(this.prefix, 'init');
      try {
        const settings = await this.indexSettings();
        await this.call('indices.create', () =>
          this.client.indices.create({ index, settings, mappings: this.mapping(), aliases: { [alias]: { is_write_index: true } } }),
        );
        this.log.info({ index }, 'index created');
      } catch (err) {
        if (!(err instanceof EngineResponseError && err.type === 'resource_already_exists_exception')) throw err;
      }
      targets = await this.aliasTargets(alias);
      if (targets.length === 0) {
        // The index existed without its alias (an interrupted setup): attach it.
        await this.call('indices.update_aliases', () =>
          this.client.indices.updateAliases({ actions: [{ add: { index, alias, is_write_index: true } }] }),
        );
        targets = [index];
      }
    }
    await this.checkServing();
    for (const index of targets) await this.ensureResultWindow(index);
    this.initialized = true;
  }

  /**
   * Refuses a node older than MIN_SERVER_MAJOR with an error naming its version. Asked without the
   * client's compatibility header (`compatible-with=9`), which an 8.x node refuses with a 400 that
   * names no version at all.
   */
  private async checkServerVersion(): Promise<void> {
    const major = await this.serverMajor();
    if (major.major < MIN_SERVER_MAJOR) throw new Error(unsupportedServer(major.version));
  }

  /** The server's version, read once. */
  private serverMajor(): Promise<{ major: number; version: string }> {
    this.serverVersion ??= this.call('nodes.info', () =>
      this.client.transport.request<{ nodes?: Record<string, { version?: string }> }>(
        { method: 'GET', path: '/_nodes', querystring: { filter_path: 'nodes.*.version' } },
        { headers: { accept: 'application/json' } },
      ),
    ).then((res) => {
      // The oldest node decides: a cluster mid-upgrade answers as its oldest member.
      const versions = Object.values(res.nodes ?? {}).map((n) => String(n.version ?? 'unknown'));
      const version = versions.sort((a, b) => (parseInt(a, 10) || 0) - (parseInt(b, 10) || 0))[0] ?? 'unknown';
      return { major: parseInt(version, 10) || 0, version };
    }).catch((err: unknown) => {
      this.serverVersion = undefined;
      throw err;
    });
    return this.serverVersion;
  }

  /**
   * Refuses an index that stands where pdi's alias must be (made by hand, or by a write to the name
   * while its alias was gone): every alias action on the name fails with Elasticsearch's
   * invalid_alias_name_exception, which says nothing of what to do.
   */
  private async strayIndexAt(name: string): Promise<string | null> {
    // exists() is true for an alias as well as an index.
    if (!(await this.call('indices.exists', () => this.client.indices.exists({ index: name })))) return null;
    if (await this.call('indices.exists_alias', () => this.client.indices.existsAlias({ name }))) return null;
    return `an index named ${name} stands where pdi's alias of that name must be (pdi never makes an index by that name): ` +
      `look at it, delete it (DELETE /${name}), then run pdi reindex`;
  }

  /** Throws when a stray index stands where the alias `name` must be (strayIndexAt). */
  private async checkAliasName(name: string): Promise<void> {
    const stray = await this.strayIndexAt(name);
    if (stray) throw new Error(stray);
  }

  /**
   * An index created before index.max_result_window was raised keeps the old 10,000, which a walk's
   * steps would exceed; the setting is dynamic, so it is raised in place rather than by a reindex.
   */
  private async ensureResultWindow(index: string): Promise<void> {
    const res = await this.call('indices.get_settings', () =>
      this.client.indices.getSettings({ index, name: 'index.max_result_window', flat_settings: true }),
    );
    const current = Number(Object.values(res)[0]?.settings?.['index.max_result_window' as keyof estypes.IndicesIndexSettings] ?? 10_000);
    if (current >= MAX_RESULT_WINDOW) return;
    await this.call('indices.put_settings', () =>
      this.client.indices.putSettings({ index, settings: { 'index.max_result_window': MAX_RESULT_WINDOW } as estypes.IndicesIndexSettings }),
    );
    this.log.info({ index, from: current, to: MAX_RESULT_WINDOW }, 'index.max_result_window raised');
  }

  /**
   * Notes (and warns) when what serves is not one index of this build's mapping version and embedding
   * model: per-source indices of a build before the one-index layout, or an index of another mapping
   * or model. Reads go on (older records are read as they were stored), writes are refused until
   * `pdi reindex` builds one index of this version (refuseOutdated). Returns the serving `_meta`s.
   */
  private async checkServing(): Promise<ServingIndex[]> {
    let res: estypes.IndicesGetMappingResponse = {};
    try {
      res = await this.call('indices.get_mapping', () => this.client.indices.getMapping({ index: readAlias(this.prefix) }));
    } catch (err) {
      if (!isIndexNotFound(err)) throw err;
    }
    const serving = Object.entries(res).map(([index, m]) => ({ index, meta: (m.mappings?._meta ?? {}) as Record<string, unknown> }));
    const expected = indexMeta(this.embeddingModel, this.dimension);
    const labels = { mapping_version: 'mapping version', embedding_model: 'embedding model', embedding_dimension: 'embedding dimension' } as const;
    const rebuild = 'run pdi reindex, which builds one index of every source from the stored documents without fetching them again';
    let why: string | null = null;
    if (serving.length > 1) {
      why = `${serving.length} indices serve ${readAlias(this.prefix)}, one per source (the layout of builds before mapping version 6); ` +
        `this build keeps every source in one index: ${rebuild}`;
    } else if (serving.length === 1) {
      const [{ index, meta }] = serving;
      const differs = (Object.keys(labels) as (keyof typeof labels)[]).filter((k) => meta[k] !== expected[k]);
      if (differs.length > 0) {
        why = `the index ${index} was built for ${differs.map((k) => `${labels[k]} ${meta[k] ?? '(none)'}`).join(', ')}; ` +
          `this build writes ${differs.map((k) => `${labels[k]} ${expected[k]}`).join(', ')}: ${rebuild}`;
      }
    }
    if (why !== null && why !== this.outdated) this.log.warn({ serving: serving.map((s) => s.index), expected }, why);
    this.outdated = why;
    return serving;
  }

  /**
   * Writes into an index built for another mapping would be refused document by document (a field it
   * lacks is a strict-mapping error) or land in a form this build cannot read: an upgrade lost every
   * document ingested before the reindex. The alias is looked at again first, in case another process
   * (pdi reindex) rebuilt it since.
   */
  private async refuseOutdated(): Promise<void> {
    if (this.outdated === null) return;
    await this.checkServing();
    if (this.outdated !== null) throw new Error(`not written: ${this.outdated}`);
  }

  /**
   * The settings of a new index. Elasticsearch 9 leaves dense vectors out of `_source` unless the index
   * says otherwise, and a document read back by id (or carried over by a rebuild) then lacked its embedding.
   */
  private async indexSettings(): Promise<Record<string, unknown>> {
    const settings = buildSettings(this.layout);
    settings.index = { ...(settings.index as object), mapping: { exclude_source_vectors: false } };
    return settings;
  }

  /**
   * Whether an index of a mapping version before SEARCH_TEXT_SINCE is behind the read alias (an upgrade
   * not yet followed by pdi reindex), so text queries must name its fields too. Looked at again once a
   * minute: another process may rebuild a source, or an older build swap its own index in.
   */
  private async olderIndicesServe(): Promise<boolean> {
    // One read at a time: the searches arriving while it runs wait for it rather than send their own.
    if (this.versionsReading === undefined && performance.now() - this.versionsReadAt >= 60_000) {
      this.versionsReading = this.readVersions().finally(() => {
        this.versionsReading = undefined;
      });
    }
    await this.versionsReading;
    return this.olderServing;
  }

  private async readVersions(): Promise<void> {
    try {
      const res = await this.client.indices.getMapping({ index: readAlias(this.prefix) }, { requestTimeout: PING_TIMEOUT_MS, maxRetries: 0 });
      this.olderServing = Object.values(res).some((m) => !(Number(m.mappings?._meta?.mapping_version) >= SEARCH_TEXT_SINCE));
      this.versionsReadAt = performance.now();
    } catch {
      // No alias or no engine: the search itself meets the same and answers as it always has.
    }
  }

  private async ensureInit(): Promise<void> {
    if (!this.initialized) await this.init();
  }

  /**
   * A read that met an alias resolving to no index. Before init that is an empty engine (nothing
   * loaded yet); after it, the alias or index was removed outside pdi, and an empty answer would tell
   * clients, with a 200, that there are no documents: it is a 503, and the log says how to repair it.
   */
  private missingIndex<T>(err: unknown, empty: T): T {
    if (!isIndexNotFound(err)) throw err;
    if (!this.initialized) return empty;
    throw this.broken('a search alias resolves to no index (removed outside pdi?): run pdi reindex');
  }

  /** The 503 of a read that met indices or aliases not as pdi built them, logged at most once a minute. */
  private broken(why: string): EngineUnavailableError {
    if (performance.now() - this.brokenLoggedAt > 60_000) {
      this.brokenLoggedAt = performance.now();
      this.log.error({ why }, 'reads answer 503 until the search indices are repaired');
    }
    return new EngineUnavailableError(undefined, why);
  }

  // ---- writes -----------------------------------------------------------------------------------------

  async upsert(docs: IndexedDocument[]): Promise<BulkResult> {
    const failed: BulkResult['failed'] = [];
    const valid: IndexedDocument[] = [];
    for (const doc of docs) {
      if ((SOURCE_NAMES as readonly string[]).includes(doc.source)) valid.push(doc);
      else failed.push({ source_id: doc.source_id, error: `unknown source "${doc.source}"`, cause: 'document' });
    }
    if (valid.length === 0) return { written: 0, failed };
    await this.ensureInit();
    await this.refuseOutdated();
    const out = await this.bulk(valid, readAlias(this.prefix), true);
    return { written: out.written, failed: [...failed, ...out.failed] };
  }

  /**
   * Bulk-indexes in size-bounded requests, once: each item refused is reported with its cause, and the
   * caller decides what to send again (ingest/stages/bulk-sink.ts holds the one retry policy).
   */
  private async bulk(docs: IndexedDocument[], index: string, requireAlias: boolean): Promise<BulkOutcome> {
    const outcome: BulkOutcome = { written: 0, created: new Map(), failed: [] };
    for (const chunk of chunks(docs)) {
      const operations = chunk.flatMap((doc) => [
        { index: { _index: index, _id: doc.source_id } },
        { ...doc, [METADATA_JSON_FIELD]: metadataRecord(doc), [SEARCH_TEXT_FIELD]: searchText(doc), [SEARCH_LATIN_FIELD]: latinValues(doc) },
      ]);
      const res = await this.call('bulk', () => this.client.bulk({ operations, require_alias: requireAlias, refresh: false }));
      res.items.forEach((item, i) => {
        const r = item.index!;
        const doc = chunk[i];
        if (!r.error) {
          outcome.written++;
          if (r.result === 'created') outcome.created.set(doc.source, (outcome.created.get(doc.source) ?? 0) + 1);
          return;
        }
        // 400 is the document itself (mapper_parsing, strict_dynamic_mapping); anything else (403
        // cluster_block: a rebuild swapping generations, or a full disk; 429; 5xx; 404 no index) is
        // the index's state, which passes.
        outcome.failed.push({ source_id: doc.source_id, error: `${r.error.type}: ${r.error.reason ?? ''}`, cause: r.status === 400 ? 'document' : 'index' });
      });
    }
    return outcome;
  }

  /**
   * A new generation: `source` loaded from `batches`, every other source carried over from the serving
   * generation (read back and written anew, so fields this build derives are written as it derives
   * them), per-source counts verified, one atomic alias swap, the old generation pruned. Documents
   * other ingests write meanwhile go to the serving generation; just before the swap it is
   * write-blocked and what it received since the start is copied over (catchUp), so none is lost:
   * writes refused during that moment are refused for the index's state, which the sink retries.
   * One rebuild at a time (a second one fails at its swap, leaving the first one's generation serving).
   */
  async rebuild(source: SourceName, batches: AsyncIterable<IndexedDocument[]>): Promise<RebuildResult> {
    await this.ensureInit();
    const alias = readAlias(this.prefix);
    await this.checkAliasName(alias);
    const serving = await this.checkServing();
    const old = serving.map((s) => s.index);
    // Vectors of another model or dimension cannot be carried over; their documents come over without
    // one until their own source is rebuilt (kNN misses them meanwhile, text search does not).
    const expected = indexMeta(this.embeddingModel, this.dimension);
    const keepVectors = serving.every((s) => s.meta.embedding_model === expected.embedding_model && s.meta.embedding_dimension === expected.embedding_dimension);
    await this.unblockWrites(old);
    await this.dropAbandoned(old);
    const index = physicalIndexName(this.prefix);
    const settings = await this.indexSettings();
    await this.call('indices.create', () =>
      this.client.indices.create({
        index,
        // Loading into an index nobody reads: no refreshes until the end.
        settings: { ...settings, refresh_interval: '-1' },
        mappings: this.mapping(),
      }),
    );
    this.log.info({ index, source }, 'rebuild started');
    const started = Date.now();
    let blocked = false;
    let counts: Map<string, number>;
    try {
      const created = new Map<string, number>();
      const add = (out: BulkOutcome) => {
        for (const [s, n] of out.created) created.set(s, (created.get(s) ?? 0) + n);
      };
      for await (const batch of batches) {
        const stray = batch.find((d) => d.source !== source);
        if (stray) throw new Error(`rebuild of ${source} was given ${stray.source_id} of source ${stray.source}`);
        add(await this.loadInto(index, batch, source));
      }
      const others: Query = { bool: { must_not: [{ term: { source } }] } };
      if (old.length > 0) await this.copyInto(old, index, others, keepVectors, add);
      await this.call('indices.put_settings', () =>
        // Back to the default (settings.ts): null resets a setting, which the client's types do not allow.
        this.client.indices.putSettings({ index, settings: { index: { refresh_interval: null } } as unknown as estypes.IndicesIndexSettings }),
      );
      // One segment before it serves: a rebuilt index is read far more than it is written, and every
      // search pays per segment (the 1M-document benchmark: rare term 2x, common term 1.3x the
      // throughput of the ~28 segments a bulk load leaves). Later upserts add segments as usual.
      await this.forceMerge(index);
      if (old.length > 0) {
        blocked = true;
        await this.call('indices.add_block', () => this.client.indices.addBlock({ index: old.join(','), block: 'write' }));
        await this.call('indices.refresh', () => this.client.indices.refresh({ index: old.join(',') }));
        const since = new Date(started - CATCH_UP_MARGIN_MS).toISOString();
        // Not the rebuilt source: its ingest waits for the rebuild (the ingest lock), and what the store
        // no longer holds must not come back.
        await this.copyInto(old, index, { bool: { filter: [{ range: { indexed_at: { gte: since } } }], must_not: [{ term: { source } }] } }, keepVectors, add);
      }
      await this.call('indices.refresh', () => this.client.indices.refresh({ index }));
      counts = await this.countsBySource(index);
      const before = old.length > 0 ? await this.countsBySource(old.join(',')) : new Map<string, number>();
      for (const s of new Set([...counts.keys(), ...before.keys(), ...created.keys()])) {
        const now = counts.get(s) ?? 0;
        const loaded = created.get(s) ?? 0;
        if (now !== loaded) throw new Error(`rebuild of ${source}: the new index holds ${now} documents of ${s}, ${loaded} were loaded`);
        if (s !== source && now !== (before.get(s) ?? 0)) {
          throw new Error(`rebuild of ${source}: the new index holds ${now} documents of ${s}, the serving one ${before.get(s) ?? 0}`);
        }
      }
      // The swap: one cluster-state update, so every search sees either the old index or the new one.
      // `must_exist`: a rebuild that finished first already replaced `old`; this one then fails.
      const actions: estypes.IndicesUpdateAliasesAction[] = old.map((o) => ({ remove: { index: o, alias, must_exist: true } }));
      actions.push({ add: { index, alias, is_write_index: true } });
      await this.call('indices.update_aliases', () => this.client.indices.updateAliases({ actions }));
    } catch (err) {
      // Nothing was swapped: the old generation keeps serving, writable again; drop the half-built one.
      if (blocked) await this.unblockWrites(old).catch((e: unknown) => this.log.warn({ indices: old, error: describe(e) }, 'could not lift the write block'));
      try {
        await this.call('indices.delete', () => this.client.indices.delete({ index }));
      } catch (cleanupErr) {
        this.log.warn({ index, error: describe(cleanupErr) }, 'could not delete the abandoned index');
      }
      this.log.warn({ index, source, error: describe(err) }, 'rebuild failed; previous index still serving');
      throw err;
    }
    this.outdated = null;
    this.log.info({ index, source, documents: Object.fromEntries(counts), replaced: old }, 'rebuild swapped in');
    if (old.length > 0) await this.dropOld(old);
    return { source, documents: counts.get(source) ?? 0, index };
  }

  /** Writes one batch of a rebuild; any document refused fails the rebuild. */
  private async loadInto(index: string, batch: IndexedDocument[], what: string): Promise<BulkOutcome> {
    const out = await this.bulk(batch, index, false);
    if (out.failed.length > 0) {
      const first = out.failed[0];
      throw new Error(`rebuild of ${what}: ${out.failed.length} documents failed (${first.source_id}: ${first.error})`);
    }
    return out;
  }

  /**
   * Copies the documents of `from` matching `query` into `index`, read back from `_source` in a point
   * in time (whole documents, vector included) and written through bulk, which derives the search text
   * and metadata record again (neither is in `_source`).
   */
  private async copyInto(from: string[], index: string, query: Query, keepVectors: boolean, add: (out: BulkOutcome) => void): Promise<void> {
    const { id } = await this.call('open_point_in_time', () => this.client.openPointInTime({ index: from.join(','), keep_alive: PIT_KEEP_ALIVE }));
    const walk = newWalk(id, 0);
    try {
      let after: estypes.SortResults | undefined;
      for (;;) {
        const res = await this.pitSearch(walk, query, undefined, { size: CARRY_PAGE, sort: ['_shard_doc'], search_after: after, track_total_hits: false });
        const hits = res.hits.hits as estypes.SearchHit<IndexedDocument>[];
        if (hits.length === 0) return;
        after = hits[hits.length - 1].sort;
        const docs = hits.map((h) => (keepVectors ? h._source! : { ...h._source!, embedding: null }));
        add(await this.loadInto(index, docs, 'the carried-over sources'));
      }
    } finally {
      void this.closeWalks([walk]);
    }
  }

  /** Documents per source in `index` (an index, or several comma-separated). */
  private async countsBySource(index: string): Promise<Map<string, number>> {
    const res = await this.call('search.count', () =>
      this.client.search({ index, size: 0, track_total_hits: true, aggs: { by_source: { terms: { field: 'source', size: SOURCE_NAMES.length + 10 } } } }),
    );
    const buckets = (res.aggregations?.by_source as { buckets?: { key: string; doc_count: number }[] } | undefined)?.buckets ?? [];
    return new Map(buckets.map((b) => [b.key, b.doc_count]));
  }

  /** Lifts the write block a rebuild killed between its block and its swap left on the serving indices. */
  private async unblockWrites(indices: string[]): Promise<void> {
    if (indices.length === 0) return;
    const res = await this.call('indices.get_settings', () =>
      this.client.indices.getSettings({ index: indices.join(','), name: 'index.blocks.write', flat_settings: true }),
    );
    const blocked = Object.entries(res).filter(([, v]) => String((v.settings as Record<string, unknown> | undefined)?.['index.blocks.write']) === 'true').map(([k]) => k);
    if (blocked.length === 0) return;
    await this.call('indices.put_settings', () =>
      this.client.indices.putSettings({ index: blocked.join(','), settings: { 'index.blocks.write': false } as estypes.IndicesIndexSettings }),
    );
    this.log.warn({ indices: blocked }, 'write block of an interrupted rebuild lifted');
  }

  /**
   * Deletes this prefix's indices behind no alias (generations, and per-source indices of older builds):
   * rebuilds that failed while their cleanup could not reach the node (hung, killed) left them, each
   * holding disk. Called at a rebuild's start, when nothing else is being built.
   */
  private async dropAbandoned(keep: string[]): Promise<void> {
    try {
      const patterns = [physicalIndexPattern(this.prefix), ...legacyIndexPatterns(this.prefix)].join(',');
      const rows = await this.call('cat.indices', () => this.client.cat.indices({ index: patterns, format: 'json', h: 'index', expand_wildcards: 'all' }));
      const abandoned = rows.map((r) => r.index!).filter((i) => i && !keep.includes(i));
      if (abandoned.length === 0) return;
      await this.call('indices.delete', () => this.client.indices.delete({ index: abandoned.join(',') }));
      this.log.info({ indices: abandoned }, 'deleted indices abandoned by failed rebuilds');
    } catch (err) {
      this.log.warn({ error: describe(err) }, 'could not delete indices abandoned by failed rebuilds; the next rebuild tries again');
    }
  }

  /**
   * Merges the index to one segment. A merge of a large source outlasts any one request (the transport
   * caps each at the client's request timeout, whatever timeout a call asks for: a reindex of 450k
   * documents always failed after 30 s), so it runs as a task, polled until it ends.
   */
  private async forceMerge(index: string): Promise<void> {
    const { task } = await this.call('indices.forcemerge', () =>
      this.client.indices.forcemerge({ index, max_num_segments: 1, wait_for_completion: false }),
    );
    if (!task) return; // answered at once: nothing to wait for
    const deadline = Date.now() + FORCE_MERGE_TIMEOUT_MS;
    for (;;) {
      const status = await this.call('tasks.get', () => this.client.tasks.get({ task_id: task }));
      if (status.completed) {
        if (status.error) throw new Error(`force merge of ${index} failed: ${status.error.type}: ${status.error.reason ?? ''}`);
        return;
      }
      if (Date.now() > deadline) throw new Error(`force merge of ${index} did not end within ${FORCE_MERGE_TIMEOUT_MS / 60_000} min`);
      await delay(FORCE_MERGE_POLL_MS);
    }
  }

  /**
   * Deletes replaced indices once the searches already running on them are done (bounded wait), so
   * a query that resolved the alias just before the swap still completes. Readers retry once anyway.
   */
  private async dropOld(indices: string[]): Promise<void> {
    try {
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline) {
        const stats = await this.call('indices.stats', () =>
          this.client.indices.stats({ index: indices.join(','), metric: 'search' }),
        );
        const s = stats._all?.total?.search;
        if (!s || (s.query_current ?? 0) + (s.fetch_current ?? 0) === 0) break;
        await delay(50);
      }
      await this.call('indices.delete', () => this.client.indices.delete({ index: indices.join(',') }));
    } catch (err) {
      // The swap has happened; a leftover index costs disk, not correctness.
      this.log.warn({ indices, error: describe(err) }, 'could not delete replaced indices');
    }
  }

  // ---- reads ------------------------------------------------------------------------------------------

  /** Where a read runs: the alias; a read restricted to one source carries its filter in the query. */
  private target(query: Query, signal: AbortSignal | undefined): Target {
    return { index: readAlias(this.prefix), query, signal };
  }

  search(q: TextQuery & { view: 'metadata' }, opts?: ReadOptions): Promise<SearchResult<MetadataDocument>>;
  search(q: TextQuery, opts?: ReadOptions): Promise<SearchResult>;
  async search(q: TextQuery, opts: ReadOptions = {}): Promise<SearchResult> {
    const text = q.text.trim();
    if (text === '') return { total: 0, hits: [] };
    const query = buildTextQuery(text, q.source, await this.olderIndicesServe());
    const target = this.target(query, opts.signal);
    if (q.limit <= 0) return this.countOnly(target);
    // A constant-score query ties everywhere: the score-window fast path could never place a page.
    return this.paged(target, TEXT_SORT, q.offset, q.limit, q.view === 'metadata' ? METADATA : WHOLE, !('constant_score' in (query as object)));
  }

  async list(q: ListQuery, opts: ReadOptions = {}): Promise<SearchResult> {
    if (q.since !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(q.since)) {
      throw new BadRequestError(`since must be a date YYYY-MM-DD, got "${q.since}"`);
    }
    const target = this.target(buildListQuery(q.source, q.since), opts.signal);
    if (q.limit <= 0) return this.countOnly(target);
    return this.paged(target, LIST_SORT, q.offset, q.limit);
  }

  /** `{total, hits: []}` for a zero limit. */
  private async countOnly({ index, query, signal }: Target): Promise<SearchResult> {
    try {
      const res = await this.read(() =>
        this.call('count', (options) => this.client.count({ index, query }, options), signal),
      );
      return { total: res.count, hits: [] };
    } catch (err) {
      return this.readFailed(err, { total: 0, hits: [] }, index);
    }
  }

  private async paged(target: Target, sort: SortSpec, offset: number, limit: number, src: Projection = WHOLE, scored = true): Promise<SearchResult> {
    try {
      return await this.read(() => {
        const page = buildScorePage(offset, limit);
        if (sort === TEXT_SORT && scored && page.from + page.size <= this.window) return this.textPage(target, page, offset, limit, src);
        return offset + limit <= this.window ? this.shallowPage(target, sort, offset, limit, src) : this.deepPage(target, sort, offset, limit, src);
      });
    } catch (err) {
      return this.readFailed(err, { total: 0, hits: [] }, target.index);
    }
  }

  /**
   * A page or count that failed. A 400 on a query pdi built may mean its target is no alias but a
   * stray index by that name, without pdi's mapping: a 503 saying so, not a masked 500. Looked into
   * on this error path only.
   */
  private async readFailed<T>(err: unknown, empty: T, index: string): Promise<T> {
    if (err instanceof EngineResponseError && err.status === 400 && this.initialized) {
      // A check that itself fails leaves the read's own error to answer.
      const stray = await this.strayIndexAt(index).catch(() => null);
      if (stray) throw this.broken(stray);
    }
    return this.missingIndex(err, empty);
  }

  /**
   * The exact number of matches, asked for on its own: a size-0 request that only counts lets Lucene
   * answer from index statistics where it can (a single term, no deletions) and otherwise iterate
   * matches without scoring them. Asking for the total in the page request itself
   * (`track_total_hits: true`) made every match be scored and defeated top-k pruning: at 1M documents
   * that was most of the cost of a common-term search (docs/benchmarks.md "Search — Elasticsearch").
   */
  private async countMatches({ index, query, signal }: Target): Promise<number> {
    const res = await this.call('search.count', (options) =>
      this.client.search({
        index,
        query,
        size: 0,
        track_total_hits: true,
        allow_partial_search_results: false,
      }, options),
      signal,
    );
    return totalOf(res);
  }

  /** A page in `sort` order by from/size, its total counted alongside (see countMatches). */
  private async shallowPage(target: Target, sort: SortSpec, offset: number, limit: number, src: Projection): Promise<SearchResult> {
    const [hits, total] = await Promise.all([this.sortedHits(target, sort, offset, limit, src), this.countMatches(target)]);
    return { total, hits };
  }

  private async sortedHits({ index, query, signal }: Target, sort: SortSpec, offset: number, limit: number, src: Projection): Promise<SearchHit[]> {
    const { hits } = await this.withDocs(src, (projection) =>
      this.call('search', (options) =>
        this.client.search<StoredDocument>({
          index,
          query,
          sort: buildSort(sort),
          from: offset,
          size: limit,
          // Nothing counted here (countMatches does it), so a sort led by _score can prune; _score is in
          // the sort, so hits carry it without `track_scores` (which forced scoring every match).
          track_total_hits: false,
          ...projection,
          // A shard failure (index deleted mid-query) is an error to retry, not a silently short page.
          allow_partial_search_results: false,
        }, options),
        signal,
      ),
    );
    return hits;
  }

  /**
   * A text-search page. Fast path: the page by score alone in a wider window (buildScorePage), put in
   * TEXT_SORT order here (pageFromScoreWindow). Sorting by score alone is what lets Lucene use its
   * fastest top-k collector; the published_at and source_id tie-breakers only matter among equal
   * scores, and they are applied here unless a tie group at an edge of the page reaches past the
   * window, in which case the page is asked for again in the full sort order (sortedHits), so the
   * order is always exactly TEXT_SORT.
   */
  private async textPage(target: Target, page: ScorePage, offset: number, limit: number, src: Projection): Promise<SearchResult> {
    const { index, query, signal } = target;
    const { from, size } = page;
    // Counted exactly up to EXACT_COUNT_UP_TO in the page request itself (Lucene still prunes past it):
    // a selective query costs one request; only a larger total is counted by a second one.
    const { res, hits } = await this.withDocs(src, (projection) =>
      this.call('search', (options) =>
        this.client.search<StoredDocument>({
          index,
          query,
          from,
          size,
          track_total_hits: EXACT_COUNT_UP_TO,
          ...projection,
          allow_partial_search_results: false,
        }, options),
        signal,
      ),
    );
    const counted = res.hits.total;
    const total = typeof counted === 'object' && counted?.relation === 'eq' ? counted.value : await this.countMatches(target);
    // A hit's tie-breakers are read (from its record's bytes) only if its score ties with another's.
    const window = hits.map((hit) => new WindowHit(hit));
    const resolved = pageFromScoreWindow(window, page, limit);
    if (resolved) return { total, hits: resolved.map((w) => w.hit) };
    this.log.debug({ offset, limit }, 'score tie at a page edge; page asked for in full sort order');
    return { total, hits: await this.sortedHits(target, TEXT_SORT, offset, limit, src) };
  }

  /**
   * Runs a page request with projection `src` and reads each hit's document: `_source` when asked
   * for, else the metadata record from doc values. A hit without that record (written by a build of mapping
   * version 1, its source not yet rebuilt) makes the request run once more reading records from
   * `_source`, so an index awaiting its rebuild keeps answering, only more slowly.
   */
  private async withDocs(
    src: Projection,
    run: (projection: Projection) => Promise<estypes.SearchResponse<StoredDocument>>,
  ): Promise<{ res: estypes.SearchResponse<StoredDocument>; hits: SearchHit[] }> {
    let res = await run(src);
    let hits = hitsOf(res.hits.hits);
    if (hits === null) {
      this.log.debug('hits without the doc-values record; page read from _source');
      res = await run(METADATA_FROM_SOURCE);
      hits = hitsOf(res.hits.hits) ?? [];
    }
    return { res, hits };
  }

  /**
   * A page beyond the result window, read from one point in time so the total and every step agree.
   * The skipped part is walked with search_after in steps of at most `step` hits carrying only sort
   * values, so memory stays bounded by one step whatever the offset. Each step scores every match, so
   * the walk starts from the nearest position a previous page of the same query reached, from either
   * end (deep-walks.ts): paging on costs one step a page, and the last pages of any result set one or two.
   */
  private async deepPage(target: Target, sort: SortSpec, offset: number, limit: number, src: Projection): Promise<SearchResult> {
    void this.closeWalks(this.walks.sweep());
    const key = await this.walkKey(target, sort);
    const cached = key === null ? undefined : this.walks.get(key);
    if (cached) {
      try {
        return await this.walkPage(cached, target, sort, offset, limit, src);
      } catch (err) {
        if (target.signal?.aborted || !(err instanceof EngineResponseError)) throw err;
        // The point in time is gone (expired, its index deleted, the node restarted): walk afresh.
        this.log.debug({ error: err.message }, 'point in time of a deep walk gone; walking afresh');
        this.walks.remove(key!, cached);
        void this.closeWalks([cached]);
      }
    }
    const walk = await this.openWalk(target);
    // Kept at once, so concurrent pages of the same query share it; closed here if not kept.
    const dropped = key === null ? [walk] : this.walks.add(key, walk);
    try {
      return await this.walkPage(walk, target, sort, offset, limit, src);
    } catch (err) {
      if (key !== null) this.walks.remove(key, walk);
      if (!dropped.includes(walk)) dropped.push(walk);
      throw err;
    } finally {
      void this.closeWalks(dropped);
    }
  }

  /**
   * What a walk is kept under: the physical indices behind the target's alias (so a rebuild's swap
   * starts new walks at once), the query and the sort. Null when the alias does not exist.
   */
  private async walkKey({ index, query }: Target, sort: SortSpec): Promise<string | null> {
    const indices = await this.aliasTargets(index);
    return indices.length === 0 ? null : JSON.stringify([indices.sort(), query, sort]);
  }

  /** A point in time on the target, with its matches counted. */
  private async openWalk({ index, query, signal }: Target): Promise<Walk> {
    const opened = await this.call('open_point_in_time', (options) =>
      this.client.openPointInTime({ index, keep_alive: PIT_KEEP_ALIVE }, options),
      signal,
    );
    const walk = newWalk(opened.id, 0);
    try {
      const counted = await this.pitSearch(walk, query, signal, { size: 0, track_total_hits: true });
      return newWalk(walk.pitId, totalOf(counted));
    } catch (err) {
      void this.closeWalks([walk]);
      throw err;
    }
  }

  private async pitSearch(walk: Walk, query: Query, signal: AbortSignal | undefined, body: Omit<estypes.SearchRequest, 'index' | 'pit' | 'query'>) {
    const res = await this.call('search', (options) =>
      this.client.search<StoredDocument>({
        ...body,
        query,
        pit: { id: walk.pitId, keep_alive: PIT_KEEP_ALIVE },
        allow_partial_search_results: false,
      }, options),
      signal,
    );
    if (res.pit_id) walk.pitId = res.pit_id;
    return res;
  }

  /** The page [offset, offset + limit) of a walk, marking every position it reaches. */
  private async walkPage(walk: Walk, { query, signal }: Target, sort: SortSpec, offset: number, limit: number, src: Projection): Promise<SearchResult> {
    const plan = planWalk(walk, offset, limit);
    if (!plan) return { total: walk.total, hits: [] };
    const { forward, skip, take } = plan;
    // _score leads TEXT_SORT, so hits carry it without `track_scores` (which would score every match).
    const common = { sort: buildSort(sort, !forward), track_total_hits: false } as const;
    const step = (body: Omit<estypes.SearchRequest, 'index' | 'pit' | 'query'>) => this.pitSearch(walk, query, signal, { ...common, ...body });
    const hits: SearchHit[] = [];
    let position = plan.from;
    let after = plan.after as estypes.SortResults | undefined;
    const reached = (raw: estypes.SearchHit<StoredDocument>[]) => {
      after = raw[raw.length - 1].sort!;
      position += raw.length;
      markWalk(walk, forward, position, after);
    };
    if (after === undefined && skip + take <= this.step) {
      // From an end, the page within the window: one from/size request.
      const { res, hits: page } = await this.withDocs(src, (projection) => step({ from: skip, size: take, ...projection }));
      hits.push(...page);
      position = skip;
      if (res.hits.hits.length > 0) reached(res.hits.hits);
    } else {
      for (let remaining = skip; remaining > 0; ) {
        const raw = (await step({ size: Math.min(remaining, this.step), search_after: after, ...SORT_VALUES_ONLY })).hits.hits;
        if (raw.length === 0) break;
        reached(raw);
        remaining -= raw.length;
      }
      while (hits.length < take) {
        const size = Math.min(take - hits.length, this.step);
        const { res, hits: page } = await this.withDocs(src, (projection) => step({ size, search_after: after, ...projection }));
        if (res.hits.hits.length === 0) break;
        hits.push(...page);
        reached(res.hits.hits);
      }
    }
    if (!forward) hits.reverse();
    return { total: walk.total, hits };
  }

  /** Closes the points in time of walks no longer kept (awaited only by close()); one that fails expires by itself. */
  private closeWalks(walks: Walk[]): Promise<unknown> {
    return Promise.all(walks.map((walk) =>
      this.client.closePointInTime({ id: walk.pitId }, { requestTimeout: 2_000, maxRetries: 0 }).catch((err: unknown) => {
        this.log.debug({ error: describe(err) }, 'point in time not closed; it expires by itself');
      }),
    ));
  }

  async get(sourceId: string, opts: ReadOptions = {}): Promise<IndexedDocument | null> {
    const index = readAlias(this.prefix);
    try {
      // Real-time: a get sees a write before any refresh.
      const res = await this.call('get', (options) => this.client.get<IndexedDocument>({ index, id: sourceId }, options), opts.signal);
      return res.found && res._source ? res._source : null;
    } catch (err) {
      if (err instanceof EngineResponseError && err.status === 404 && err.type !== 'index_not_found_exception') return null;
      // Per-source indices of an older build serve (until pdi reindex): a get cannot address an alias
      // of several indices, a search by id can (not real-time).
      if (err instanceof EngineResponseError && err.type === 'illegal_argument_exception') {
        const res = await this.call('search', (options) =>
          this.client.search<IndexedDocument>({ index, query: { ids: { values: [sourceId] } }, size: 1 }, options), opts.signal);
        return res.hits.hits[0]?._source ?? null;
      }
      return this.missingIndex(err, null);
    }
  }

  async knn(q: KnnQuery, opts: ReadOptions = {}): Promise<SearchHit[]> {
    if (q.vector.length !== this.dimension) {
      throw new RangeError(`query vector has ${q.vector.length} dimensions, the index ${this.dimension}`);
    }
    if (q.limit <= 0) return [];
    try {
      const res = await this.read(() =>
        this.call('knn', (options) =>
          this.client.search<StoredDocument>({
            index: readAlias(this.prefix),
            knn: buildKnn(q),
            size: q.limit,
            _source: HIT_SOURCE,
            allow_partial_search_results: false,
          }, options),
          opts.signal,
        ),
      );
      // Elasticsearch's cosine score is already (1 + cos) / 2, in 0..1: 1 same direction, 0.5 orthogonal.
      return res.hits.hits.map((h) => ({ doc: h._source!, score: h._score ?? 0 }));
    } catch (err) {
      return this.missingIndex(err, []);
    }
  }

  async moreLikeThis(q: MoreLikeThisQuery, opts: ReadOptions = {}): Promise<SearchHit[]> {
    if (q.limit <= 0 || !/[\p{L}\p{N}]/u.test(q.text)) return [];
    try {
      const res = await this.read(() =>
        this.call('moreLikeThis', (options) =>
          this.client.search<StoredDocument>({
            index: readAlias(this.prefix),
            query: buildMoreLikeThis(q),
            size: q.limit,
            _source: HIT_SOURCE,
            track_total_hits: false,
            allow_partial_search_results: false,
          }, options),
          opts.signal,
        ),
      );
      return res.hits.hits.map((h) => ({ doc: h._source!, score: h._score ?? 0 }));
    } catch (err) {
      return this.missingIndex(err, []);
    }
  }

  async stats(opts: ReadOptions = {}): Promise<IndexStats> {
    type Bucket = { key: string; doc_count: number; last: { value: number | null; value_as_string?: string }; quality: { value: number | null } };
    const empty = (): IndexStats => ({ total_documents: 0, sources: Object.fromEntries(SOURCE_NAMES.map((s) => [s, emptyStats()])) });
    let res: estypes.SearchResponse<unknown, Record<string, estypes.AggregationsAggregate>>;
    try {
      res = await this.read(() =>
        this.call('stats', (options) =>
          this.client.search({
            index: readAlias(this.prefix),
            size: 0,
            track_total_hits: true,
            aggs: {
              by_source: {
                terms: { field: 'source', size: SOURCE_NAMES.length + 10 },
                aggs: {
                  last: { max: { field: 'indexed_at', format: 'strict_date_time_no_millis' } },
                  quality: { avg: { field: 'quality_score' } },
                },
              },
            },
          }, options),
          opts.signal,
        ),
      );
    } catch (err) {
      return this.missingIndex(err, empty());
    }
    const out = empty();
    out.total_documents = totalOf(res);
    const buckets = (res.aggregations?.by_source as { buckets?: Bucket[] } | undefined)?.buckets ?? [];
    for (const b of buckets) {
      out.sources[b.key as SourceName] = {
        documents: b.doc_count,
        last_updated: b.last.value === null ? null : (b.last.value_as_string ?? new Date(b.last.value).toISOString()),
        // quality_score is a float field: round away float32 noise (0.8 comes back as 0.800000011920929).
        avg_quality: b.quality.value === null ? null : Math.round(b.quality.value * 1e6) / 1e6,
      };
    }
    return out;
  }

  async refresh(): Promise<void> {
    await this.call('indices.refresh', () =>
      this.client.indices.refresh({ index: readAlias(this.prefix), ignore_unavailable: true, allow_no_indices: true }),
    );
  }

  async close(): Promise<void> {
    await this.closeWalks(this.walks.clear());
    await this.client.close();
  }
}

// ---- helpers -------------------------------------------------------------------------------------------

function emptyStats(): SourceStats {
  return { documents: 0, last_updated: null, avg_quality: null };
}

function totalOf(res: estypes.SearchResponse<unknown, unknown>): number {
  const t = res.hits.total;
  return typeof t === 'number' ? t : (t?.value ?? 0);
}

/** The metadata record stored with a document, base64 as binary fields take it (mapping.ts METADATA_JSON_FIELD). */
function metadataRecord(doc: IndexedDocument): string {
  return Buffer.from(JSON.stringify(metadataOf(doc))).toString('base64');
}

/**
 * The hits with their documents: each `_source`, else its metadata record from doc values; null when a
 * hit has neither (written by a build of mapping version 1). A record stays UTF-8 JSON (`metadataJson`) and
 * is parsed only when `doc` is read: a search page is sent on by the API as it is, and only the hits of
 * a score tie are read (pageFromScoreWindow). Decoding and parsing 125 records took a third of the
 * API's CPU on a rare-term search, and re-serialising them another sixth.
 */
function hitsOf(hits: estypes.SearchHit<StoredDocument>[]): SearchHit[] | null {
  const stored = hits.map((h) => (h._source ? undefined : (h.fields?.[METADATA_JSON_FIELD]?.[0] as string | undefined)));
  const records = decodeRecords(stored.filter((r): r is string => r !== undefined));
  let next = 0;
  const out: SearchHit[] = [];
  for (let i = 0; i < hits.length; i++) {
    const score = hits[i]._score ?? 0;
    const source = hits[i]._source;
    if (source) out.push({ doc: source, score });
    else if (stored[i] !== undefined) out.push(new RecordHit(records[next++], score));
    else return null;
  }
  return out;
}

/** A hit whose document is parsed from its metadata record on first use. */
class RecordHit implements SearchHit {
  private parsed: StoredDocument | undefined;
  constructor(readonly metadataJson: Buffer, readonly score: number) {}
  get doc(): StoredDocument {
    return (this.parsed ??= JSON.parse(this.metadataJson.toString('utf8')) as StoredDocument);
  }
}

type TieFields = Pick<StoredDocument, 'published_at' | 'source_id'>;

/** A text-page hit as pageFromScoreWindow sees it: its tie-breakers are read when first asked for. */
class WindowHit {
  private fields: TieFields | undefined;
  readonly score: number;
  constructor(readonly hit: SearchHit) {
    this.score = hit.score;
  }
  get published_at(): unknown {
    return (this.fields ??= tieFieldsOf(this.hit)).published_at;
  }
  get source_id(): string {
    return (this.fields ??= tieFieldsOf(this.hit)).source_id;
  }
}

function tieFieldsOf(hit: SearchHit): TieFields {
  return (hit.metadataJson && recordTieFields(hit.metadataJson)) || hit.doc;
}

const SOURCE_ID_OPENING = Buffer.from('{"source_id":"');
const PUBLISHED_AT_KEY = Buffer.from(',"published_at":');

/**
 * source_id and published_at of a metadata record, read from its bytes without parsing the rest, or
 * null when the record is not in the expected shape (then the caller parses it). The record is
 * JSON.stringify of METADATA_FIELDS in order, so it opens with source_id; `,"published_at":` cannot
 * occur inside a string value, where every quote is escaped. A value with an escape is left to
 * JSON.parse.
 */
export function recordTieFields(json: Buffer): TieFields | null {
  const start = SOURCE_ID_OPENING.length;
  if (json.compare(SOURCE_ID_OPENING, 0, start, 0, start) !== 0) return null;
  const idEnd = json.indexOf(0x22, start);
  if (idEnd < 0 || hasEscape(json, start, idEnd)) return null;
  const key = json.indexOf(PUBLISHED_AT_KEY, idEnd);
  if (key < 0) return null;
  const v = key + PUBLISHED_AT_KEY.length;
  let published_at: unknown;
  if (json[v] === 0x22) {
    const end = json.indexOf(0x22, v + 1);
    if (end < 0 || hasEscape(json, v + 1, end)) return null;
    published_at = json.toString('utf8', v + 1, end);
  } else {
    let end = v;
    while (end < json.length && json[end] !== 0x2c && json[end] !== 0x7d) end++;
    try {
      published_at = JSON.parse(json.toString('utf8', v, end));
    } catch {
      return null;
    }
  }
  return { source_id: json.toString('utf8', start, idEnd), published_at } as TieFields;
}

/** Whether json[from, to) holds a backslash: a JSON escape, which JSON.parse must read. */
function hasEscape(json: Buffer, from: number, to: number): boolean {
  const at = json.indexOf(0x5c, from);
  return at >= 0 && at < to;
}

/** `{`: a record stored as raw JSON (a keyword, mapping version 2), which base64 never begins with. */
const RAW_JSON = 0x7b;

/**
 * Metadata records as doc values give them: base64 (binary, mapping version 3 on), decoded into one
 * buffer (one allocation for the page) and cut into records; or raw JSON (version 2, until its source
 * is rebuilt), read as it is. Decoding raw JSON as base64 served bytes that were no JSON at all.
 */
function decodeRecords(records: string[]): Buffer[] {
  const buf = Buffer.allocUnsafe(records.reduce((n, r) => (r.charCodeAt(0) === RAW_JSON ? n : n + (r.length >> 2) * 3), 0));
  let at = 0;
  return records.map((r) => {
    if (r.charCodeAt(0) === RAW_JSON) return Buffer.from(r, 'utf8');
    const start = at;
    at += buf.write(r, at, 'base64');
    return buf.subarray(start, at);
  });
}

/** Splits documents into bulk requests under BULK_MAX_DOCS and (roughly) BULK_MAX_BYTES. */
function* chunks(docs: IndexedDocument[]): Generator<IndexedDocument[]> {
  let chunk: IndexedDocument[] = [];
  let bytes = 0;
  for (const doc of docs) {
    // An estimate without serialising twice: text fields (UTF-8 up to 2 bytes a Greek letter),
    // the vector at ~20 bytes a number, plus the small fields.
    const size = 2 * (doc.title.length + doc.content.length + doc.summary.length) + 20 * (doc.embedding?.length ?? 0) + 2_000;
    if (chunk.length > 0 && (chunk.length >= BULK_MAX_DOCS || bytes + size > BULK_MAX_BYTES)) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(doc);
    bytes += size;
  }
  if (chunk.length > 0) yield chunk;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
