// The Elasticsearch adapter of the SearchProvider port, thin over its parts: client.ts (calls, ping,
// errors), queries.ts (pure request builders), records.ts (hits into documents), writes.ts (bulk),
// lifecycle.ts (generations, rebuild, migration), paging.ts (text pages and deep walks). This folder
// is the only importer of @elastic/elasticsearch, and the place its errors become ours.
//
// Layout (index-mappings/index-names.ts): one physical index per generation holds every source (`source`
// a keyword filter), behind one alias. Reads and writes go to the alias, writes with `require_alias`,
// so a missing alias is an error rather than an auto-created, dynamically mapped index.
import type { estypes } from '@elastic/elasticsearch';
import { METADATA_FIELDS, type IndexedDocument } from '../../../index-mappings/document.js';
import { readAlias } from '../../../index-mappings/index-names.js';
import { MAX_RESULT_WINDOW, type ShardLayout } from '../../../index-mappings/settings.js';
import { SOURCE_NAMES, type SourceName } from '../../../index-mappings/sources.js';
import { BadRequestError, EngineUnavailableError } from '../../errors.js';
import { createLogger, type Logger } from '../../logger.js';
import type {
  BulkResult,
  EmbeddingIdentity,
  ExportBatch,
  ExportCursor,
  ExportQuery,
  ExportRow,
  IndexStats,
  KnnQuery,
  ListQuery,
  MetadataDocument,
  MoreLikeThisQuery,
  ReadOptions,
  RebuildResult,
  RebuildScope,
  SearchHit,
  SearchProvider,
  SearchResult,
  StoredDocument,
  TextQuery,
} from '../provider.js';
import { EngineClient, EngineResponseError, isIndexNotFound, isTransientRead, UNAVAILABLE } from './client.js';
import { IndexLifecycle } from './lifecycle.js';
import { Pager, PIT_KEEP_ALIVE, PLAIN_WINDOW } from './paging.js';
import {
  buildKnn,
  buildListQuery,
  buildMoreLikeThis,
  buildSort,
  buildTextQuery,
  HIT_SOURCE,
  LIST_SORT,
  METADATA,
  METADATA_AND_SNIPPET,
  TEXT_SORT,
  VECTORS_IN_SOURCE,
  WHOLE,
  type Projection,
  type Query,
  type SortSpec,
  type Target,
} from './queries.js';
import { emptyStats, totalOf } from './records.js';
import { docId, servingGenerations, sourceOf } from './generations.js';
import { bulkWrite, type BulkOutcome } from './writes.js';
import { ElasticAggregation } from './aggregations.js';
import { filterClauses } from './filter-query.js';
import { EXPORT_FIELDS } from '../provider.js';
import { EMPTY_METRICS, runPlan, topFacet, type AggregateQuery, type AggregateResult, type FacetCount, type FacetsQuery } from '../aggregate.js';

/** Elasticsearch's limit on a document `_id`, in UTF-8 bytes. */
const MAX_ID_BYTES = 512;
/** Writes of one batch while rebuilds keep swapping generations under it (writeServing). */
const WRITE_ATTEMPTS = 3;

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

export class ElasticsearchProvider implements SearchProvider {
  readonly engine = 'elasticsearch' as const;
  private readonly engineClient: EngineClient;
  private readonly lifecycle: IndexLifecycle;
  private readonly pager: Pager;
  private readonly prefix: string;
  /** The length of the vectors searched: the serving index's, changed by a rebuild for another embedder. */
  private dimension: number;
  private readonly log: Logger;
  private initialized = false;
  private brokenLoggedAt = -Infinity;

  constructor(opts: ElasticsearchProviderOptions) {
    if (!/^[a-z0-9][a-z0-9_-]*$/.test(opts.prefix)) throw new RangeError(`invalid index prefix "${opts.prefix}"`);
    this.prefix = opts.prefix;
    this.dimension = opts.dimension;
    this.log = (opts.logger ?? createLogger('silent')).child({ component: 'elasticsearch' });
    this.engineClient = new EngineClient({ url: opts.url, requestTimeoutMs: opts.requestTimeoutMs ?? 30_000, log: this.log });
    this.lifecycle = new IndexLifecycle(this.engineClient, { ...opts, log: this.log });
    const window = Math.min(PLAIN_WINDOW, Math.max(1, opts.pageWindow ?? PLAIN_WINDOW));
    this.pager = new Pager(this.engineClient, this.log, window, opts.pageWindow === undefined ? MAX_RESULT_WINDOW : window);
  }

  async init(): Promise<void> {
    await this.lifecycle.init();
    this.initialized = true;
  }

  async recordedEmbedding(): Promise<EmbeddingIdentity | null> {
    try {
      return await this.lifecycle.recordedEmbedding();
    } catch {
      return null;
    }
  }

  /** The embedding dimensions the serving indices record (none before the first index). */
  async indexedDimensions(): Promise<number[]> {
    const serving = await this.lifecycle.checkServing();
    return serving.map((s) => Number(s.meta.embedding_dimension)).filter((d) => Number.isInteger(d) && d > 0);
  }

  private async ensureInit(): Promise<void> {
    if (!this.initialized) await this.init();
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
    return new EngineUnavailableError(UNAVAILABLE, why);
  }

  async upsert(docs: IndexedDocument[]): Promise<BulkResult> {
    const failed: BulkResult['failed'] = [];
    const valid: IndexedDocument[] = [];
    for (const doc of docs) {
      if ((SOURCE_NAMES as readonly string[]).includes(doc.source)) valid.push(doc);
      else failed.push({ source_id: doc.source_id, error: `unknown source "${doc.source}"`, cause: 'document' });
    }
    if (valid.length === 0) return { written: 0, failed };
    await this.ensureInit();
    await this.lifecycle.refuseOutdated();
    const out = await this.writeServing(valid);
    return { written: out.written, failed: [...failed, ...out.failed] };
  }

  /**
   * Writes into each source's serving generation, read from the alias before the write and again
   * after it: a rebuild that swapped in between (a new index, or a new generation of one of these
   * sources) may have taken them into a generation it does not show, so they are written again into
   * the one it does. Still moving after WRITE_ATTEMPTS: refused for the index's state, which the
   * sink retries.
   */
  private async writeServing(docs: IndexedDocument[]): Promise<BulkOutcome> {
    const alias = readAlias(this.prefix);
    let before = await this.lifecycle.generations();
    for (let attempt = 1; ; attempt++) {
      const out = await bulkWrite(this.engineClient, docs, alias, true, before.gens);
      const after = await this.lifecycle.generations();
      const moved = after.index !== before.index || docs.some((d) => after.gens.get(d.source) !== before.gens.get(d.source));
      if (!moved) return out;
      this.log.info({ from: before.index, to: after.index }, 'generations swapped during a write; written again');
      if (attempt === WRITE_ATTEMPTS) {
        const error = 'a rebuild swapped generations during the write';
        return { written: 0, created: new Map(), failed: docs.map((d) => ({ source_id: d.source_id, error, cause: 'index' as const })) };
      }
      before = after;
    }
  }

  async rebuild(scope: RebuildScope, batches: AsyncIterable<IndexedDocument[]>, embedding?: EmbeddingIdentity): Promise<RebuildResult> {
    await this.ensureInit();
    const result = await this.lifecycle.rebuild(scope, batches, embedding);
    if (embedding) this.dimension = embedding.dimension;
    return result;
  }

  /** Where a read runs: the alias; a read restricted to one source carries its filter in the query. */
  private target(query: Query, signal: AbortSignal | undefined): Target {
    return { index: readAlias(this.prefix), query, signal };
  }

  search(q: TextQuery & { view: 'metadata' | 'snippet' }, opts?: ReadOptions): Promise<SearchResult<MetadataDocument>>;
  search(q: TextQuery, opts?: ReadOptions): Promise<SearchResult>;
  async search(q: TextQuery, opts: ReadOptions = {}): Promise<SearchResult> {
    const text = q.text.trim();
    if (text === '') return { total: 0, hits: [] };
    const query = buildTextQuery(text, q.filters, await this.lifecycle.olderIndicesServe(), q.translated);
    const target = this.target(query, opts.signal);
    if (q.limit <= 0) return this.countOnly(target);
    const projection = q.view === 'metadata' ? METADATA : q.view === 'snippet' ? METADATA_AND_SNIPPET : WHOLE;
    if (q.sort === 'date') return this.paged(target, LIST_SORT, q.offset, q.limit, projection);
    // A constant-score query ties everywhere: the score-window fast path could never place a page.
    return this.paged(target, TEXT_SORT, q.offset, q.limit, projection, !('constant_score' in (query as object)));
  }

  async list(q: ListQuery, opts: ReadOptions = {}): Promise<SearchResult> {
    const target = this.target(buildListQuery(q.source, q.filters), opts.signal);
    if (q.limit <= 0) return this.countOnly(target);
    return this.paged(target, LIST_SORT, q.offset, q.limit);
  }

  /** `{total, hits: []}` for a zero limit. */
  private async countOnly({ index, query, signal }: Target): Promise<SearchResult> {
    try {
      const res = await this.read(() => this.engineClient.call('count', (options) => this.engineClient.es.count({ index, query }, options), signal));
      return { total: res.count, hits: [] };
    } catch (err) {
      return this.readFailed(err, { total: 0, hits: [] }, index);
    }
  }

  private async paged(target: Target, sort: SortSpec, offset: number, limit: number, src: Projection = WHOLE, scored = true): Promise<SearchResult> {
    try {
      return await this.read(() => this.pager.page(target, sort, offset, limit, src, scored));
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
      const stray = await this.lifecycle.strayIndexAt(index).catch(() => null);
      if (stray) throw this.broken(stray);
    }
    return this.missingIndex(err, empty);
  }

  async get(sourceId: string, opts: ReadOptions = {}): Promise<IndexedDocument | null> {
    const index = readAlias(this.prefix);
    try {
      // A get does not apply the alias filter: the id names the serving generation (generations.ts).
      // Indices of builds before generations serve plain source_ids.
      const serving = await servingGenerations(this.engineClient, index);
      const source = sourceOf(sourceId);
      if (serving && !source) return null;
      const id = serving ? docId(sourceId, serving.gens.get(source!)!) : sourceId;
      // Elasticsearch refuses a longer id with a 400 (a 500 here): it could never have indexed one.
      if (Buffer.byteLength(id) > MAX_ID_BYTES) return null;
      // Real-time: a get sees a write before any refresh.
      const res = await this.engineClient.call(
        'get',
        (options) => this.engineClient.es.get<IndexedDocument>({ index, id, _source_exclude_vectors: false }, options),
        opts.signal,
      );
      return res.found && res._source ? withVector(res._source) : null;
    } catch (err) {
      if (err instanceof EngineResponseError && err.status === 404 && err.type !== 'index_not_found_exception') return null;
      // Per-source indices of an older build serve (until pdi reindex): a get cannot address an alias
      // of several indices, a search by id can (not real-time).
      if (err instanceof EngineResponseError && err.type === 'illegal_argument_exception') {
        const res = await this.engineClient.call(
          'search',
          (options) =>
            this.engineClient.es.search<IndexedDocument>({ index, query: { ids: { values: [sourceId] } }, size: 1, _source: VECTORS_IN_SOURCE }, options),
          opts.signal,
        );
        const found = res.hits.hits[0]?._source;
        return found ? withVector(found) : null;
      }
      return this.missingIndex(err, null);
    }
  }

  async knn(q: KnnQuery, opts: ReadOptions = {}): Promise<SearchHit[]> {
    if (q.vector.length !== this.dimension) {
      throw new RangeError(`query vector has ${q.vector.length} dimensions, the index ${this.dimension}`);
    }
    if (q.limit <= 0) return [];
    // Elasticsearch's cosine score is already (1 + cos) / 2, in 0..1: 1 same direction, 0.5 orthogonal.
    return this.hitsOf('knn', { knn: buildKnn(q), size: q.limit }, opts);
  }

  async moreLikeThis(q: MoreLikeThisQuery, opts: ReadOptions = {}): Promise<SearchHit[]> {
    if (q.limit <= 0 || !/[\p{L}\p{N}]/u.test(q.text)) return [];
    return this.hitsOf('moreLikeThis', { query: buildMoreLikeThis(q), size: q.limit, track_total_hits: false }, opts);
  }

  /** The hits of one search on the read alias, whole documents but their vectors; none while no index serves. */
  private async hitsOf(op: string, body: estypes.SearchRequest, opts: ReadOptions): Promise<SearchHit[]> {
    try {
      const res = await this.read(() =>
        this.engineClient.call(
          op,
          (options) =>
            this.engineClient.es.search<StoredDocument>(
              {
                index: readAlias(this.prefix),
                ...body,
                _source: HIT_SOURCE,
                allow_partial_search_results: false,
              },
              options,
            ),
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
        this.engineClient.call(
          'stats',
          (options) =>
            this.engineClient.es.search(
              {
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
              },
              options,
            ),
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

  /** aggregations.ts: composite aggregations paged to their end, so exact on any number of shards. */
  async aggregate(q: AggregateQuery, opts: ReadOptions = {}): Promise<AggregateResult> {
    const query = await this.aggregateQuery(q);
    try {
      return await this.read(async () => {
        const aggregation = new ElasticAggregation(this.engineClient, readAlias(this.prefix), query, opts.signal);
        if (q.metrics === 'all') aggregation.countValues();
        return runPlan(q, (r) => aggregation.answer(r));
      });
    } catch (err) {
      return this.missingIndex(err, { totals: { ...EMPTY_METRICS }, buckets: [], other: q.other ? { ...EMPTY_METRICS } : null });
    }
  }

  /** The documents an aggregate or facets are over: what the text and filters match. */
  private async aggregateQuery(q: Pick<AggregateQuery, 'text' | 'translated' | 'filters'>): Promise<estypes.QueryDslQueryContainer> {
    const filters = q.filters ?? {};
    return q.text === undefined
      ? { bool: { filter: filterClauses(filters) } }
      : buildTextQuery(q.text, filters, await this.lifecycle.olderIndicesServe(), q.translated);
  }

  /** aggregations.ts facetCounts: every facet's keys counted in one request. */
  async facets(q: FacetsQuery, opts: ReadOptions = {}): Promise<FacetCount[][]> {
    const query = await this.aggregateQuery(q);
    try {
      return await this.read(async () => {
        const counts = await new ElasticAggregation(this.engineClient, readAlias(this.prefix), query, opts.signal).facetCounts(q.groupings);
        return counts.map((c) => topFacet(c, q.limit));
      });
    } catch (err) {
      return this.missingIndex(
        err,
        q.groupings.map(() => []),
      );
    }
  }

  /**
   * A batch of an export: a point in time opened by the first batch (one snapshot for the whole export,
   * kept alive by each batch) walked with search_after in listing order; the last batch closes it.
   */
  async exportBatch(q: ExportQuery, cursor: ExportCursor | null, opts: ReadOptions = {}): Promise<ExportBatch> {
    const filters = q.filters ?? {};
    const query =
      q.text === undefined ? { bool: { filter: filterClauses(filters) } } : buildTextQuery(q.text, filters, await this.lifecycle.olderIndicesServe());
    const at = cursor as { pit: string; after: estypes.SortResults } | null;
    try {
      const pit =
        at?.pit ??
        (
          await this.engineClient.call(
            'open_point_in_time',
            (options) => this.engineClient.es.openPointInTime({ index: readAlias(this.prefix), keep_alive: PIT_KEEP_ALIVE }, options),
            opts.signal,
          )
        ).id;
      const res = await this.engineClient.call(
        'export',
        (options) =>
          this.engineClient.es.search<ExportRow>(
            {
              pit: { id: pit, keep_alive: PIT_KEEP_ALIVE },
              query,
              sort: buildSort(LIST_SORT),
              size: q.size,
              ...(at ? { search_after: at.after } : {}),
              _source: { includes: [...METADATA_FIELDS, ...EXPORT_FIELDS] },
              track_total_hits: false,
              allow_partial_search_results: false,
            },
            options,
          ),
        opts.signal,
      );
      const hits = res.hits.hits;
      const next = { pit: res.pit_id ?? pit, after: hits.at(-1)?.sort };
      if (hits.length < q.size) void this.endExport(next);
      const rows = hits.map((h) => ({ ...h._source!, parties: h._source!.parties ?? [] }));
      return { rows, cursor: hits.length < q.size ? null : next };
    } catch (err) {
      return this.missingIndex(err, { rows: [], cursor: null });
    }
  }

  async endExport(cursor: ExportCursor): Promise<void> {
    const pit = (cursor as { pit?: string }).pit;
    if (pit) await this.engineClient.es.closePointInTime({ id: pit }, { requestTimeout: 2_000, maxRetries: 0 }).catch(() => undefined);
  }

  async refresh(): Promise<void> {
    await this.engineClient.call('indices.refresh', () =>
      this.engineClient.es.indices.refresh({ index: readAlias(this.prefix), ignore_unavailable: true, allow_no_indices: true }),
    );
  }

  async close(): Promise<void> {
    await this.pager.close();
    await this.engineClient.close();
  }
}

/** A document read back whole: one written without a vector has no `embedding` in `_source` at all. */
function withVector(doc: IndexedDocument): IndexedDocument {
  return doc.embedding === undefined ? { ...doc, embedding: null } : doc;
}
