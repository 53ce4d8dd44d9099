// The port to the search engine. Two adapters implement it: elasticsearch/ (production, the only
// importer of @elastic/elasticsearch) and embedded.ts (SQLite FTS5 + vectors, the default).
// One contract suite (test/search/search-contract.ts) runs against both.
import type { IndexedDocument, METADATA_FIELDS } from '../../index-mappings/document.js';
import type { SourceName } from '../../index-mappings/sources.js';
import type { Filters } from './filters.js';
import type { AggregateQuery, AggregateResult, FacetCount, FacetsQuery } from './aggregate.js';

export type EngineName = 'elasticsearch' | 'embedded';

/** A document as read back from the index: never the embedding. */
export type StoredDocument = Omit<IndexedDocument, 'embedding'>;

/** The metadata record (docs/openapi.json DocumentMetadata): what a `view: 'metadata'` search returns at least. */
export type MetadataDocument = Pick<StoredDocument, (typeof METADATA_FIELDS)[number]>;

export interface SearchHit<D = StoredDocument> {
  doc: D;
  /** Engine score; for knn, cosine similarity mapped to 0..1. */
  score: number;
  /** The document's stored snippet text (snippet.ts snippetText), when the view `snippet` asked for it. */
  snippetText?: string;
  /**
   * The hit's metadata record as UTF-8 JSON, byte for byte what
   * `JSON.stringify(metadataOf(doc))` gives, when the engine holds it in that form (Elasticsearch's
   * doc-values record). The API copies it into a response instead of parsing and re-serialising it.
   */
  metadataJson?: Buffer;
}

export interface SearchResult<D = StoredDocument> {
  total: number;
  hits: SearchHit<D>[];
}

/** Shorter prefixes are searched as plain terms: `a*` would merge the posting lists of a large part of
 * the vocabulary on every call (seconds at 1M documents, on either engine). */
export const MIN_PREFIX_CHARS = 2;

export interface TextQuery {
  /**
   * User text. Terms are ANDed; `"a phrase"` and `prefix*` (of at least MIN_PREFIX_CHARS) are honoured;
   * anything else that looks like syntax is treated as text, so garbage never raises. A word or phrase
   * without a letter or digit (a dash, an emoji) is ignored; text with none gives no hits. Greek
   * accents (precomposed or combining), case and final sigma fold.
   */
  text: string;
  /**
   * The text's translation (lib/translation searchAlternatives): groups of alternatives, each
   * alternative words to AND. A document matches the text, or holds one alternative of every group.
   */
  translated?: string[][];
  /** Only documents that pass every filter (filters.ts), source and publication window included. */
  filters?: Filters;
  limit: number;
  offset: number;
  /**
   * `metadata`: hits need only the metadata fields (an engine may return more). Elasticsearch then
   * fetches 10 small fields instead of whole documents, which halved search latency at 1M documents.
   * `snippet`: the metadata fields, and each hit's stored snippet text (SearchHit.snippetText), read
   * instead of its content. `full` (the default): whole documents.
   */
  view?: 'metadata' | 'snippet' | 'full';
  /** `relevance` (default): BM25 order; `date`: published_at desc, then source_id asc, as listings. */
  sort?: SearchSort;
}

/** Every document a text (optional) and filters match, in listing order, a batch at a time (GET /v1/export). */
export interface ExportQuery {
  text?: string;
  filters?: Filters;
  /** Documents per batch. */
  size: number;
}

/** What an export writes of a document besides its metadata record: the fields of an analysis. */
export const EXPORT_FIELDS = ['parties', 'amount', 'cpv', 'procedure_type', 'tenders_received', 'region'] as const;
export type ExportRow = MetadataDocument & Pick<StoredDocument, (typeof EXPORT_FIELDS)[number]>;

/** Where an export goes on from: opaque, the engine's (JSON, so a reader thread can take it). */
export type ExportCursor = Record<string, unknown>;

export interface ExportBatch {
  rows: ExportRow[];
  /** The next batch's cursor; null when this batch was the last. */
  cursor: ExportCursor | null;
}

export const SEARCH_SORTS = ['relevance', 'date'] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];

export interface ListQuery {
  source: SourceName;
  /** Only the source's documents that pass these too (a `source` among them is ignored). */
  filters?: Filters;
  limit: number;
  offset: number;
}

export interface KnnQuery {
  vector: number[];
  limit: number;
  /** Only documents that pass these; the k nearest of them come back. */
  filters?: Filters;
  /** A source_id to leave out (the document itself, for similar-document queries). */
  excludeId?: string;
}

/**
 * Documents sharing words with a text, more of its distinctive words first: Elasticsearch's
 * more_like_this, and its equivalent on the embedded engine (the text's 25 words of highest tf·idf,
 * ORed and ranked by BM25). Serves ask's full-text leg and similar's fallback for a document without
 * a vector, where an ANDed search of a whole question or document would find nothing.
 */
export interface MoreLikeThisQuery {
  text: string;
  limit: number;
  /** Only documents that pass these. */
  filters?: Filters;
}

/** How many words of a MoreLikeThisQuery's text are searched (Elasticsearch's max_query_terms default). */
export const MORE_LIKE_THIS_TERMS = 25;

/**
 * A document the engine did not write. `document`: refused for what it holds (a mapping conflict, an
 * invalid field): sending it again changes nothing. `index`: refused by the index's state (writes
 * blocked, a full disk, overload): the same document goes through once the index takes writes again.
 */
export interface BulkFailure {
  source_id: string;
  error: string;
  cause: 'document' | 'index';
}

export interface BulkResult {
  written: number;
  failed: BulkFailure[];
}

/** The embedder a generation's vectors come from, as the index records it. */
export interface EmbeddingIdentity {
  model: string;
  dimension: number;
}

/**
 * Documents indexed this long before a rebuild started are copied again from the serving generation at
 * its swap: what other processes ingested meanwhile (indexed_at comes from the writer's clock, hence the
 * margin). Both engines' rebuilds use it.
 */
export const CATCH_UP_MARGIN_MS = 5 * 60_000;

/** What a rebuild loads from its batches: one source (every other carried over), or every source. */
export type RebuildScope = SourceName | 'all';

export interface RebuildResult {
  source: RebuildScope;
  /** Documents of the rebuilt scope now served. */
  documents: number;
  /** Of them, per source. */
  bySource: Partial<Record<SourceName, number>>;
  /** The physical index (or table generation) now serving. */
  index: string;
}

export interface SourceStats {
  documents: number;
  /** Latest indexed_at among the source's documents. */
  last_updated: string | null;
  avg_quality: number | null;
}

export interface IndexStats {
  total_documents: number;
  sources: Partial<Record<SourceName, SourceStats>>;
}

/** How one read is run. */
export interface ReadOptions {
  /**
   * Aborted when nobody waits for the answer any more (the API's client went away): a read not started
   * yet is dropped, and the call rejects with the signal's reason. Never sent across threads.
   */
  signal?: AbortSignal;
  /**
   * Whose read it is (the API key): an engine that queues reads serves tenants in turn, so one that
   * sends many cannot make another's wait behind all of them. Reads without one share one line.
   */
  tenant?: string;
  /**
   * Work no client waits on (a report): an engine with reader threads runs it on a thread of its own
   * at a lower CPU priority, so it never takes a core or a reader from the clients' reads.
   */
  background?: boolean;
}

export interface SearchProvider {
  readonly engine: EngineName;
  /** Creates what is missing (indices, aliases, tables). Idempotent. */
  init(): Promise<void>;
  /**
   * Inserts or overwrites by source_id in the serving generation. Each document is sent once; a refused
   * one is reported with its cause, and the caller decides on a retry (ingest/stages/bulk-sink.ts).
   */
  upsert(docs: IndexedDocument[]): Promise<BulkResult>;
  /**
   * Builds a new generation where `source` holds exactly `batches` and every other source is kept as
   * it is (`'all'`: every source holds exactly what `batches` gives of it), verifies the counts per
   * source, then swaps it in atomically and drops the old one. A failure leaves the old generation
   * serving. One rebuild at a time. A named source is not ingested meanwhile (the ingest lock), other
   * sources may be: what they write meanwhile is in the new generation after the swap. Of `'all'`,
   * every source may be ingested meanwhile, and what is written is caught up likewise.
   * `embedding`: the batches' vectors are of another embedder than the one the engine was opened with
   * (a switch to the model fetched at first start); the new generation records it, and from the swap on
   * the engine takes and searches its vectors. The embedded engine keeps its vector length.
   */
  rebuild(scope: RebuildScope, batches: AsyncIterable<IndexedDocument[]>, embedding?: EmbeddingIdentity): Promise<RebuildResult>;
  /**
   * The embedder the serving index records, when it holds documents (null: none yet, or the engine is
   * unreachable). Readable before init(): it tells which embedder to open the engine with.
   */
  recordedEmbedding(): Promise<EmbeddingIdentity | null>;
  /** BM25 with the title boosted; ties broken by published_at desc, then source_id asc (TextQuery.sort). */
  search(q: TextQuery & { view: 'metadata' | 'snippet' }, opts?: ReadOptions): Promise<SearchResult<MetadataDocument>>;
  search(q: TextQuery, opts?: ReadOptions): Promise<SearchResult>;
  /** Ordered by published_at desc, then source_id asc. */
  list(q: ListQuery, opts?: ReadOptions): Promise<SearchResult>;
  get(sourceId: string, opts?: ReadOptions): Promise<IndexedDocument | null>;
  /** Nearest neighbours by cosine similarity; score in 0..1. */
  knn(q: KnnQuery, opts?: ReadOptions): Promise<SearchHit[]>;
  /** Best-match text retrieval (MoreLikeThisQuery); score is the engine's BM25, higher is better. */
  moreLikeThis(q: MoreLikeThisQuery, opts?: ReadOptions): Promise<SearchHit[]>;
  stats(opts?: ReadOptions): Promise<IndexStats>;
  /** Totals and buckets of the documents a text and filters match, exact (aggregate.ts). */
  aggregate(q: AggregateQuery, opts?: ReadOptions): Promise<AggregateResult>;
  /** Each facet's top buckets by documents (those of an aggregate ordered by documents, counts alone), in the order asked, over one match. */
  facets(q: FacetsQuery, opts?: ReadOptions): Promise<FacetCount[][]>;
  /**
   * A batch of an export: published_at desc, then source_id asc, from `cursor` (null: the first). Every
   * match comes once whatever its size, memory bounded by one batch per call.
   */
  exportBatch(q: ExportQuery, cursor: ExportCursor | null, opts?: ReadOptions): Promise<ExportBatch>;
  /** Releases what an export left unfinished holds (Elasticsearch: its point in time). */
  endExport(cursor: ExportCursor): Promise<void>;
  /** Checks storage the engine keeps itself (the embedded file) before every source is rebuilt; throws when it is damaged. */
  checkStorage?(): void;
  /** Makes every acknowledged write visible to reads. */
  refresh(): Promise<void>;
  close(): Promise<void>;
}
