// The embedded search engine: SQLite FTS5 and a usearch graph behind the SearchProvider port, the default when
// no Elasticsearch is configured. How it stores, ranks and swaps: docs/search-engines.md.
import fs from 'node:fs';
import type { Statement } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import type { IndexedDocument } from '../../../index-mappings/document.js';
import { BadRequestError, EngineUnavailableError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { SOURCE_NAMES, type SourceName } from '../../../index-mappings/sources.js';
import { VECTOR_CANDIDATES } from '../../../index-mappings/ranking.js';
import { BUSY_TIMEOUT_MS, Database, openSqlite, type Sqlite } from '../../sqlite.js';
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
  TextQuery,
} from '../provider.js';
import { CATCH_UP_MARGIN_MS } from '../provider.js';
import { likeWords } from './more-like-this.js';
import { blockOf, isoSeconds, ridWindow, type RidWindow } from './keys.js';
import { publishedWindow } from '../published-window.js';
import { filterKey } from '../filters.js';
import { filterSql, type FilterSql } from './filter-sql.js';
import { runPlanSync, type AggregateQuery, type AggregateResult } from '../aggregate.js';
import { EmbeddedAggregation } from './aggregate-sql.js';
import { RankingCache, rankingDepth, type Ranking } from './rankings.js';
import { ReadPool } from './read-pool.js';
import {
  SCHEMA_VERSION,
  addDocumentColumns,
  createGlobalTables,
  createTableSet,
  dropTableSet,
  existingTableSets,
  tableSetName,
  tableSetTextVersion,
} from './schema.js';
import { TableSet, type WriteContext, type Ranked, type Tuning } from './table-set.js';
import { PRUNE_LIMITS, prunedTop } from './pruned.js';
import { VectorIndex } from './vector-index.js';
import { TEXT_VERSION, compareCodePoints, likeMatchFor, likeTerms, parseQuery, queryFor, rankPhrases, termFor, type QueryItem, type SetQuery } from './text.js';

export type { Tuning } from './table-set.js';

export interface EmbeddedOptions {
  /** SQLite file, or ':memory:'. */
  file: string;
  /** Embedding dimension; recorded in the index, a different one on reopen is refused. */
  dimension: number;
  /** Embedding model id; recorded in the index, a different one on reopen is refused. */
  embeddingModel: string;
  logger?: Logger;
  /** Common-term list tuning; the defaults suit 10k–10M documents (tests lower them to force the path). */
  tuning?: Partial<Tuning>;
  /**
   * Reader threads for search, list, get, knn and stats (read-pool.ts), started as concurrent reads
   * need them; 0 (the default, and always for ':memory:') runs reads on the calling thread.
   */
  readers?: number;
  /** For tests: the reader threads' entry module (ReadPoolOptions.entry), e.g. one that holds a read on demand. */
  readerEntry?: URL;
  /**
   * documents.db: the reader threads also resolve its entities (lib/entity-readers.ts), so one pool,
   * one queue fair between tenants, serves both.
   */
  entities?: string;
}

export const DEFAULT_TUNING: Tuning = {
  // FTS5 ranks 0.4–1.2 µs per match (more for words repeated in each document), and a query touches up to
  // eight sources: below 5k matches per source a term costs a few ms, above it gets a list.
  hotMinDf: 5_000,
  // Serves the first 12 pages of 100 from the list; deeper pages are ranked by FTS5.
  hotListSize: 1200,
  hotListMax: 2400,
  // A query scans up to this many vectors exactly beside the graph (docs/benchmarks-history.md "Vector
  // search: one HNSW graph").
  vectorDeltaMax: 10_000,
  vectorExactScope: 20_000,
  vectorCandidates: VECTOR_CANDIDATES,
};

/** The index was built with another embedding model, dimension or text version: it must be rebuilt. */
export class EmbeddedIndexMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedIndexMismatchError';
  }
}

/** SQLite's answers for a file that is not (or no longer) a sound database. */
const DAMAGED = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB']);

/** The index file is no sound database: it must be rebuilt, which loses nothing (documents.db holds all). */
export class EmbeddedIndexDamagedError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(
      `The embedded index ${file} is damaged (${reason}). It holds nothing that is not in documents.db: ` +
        'stop the server and run `pdi reindex`, which moves it aside and rebuilds it.',
    );
    this.name = 'EmbeddedIndexDamagedError';
  }
}

function damaged(err: unknown): boolean {
  return DAMAGED.has((err as { code?: string }).code ?? '');
}

/** The deepest kNN answered (sqlite-vec's limit, which vector search had before it had a graph). */
const MAX_KNN = 4096;

interface Candidate {
  set: TableSet;
  rid: bigint;
  s: number;
  sid?: string;
}

export class EmbeddedProvider implements SearchProvider {
  readonly engine = 'embedded' as const;
  /** How searches were served, per table set consulted (for tests, benchmarks and debugging). */
  readonly counters = { fromList: 0, rankedByFts: 0, listsBuilt: 0, fromRanking: 0, pruned: 0 };
  private db: Sqlite | null = null;
  private readonly sets = new Map<string, TableSet>();
  private servingStatement: Statement | null = null;
  private readonly tuning: Tuning;
  private readonly log: Logger | undefined;
  private readonly pool: ReadPool | null = null;
  private readonly rankings = new RankingCache();
  private readonly vectors: VectorIndex;
  /** Writes committed on this connection, which SQLite's data_version does not count. */
  private writes = 0;
  private damageLogged = false;
  /** The model the index records; a rebuild for another one changes it (rebuild's `embedding`). */
  private embeddingModel: string;
  /** What reader threads are started with: a switch of model reaches the threads started after it. */
  private readonly readerIndex: { embeddingModel: string } | null = null;

  constructor(private readonly opts: EmbeddedOptions) {
    this.embeddingModel = opts.embeddingModel;
    this.tuning = { ...DEFAULT_TUNING, ...opts.tuning };
    this.log = opts.logger?.child({ component: 'search-embedded' });
    this.vectors = new VectorIndex({
      file: opts.file === ':memory:' ? null : opts.file,
      dimension: opts.dimension,
      exactScope: this.tuning.vectorExactScope,
      candidates: this.tuning.vectorCandidates,
      log: (level, msg, extra) => this.log?.[level]({ ...extra }, msg),
    });
    const readers = opts.readers ?? 0;
    if (readers > 0 && opts.file !== ':memory:') {
      const { file, dimension, embeddingModel } = opts;
      const addCounters = (d: EmbeddedProvider['counters']) => {
        for (const key of Object.keys(this.counters) as (keyof EmbeddedProvider['counters'])[]) this.counters[key] += d[key] ?? 0;
      };
      const reader = { index: { file, dimension, embeddingModel, tuning: this.tuning }, entities: opts.entities ?? null, logLevel: opts.logger?.level ?? null };
      this.readerIndex = reader.index;
      this.pool = new ReadPool({ reader, size: readers, onCounters: addCounters, log: this.log, entry: opts.readerEntry });
    }
  }

  /** The reader threads; null when reads run on the calling thread. */
  get readPool(): ReadPool | null {
    return this.pool;
  }

  /** Opens the index for writing: a vector index file that is missing or damaged is rebuilt (vector-index.ts). */
  async init(): Promise<void> {
    const db = this.open();
    if (this.read(() => this.vectors.damaged(db))) {
      this.log?.warn({ file: this.opts.file }, 'the vector index file is missing or damaged; rebuilding it from the stored vectors');
      this.writeVectorIndex(true);
    }
  }

  async upsert(docs: IndexedDocument[]): Promise<BulkResult> {
    const started = performance.now();
    const failed: BulkResult['failed'] = [];
    const valid: IndexedDocument[] = [];
    for (const doc of docs) {
      const error = this.invalid(doc);
      if (error) failed.push({ source_id: String((doc as Partial<IndexedDocument> | null)?.source_id ?? ''), error, cause: 'document' });
      else valid.push(doc);
    }
    this.write(() => {
      const contexts = new Map<TableSet, WriteContext>();
      const ctxOf = (set: TableSet) => {
        let ctx = contexts.get(set);
        if (!ctx) contexts.set(set, (ctx = set.beginWrite()));
        return ctx;
      };
      const serving = this.serving();
      for (const doc of valid) {
        let set = serving.find((s) => s.source === doc.source);
        if (!set) serving.push((set = this.createServing(doc.source)));
        // source_id is unique across sources: drop a copy held under another source.
        for (const other of serving) if (other !== set) other.delete(doc.source_id, ctxOf(other));
        set.write(doc, ctxOf(set));
      }
      for (const [set, ctx] of contexts) set.endWrite(ctx);
    });
    if (this.read(() => this.vectors.delta(this.open(), this.serving())) > this.tuning.vectorDeltaMax) this.writeVectorIndex(false);
    this.debug('upsert', started, { written: valid.length, failed: failed.length });
    return { written: valid.length, failed };
  }

  /**
   * A staging table set per rebuilt source (all of them for `'all'`), loaded from `batches`, verified,
   * then swapped in with one transaction. Of `'all'`, other processes may ingest meanwhile into the
   * serving sets: the swap's transaction (which holds SQLite's write lock, so no write slips between)
   * first copies over what they received since the start, where it differs from what was loaded.
   */
  async rebuild(scope: RebuildScope, batches: AsyncIterable<IndexedDocument[]>, embedding?: EmbeddingIdentity): Promise<RebuildResult> {
    const started = performance.now();
    if (scope !== 'all' && !SOURCE_NAMES.includes(scope)) throw new BadRequestError(`Unknown source: ${scope}`);
    const model = embedding?.model ?? this.embeddingModel;
    // The vector index file has one length; the other sources' vectors would be of another model.
    if (embedding && embedding.dimension !== this.opts.dimension)
      throw new Error(`Rebuild for ${model}: its ${embedding.dimension} dimensions are not the index's ${this.opts.dimension}`);
    if (model !== this.embeddingModel && scope !== 'all') throw new Error(`Rebuild of ${scope} for ${model}: a change of model rebuilds every source`);
    const sources: readonly SourceName[] = scope === 'all' ? SOURCE_NAMES : [scope];
    const catchUpSince = Date.now() - CATCH_UP_MARGIN_MS;
    const db = this.open();
    // One rebuild at a time (pdi reindex's lock guarantees it), so a staging set left by a crashed run
    // is stale and goes.
    const staging = this.write(
      () =>
        new Map(
          sources.map((source) => {
            const stale = db.prepare(`SELECT gen FROM generations WHERE source = ? AND state = 'staging'`).pluck().all(source) as number[];
            for (const gen of stale) this.dropGeneration(source, gen);
            const gen = db.prepare(`SELECT coalesce(max(gen), 0) + 1 FROM generations WHERE source = ?`).pluck().get(source) as number;
            createTableSet(db, tableSetName(source, gen), TEXT_VERSION);
            db.prepare(`INSERT INTO generations (source, gen, state, created_at) VALUES (?, ?, 'staging', ?)`).run(source, gen, new Date().toISOString());
            return [source, this.tableSet(source, gen)] as const;
          }),
        ),
    );
    const loaded = new Map(sources.map((source) => [source, { documents: 0, vectors: 0 }]));
    const writeInto = (set: TableSet, docs: IndexedDocument[]) => {
      const ctx = set.beginWrite();
      for (const doc of docs) set.write(doc, ctx);
      set.endWrite(ctx);
      const n = loaded.get(set.source)!;
      n.documents += ctx.inserted - ctx.removed;
      n.vectors += ctx.vectors;
    };
    const what = scope === 'all' ? 'every source' : scope;
    let vectorFile: ReturnType<VectorIndex['write']> = null;
    const previousFile = this.read(() => this.vectors.snapshot(db)?.file ?? null);
    try {
      for await (const batch of batches) {
        for (const doc of batch) {
          const error = this.invalid(doc) ?? (staging.has(doc.source) ? null : `source ${doc.source} is not ${scope}`);
          if (error) throw new Error(`Rebuild of ${what} stopped: document ${String(doc?.source_id)} rejected: ${error}`);
        }
        this.write(() => {
          for (const [source, set] of staging) {
            const docs = scope === 'all' ? batch.filter((d) => d.source === source) : batch;
            if (docs.length > 0) writeInto(set, docs);
          }
        });
      }
      // Before the swap, so the new generation serves common terms fast from its first query.
      for (const set of staging.values()) {
        this.write(() => set.optimize());
        this.buildHotLists(set);
      }
      // The vector file of the new generations and the other sources' serving ones, switched to by the swap.
      vectorFile = this.read(() => {
        const serving = this.serving();
        const kept = serving.filter((set) => !staging.has(set.source));
        return this.vectors.write(
          db,
          [...kept, ...staging.values()],
          false,
          serving.filter((set) => staging.has(set.source)),
        );
      });
      this.write(() => {
        if (scope === 'all') {
          for (const set of staging.values()) {
            const serving = this.serving(set.source)[0];
            if (serving) writeInto(set, serving.changedSince(catchUpSince, set));
          }
        }
        for (const set of staging.values()) {
          const { documents, vectors } = loaded.get(set.source)!;
          const counts = set.counts();
          if (counts.docs !== documents || counts.fts !== documents || counts.vec !== vectors) {
            throw new Error(
              `Rebuild of ${what} failed verification for ${set.source}: expected ${documents} documents and ${vectors} vectors, ` +
                `found ${counts.docs} rows, ${counts.fts} full-text rows, ${counts.vec} vectors`,
            );
          }
          db.prepare(`UPDATE generations SET state = 'retired' WHERE source = ? AND state = 'serving'`).run(set.source);
          db.prepare(`UPDATE generations SET state = 'serving' WHERE source = ? AND gen = ?`).run(set.source, set.gen);
        }
        if (vectorFile) this.vectors.commit(db, vectorFile);
        if (model !== this.embeddingModel) db.prepare(`UPDATE meta SET value = ? WHERE key = 'embedding_model'`).run(model);
      });
      if (model !== this.embeddingModel) {
        this.embeddingModel = model;
        if (this.readerIndex) this.readerIndex.embeddingModel = model;
      }
    } catch (err) {
      this.vectors.discard(vectorFile);
      for (const set of staging.values()) {
        try {
          this.write(() => this.dropGeneration(set.source, set.gen));
        } catch (dropErr) {
          this.log?.error({ err: dropErr, table: set.name }, 'could not drop the failed rebuild generation');
        }
      }
      this.log?.warn({ err, scope }, 'rebuild failed; the previous generation keeps serving');
      throw err;
    }
    this.pruneRetired();
    this.vectors.prune(db, previousFile);
    const bySource = Object.fromEntries([...loaded].map(([source, n]) => [source, n.documents])) as Partial<Record<SourceName, number>>;
    const documents = Object.values(bySource).reduce((x, y) => x + y, 0);
    const index = [...staging.values()].map((set) => set.name).join(',');
    this.debug('rebuild', started, { scope, documents, index });
    return { source: scope, documents, bySource, index };
  }

  /** Read from the file without opening it for writing (no set-up, no check of what it records). */
  async recordedEmbedding(): Promise<EmbeddingIdentity | null> {
    if (this.opts.file === ':memory:' || !fs.existsSync(this.opts.file)) return null;
    const db = new Database(this.opts.file, { readonly: true, fileMustExist: true });
    try {
      const tables = db.prepare(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('meta', 'generations')`).pluck().get();
      if (tables !== 2) return null;
      const documents = db.prepare(`SELECT coalesce(sum(documents), 0) FROM generations`).pluck().get() as number;
      const meta = this.storedMeta(db);
      return documents > 0 && meta.embedding_model ? { model: meta.embedding_model, dimension: Number(meta.dimension) } : null;
    } finally {
      db.close();
    }
  }

  search(q: TextQuery & { view: 'metadata' | 'snippet' }, opts?: ReadOptions): Promise<SearchResult<MetadataDocument>>;
  search(q: TextQuery, opts?: ReadOptions): Promise<SearchResult>;
  // The columns a view needs alone: a page read whole copied every content, up to 100,000 characters
  // each, from SQLite and from the reader thread.
  async search(q: TextQuery, opts: ReadOptions = {}): Promise<SearchResult> {
    if (this.pool) return this.pool.call('search', q, opts);
    const started = performance.now();
    const items = parseQuery(q.text);
    const limit = Math.max(0, Math.floor(q.limit));
    const offset = Math.max(0, Math.floor(q.offset));
    if (!items.length) return { total: 0, hits: [] };
    // Each table set is asked in its own text version's terms (stemmed from version 3); one plain term
    // takes the common-term list path (an infinite hotMinDf turns it off).
    const queries = new Map<number, SetQuery>();
    const queryOf = (set: TableSet): SetQuery => {
      let sq = queries.get(set.textVersion);
      if (!sq) queries.set(set.textVersion, (sq = queryFor(items, set.textVersion)));
      return sq;
    };
    const filters = q.filters ?? {};
    const window = publishedWindow(filters.since, filters.until);
    const rids = window && ridWindow(window.afterMs, window.beforeMs);
    const filter = filterSql(filters);
    // The common-term lists rank a term by score over all of a set's documents: a window, a filter or
    // the date order leaves them aside.
    const lists = Number.isFinite(this.tuning.hotMinDf) && rids === null && filter === null && q.sort !== 'date';
    const k = offset + limit;
    // Only prefixes: constant score, as Elasticsearch's constant-score rewrite of prefix queries, so the
    // order is the tie-break alone and FTS5 walks its index in row-id order instead of scoring every match
    // of a broad prefix (`προμηθ*` matches ~70% of documents). By date: that order is the one asked for.
    const constant = items.every((item) => item.kind === 'prefix') || q.sort === 'date';
    const maintain: { set: TableSet; term: string }[] = [];
    const result = this.read(() => {
      const sets = this.serving(filters.source);
      // A client paging on: the previous page was ranked deeper than it asked for (rankings.ts). First
      // pages neither read nor keep a ranking.
      const paging =
        offset > 0
          ? {
              key: JSON.stringify([sets.map((set) => set.name), sets.map((set) => queryOf(set).match), constant, filterKey(filters)]),
              version: this.indexVersion(),
            }
          : null;
      const kept = paging && this.rankings.get(paging.key, paging.version, k);
      if (kept) {
        this.counters.fromRanking += 1;
        return pageOf(kept, sets, offset, k, constant, q.view);
      }
      const parts: { set: TableSet; count: number; top: Ranked[] | null }[] = [];
      for (const set of sets) {
        const { match, single } = queryOf(set);
        const hot = single && lists ? set.lists.top(single, k) : null;
        if (hot?.kind === 'ok') {
          this.counters.fromList += 1;
          parts.push({ set, count: hot.total, top: hot.top });
          continue;
        }
        const count = set.count(match, rids, filter);
        if (hot?.kind === 'cold' && count >= this.tuning.hotMinDf) maintain.push({ set, term: single! });
        // A fresh list certifies about hotListSize minus the ties at its cut; a stale one that fails on the
        // first half is worth rebuilding (deeper pages simply stay on FTS5).
        if (hot?.kind === 'stale' && k <= this.tuning.hotListSize / 2) maintain.push({ set, term: single! });
        parts.push({ set, count, top: null });
      }
      const total = parts.reduce((sum, p) => sum + p.count, 0);
      if (offset >= total || !limit) return { total, hits: [] };
      // Past the first page, what FTS5 ranks is ranked deeper and kept for the pages after it. First
      // pages (most searches) and pages served from lists are fast already and keep nothing.
      const keep = paging !== null && parts.every((p) => p.top === null) ? paging : null;
      const depth = keep ? Math.min(rankingDepth(k, limit), total) : k;
      const candidates: Candidate[] = [];
      for (const { set, count, top } of parts) {
        if (!count) continue;
        const { match } = queryOf(set);
        const n = Math.min(depth, count);
        if (!top && constant) this.counters.rankedByFts += 1;
        const ranked = top ?? (constant ? set.firstInOrder(match, n, rids, filter) : this.rankMatches(set, items, match, n, count, rids, filter));
        for (const r of ranked) candidates.push({ set, rid: r.rid, s: r.s });
      }
      candidates.sort(compareCandidates);
      // Exact up to depth only: past it, a set cut at depth may hold better candidates than those kept.
      if (keep) this.rankings.set(keep.key, keep.version, rankingOf(candidates.slice(0, depth), sets, total));
      const page = candidates.slice(offset, k);
      return { total, hits: page.map((c) => ({ ...c.set.viewed(c.rid, q.view), score: constant ? 1 : -c.s }) as SearchHit) };
    }, opts.signal);
    // A common term without a usable list: build it now, so the next call is fast. Best effort, and
    // never waits for another process's write lock.
    for (const { set, term } of maintain) this.maintain(set, term);
    this.debug('search', started, { total: result.total, hits: result.hits.length, lists: maintain.length });
    return result;
  }

  async list(q: ListQuery, opts: ReadOptions = {}): Promise<SearchResult> {
    if (this.pool) return this.pool.call('list', q, opts);
    const started = performance.now();
    const filters = { ...q.filters, source: q.source };
    const window = publishedWindow(filters.since, filters.until);
    const filter = filterSql(filters);
    const result = this.read(() => {
      const [set] = this.serving(q.source);
      if (!set) return { total: 0, hits: [] };
      const [limit, offset] = [Math.max(0, q.limit), Math.max(0, q.offset)];
      // Without filters, the set's own count is the total.
      const { total, rids } =
        window === null && filter === null
          ? set.list(limit, offset)
          : set.listFiltered(window && ridWindow(window.afterMs, window.beforeMs), filter, limit, offset);
      return { total, hits: rids.map((rid) => ({ doc: set.fetch(rid), score: 0 })) };
    }, opts.signal);
    this.debug('list', started, { source: q.source, total: result.total });
    return result;
  }

  async get(sourceId: string, opts: ReadOptions = {}): Promise<IndexedDocument | null> {
    if (this.pool) return this.pool.call('get', sourceId, opts);
    return this.read(() => {
      for (const set of this.serving()) {
        const found = set.find(sourceId);
        if (found) return { ...found.doc, embedding: set.embedding(found.rid) };
      }
      return null;
    }, opts.signal);
  }

  async knn(q: KnnQuery, opts: ReadOptions = {}): Promise<SearchHit[]> {
    if (this.pool) return this.pool.call('knn', q, opts);
    const started = performance.now();
    if (q.vector.length !== this.opts.dimension) {
      throw new Error(`knn vector has ${q.vector.length} dimensions; the index holds ${this.opts.dimension}`);
    }
    const limit = Math.max(0, Math.floor(q.limit));
    if (!limit) return [];
    const k = Math.min(limit + (q.excludeId ? 1 : 0), MAX_KNN);
    const vector = new Float32Array(q.vector);
    const filters = q.filters ?? {};
    const window = publishedWindow(filters.since, filters.until);
    const filter = filterSql(filters);
    const hits = this.read(() => {
      const sets = this.serving(filters.source);
      // Filtered: every vector that passes is scanned exactly, in SQL (no graph can be asked for the
      // nearest of an arbitrary subset).
      const candidates: Candidate[] =
        window || filter
          ? sets.flatMap((set) =>
              set.nearestWhere(vector, k, window && ridWindow(window.afterMs, window.beforeMs), filter).map((r) => ({ set, rid: r.rid, s: r.s })),
            )
          : this.vectors.knn(this.open(), sets, vector, k).map((n) => ({ set: n.set, rid: n.rid, s: n.distance }));
      return (
        candidates
          .sort(compareCandidates)
          .filter((c) => !q.excludeId || sidOf(c) !== q.excludeId)
          .slice(0, limit)
          // Cosine distance d = 1 - cos; Elasticsearch's cosine score is (1 + cos) / 2 = 1 - d / 2.
          .map((c) => ({ doc: c.set.fetch(c.rid), score: Math.min(1, Math.max(0, 1 - c.s / 2)) }))
      );
    }, opts.signal);
    this.debug('knn', started, { hits: hits.length });
    return hits;
  }

  async moreLikeThis(q: MoreLikeThisQuery, opts: ReadOptions = {}): Promise<SearchHit[]> {
    if (this.pool) return this.pool.call('moreLikeThis', q, opts);
    const started = performance.now();
    const limit = Math.max(0, Math.floor(q.limit));
    const lists = Number.isFinite(this.tuning.hotMinDf);
    const filters = q.filters ?? {};
    const window = publishedWindow(filters.since, filters.until);
    const rids = window && ridWindow(window.afterMs, window.beforeMs);
    const filter = filterSql(filters);
    const hits = this.read(() => {
      const sets = this.serving();
      if (!limit || !sets.length) return [];
      // The words are chosen by their frequency in the whole index, as Elasticsearch's more_like_this
      // chooses them whatever the filter.
      const documents = sets.reduce((sum, set) => sum + set.documents(), 0);
      const words = likeWords(q.text, (token) => sets.reduce((sum, set) => sum + set.lists.termCount(termFor(token, set.textVersion)), 0), documents);
      if (words === null) return [];
      const candidates: Candidate[] = [];
      for (const set of this.serving(filters.source)) {
        const match = likeMatchFor(words, set.textVersion);
        const phrases = likeTerms(words, set.textVersion).map((term) => ({ phrase: `"${term}"`, term }));
        const pruned = lists && !rids && !filter && phrases.length > 1 ? prunedTop(set, match, phrases, 'or', limit) : null;
        this.counters[pruned ? 'pruned' : 'rankedByFts'] += 1;
        for (const r of pruned ?? set.rank(match, limit, rids, filter)) candidates.push({ set, rid: r.rid, s: r.s });
      }
      return candidates
        .sort(compareCandidates)
        .slice(0, limit)
        .map((c) => ({ doc: c.set.fetch(c.rid), score: -c.s }));
    }, opts.signal);
    this.debug('moreLikeThis', started, { hits: hits.length });
    return hits;
  }

  async stats(opts: ReadOptions = {}): Promise<IndexStats> {
    if (this.pool) return this.pool.call('stats', null, opts);
    return this.read(() => {
      const stats: IndexStats = { total_documents: 0, sources: {} };
      for (const set of this.serving()) {
        const s = set.stats();
        if (!s.documents) continue;
        stats.sources[set.source] = s;
        stats.total_documents += s.documents;
      }
      return stats;
    }, opts.signal);
  }

  /** aggregate-sql.ts: the whole plan in one read transaction, so every step sees one state of the index. */
  async aggregate(q: AggregateQuery, opts: ReadOptions = {}): Promise<AggregateResult> {
    if (this.pool) return this.pool.call('aggregate', q, opts);
    const started = performance.now();
    const filters = q.filters ?? {};
    const window = publishedWindow(filters.since, filters.until);
    const rids = ridWindow(window?.afterMs ?? null, window?.beforeMs ?? null);
    const filter = filterSql(filters);
    const items = q.text === undefined ? null : parseQuery(q.text);
    const result = this.read(() => {
      // Text without a letter or digit matches nothing, as a search of it.
      const sets = items?.length === 0 ? [] : this.serving(filters.source);
      const matched = sets.map((set) => ({ docs: set.docs, fts: set.fts, match: items === null ? null : queryFor(items, set.textVersion).match }));
      const aggregation = new EmbeddedAggregation(this.open(), matched, rids, filter, q.metrics);
      try {
        return runPlanSync(q, (r) => aggregation.answer(r));
      } finally {
        aggregation.dropTemp();
      }
    }, opts.signal);
    this.debug('aggregate', started, { groupBy: q.groupBy, documents: result.totals.documents });
    return result;
  }

  /**
   * A batch of an export: each set read from the first document after the cursor (its published second's
   * block and source_id, the listing order), the sets' rows merged. Each batch is its own read: a write
   * between two batches is seen from the next one on, and no document is repeated or skipped for it.
   */
  async exportBatch(q: ExportQuery, cursor: ExportCursor | null, opts: ReadOptions = {}): Promise<ExportBatch> {
    if (this.pool) return this.pool.call('exportBatch', { q, cursor }, opts);
    const filters = q.filters ?? {};
    const window = publishedWindow(filters.since, filters.until);
    const rids = window && ridWindow(window.afterMs, window.beforeMs);
    const filter = filterSql(filters);
    const items = q.text === undefined ? null : parseQuery(q.text);
    const after = cursor as { block: number; sid: string } | null;
    const size = Math.max(1, Math.floor(q.size));
    return this.read(() => {
      const candidates: (Candidate & { row: ExportRow })[] = [];
      for (const set of items?.length === 0 ? [] : this.serving(filters.source)) {
        const from = after === null ? ridWindow(null, null).from : set.firstAfter(after.block, after.sid);
        if (from === null) continue;
        const match = items === null ? null : queryFor(items, set.textVersion).match;
        for (const { rid, row } of set.exportRows(match, from, rids, filter, size)) candidates.push({ set, rid, s: 0, sid: row.source_id, row });
      }
      const rows = candidates.sort(compareCandidates).slice(0, size);
      const last = rows.at(-1);
      return { rows: rows.map((c) => c.row), cursor: rows.length === size && last ? { block: blockOf(last.rid), sid: last.row.source_id } : null };
    }, opts.signal);
  }

  /** An embedded export holds nothing between batches. */
  async endExport(): Promise<void> {}

  /** Every committed write is already visible to reads in SQLite. */
  async refresh(): Promise<void> {
    this.open();
  }

  async close(): Promise<void> {
    await this.pool?.close();
    this.vectors.close();
    this.sets.clear();
    this.servingStatement = null;
    this.db?.close();
    this.db = null;
  }

  /**
   * Housekeeping after large upsert loads (rebuild does this itself): merges the FTS5 segments, builds
   * the lists of every term found in at least hotMinDf documents of a source, and puts every vector
   * written since into the vector index's file.
   */
  async optimize(): Promise<void> {
    for (const set of this.read(() => this.serving())) {
      this.write(() => set.optimize());
      this.buildHotLists(set);
    }
    if (this.read(() => this.vectors.delta(this.open(), this.serving())) > 0) this.writeVectorIndex(false);
  }

  /**
   * SQLite's quick_check of the whole file. Opening reads the schema alone, so damage in the pages of a
   * source's postings or vectors is met only by a read of them: `pdi reindex` of every source checks
   * first, rather than write a new generation into a damaged file. Throws EmbeddedIndexDamagedError.
   */
  checkStorage(): void {
    let result: unknown;
    try {
      result = this.open().pragma('quick_check(1)', { simple: true });
    } catch (err) {
      throw damaged(err) ? new EmbeddedIndexDamagedError(this.opts.file, (err as Error).message) : err;
    }
    if (result !== 'ok') throw new EmbeddedIndexDamagedError(this.opts.file, String(result).replace(/\s+/g, ' '));
  }

  // ------------------------------------------------------------------ internals

  private open(): Sqlite {
    if (this.db) return this.db;
    const { file } = this.opts;
    let db: Sqlite | null = null;
    try {
      db = openSqlite(file);
      sqliteVec.load(db);
      db.pragma('cache_size = -131072'); // 128 MiB
      db.pragma('temp_store = MEMORY');
      // Set-up writes only when needed: a connection that only has to read (a reader thread, the API
      // beside a reindex) must not wait for the write lock held by another process's long transaction.
      const opened = db;
      if (!this.metaMatches(opened)) {
        opened
          .transaction(() => {
            createGlobalTables(opened);
            this.checkMeta(opened);
          })
          .immediate();
      }
      this.db = opened;
      if (this.hasLeftovers(opened)) this.pruneRetired();
      return opened;
    } catch (err) {
      this.db = null;
      db?.close();
      throw damaged(err) ? new EmbeddedIndexDamagedError(file, (err as Error).message) : err;
    }
  }

  private wantedMeta(): Record<string, string> {
    return {
      schema_version: SCHEMA_VERSION,
      text_version: String(TEXT_VERSION),
      embedding_model: this.embeddingModel,
      dimension: String(this.opts.dimension),
    };
  }

  private storedMeta(db: Sqlite): Record<string, string> {
    const rows = db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[];
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  }

  /**
   * The settings whose recorded value this process cannot work with. An older text version is not one:
   * each table set keeps the version it was written with (docText reproduces every version).
   */
  private differingMeta(have: Record<string, string>): string[] {
    const want = this.wantedMeta();
    return Object.keys(want).filter((key) => {
      if (key === 'text_version') return !(Number(have[key]) <= TEXT_VERSION);
      // Schema 2 had every set's vectors in layout 1, which this build still reads (vectors.ts).
      if (key === 'schema_version') return !(Number(have[key]) >= 2 && Number(have[key]) <= Number(SCHEMA_VERSION));
      return have[key] !== want[key];
    });
  }

  /** Whether the global tables exist and record exactly this process's settings (read only). */
  private metaMatches(db: Sqlite): boolean {
    const exists = db.prepare(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('meta', 'generations')`).pluck().get() === 2;
    if (!exists) return false;
    const have = this.storedMeta(db);
    return Object.entries(this.wantedMeta()).every(([key, value]) => have[key] === value);
  }

  /**
   * Model, dimension and schema version must match the index, and its text version be one this build
   * knows, unless it holds no documents. Then the index records this build's text version, so that an
   * older build, which cannot write the newer sets, refuses it.
   */
  private checkMeta(db: Sqlite): void {
    const want = this.wantedMeta();
    const have = this.storedMeta(db);
    const differs = this.differingMeta(have);
    if (Object.keys(have).length && differs.length) {
      const documents = db.prepare(`SELECT coalesce(sum(documents), 0) FROM generations`).pluck().get() as number;
      if (documents > 0) {
        throw new EmbeddedIndexMismatchError(
          `The embedded index ${this.opts.file} was built with ${differs.map((k) => `${k}=${have[k]}`).join(', ')}; ` +
            `this process uses ${differs.map((k) => `${k}=${want[k]}`).join(', ')}. Reindex required: ` +
            'remove the index file (or run `pdi reindex` against a new PDI_DATA_DIR) and load the sources again.',
        );
      }
      // An empty index simply adopts the new settings.
      for (const name of existingTableSets(db)) dropTableSet(db, name);
      db.prepare('DELETE FROM generations').run();
    }
    addDocumentColumns(db);
    const put = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    for (const [key, value] of Object.entries(want)) put.run(key, value);
  }

  private tableSet(source: SourceName, gen: number): TableSet {
    const name = tableSetName(source, gen);
    let set = this.sets.get(name);
    if (!set) {
      const db = this.open();
      set = new TableSet(db, name, source, gen, tableSetTextVersion(db, name), this.tuning, (msg, extra) => this.log?.warn({ ...extra }, msg));
      this.sets.set(name, set);
    }
    return set;
  }

  /** The serving table sets, in source catalogue order (read inside the caller's transaction). */
  private serving(source?: SourceName): TableSet[] {
    this.servingStatement ??= this.open().prepare(`SELECT source, gen FROM generations WHERE state = 'serving'`);
    const rows = this.servingStatement.all() as {
      source: SourceName;
      gen: number;
    }[];
    return rows
      .filter((r) => source === undefined || r.source === source)
      .sort((a, b) => SOURCE_NAMES.indexOf(a.source) - SOURCE_NAMES.indexOf(b.source))
      .map((r) => this.tableSet(r.source, r.gen));
  }

  private createServing(source: SourceName): TableSet {
    const db = this.open();
    const gen = db.prepare(`SELECT coalesce(max(gen), 0) + 1 FROM generations WHERE source = ?`).pluck().get(source) as number;
    createTableSet(db, tableSetName(source, gen), TEXT_VERSION);
    db.prepare(`INSERT INTO generations (source, gen, state, created_at) VALUES (?, ?, 'serving', ?)`).run(source, gen, new Date().toISOString());
    return this.tableSet(source, gen);
  }

  private dropGeneration(source: string, gen: number): void {
    const name = tableSetName(source, gen);
    dropTableSet(this.open(), name);
    this.open().prepare('DELETE FROM generations WHERE source = ? AND gen = ?').run(source, gen);
    this.sets.delete(name);
  }

  /** Whether pruneRetired has anything to drop (read only). */
  private hasLeftovers(db: Sqlite): boolean {
    return this.retired(db).length > 0 || this.orphanTableSets(db).length > 0;
  }

  private retired(db: Sqlite): { source: string; gen: number }[] {
    return db.prepare(`SELECT source, gen FROM generations WHERE state = 'retired'`).all() as { source: string; gen: number }[];
  }

  /** Table sets no generation row knows (a crash mid-create). */
  private orphanTableSets(db: Sqlite): string[] {
    const known = new Set(
      (db.prepare('SELECT source, gen FROM generations').all() as { source: string; gen: number }[]).map((r) => tableSetName(r.source, r.gen)),
    );
    return existingTableSets(db).filter((name) => !known.has(name));
  }

  /** Drops generations a rebuild retired, and orphan table sets. */
  private pruneRetired(): void {
    try {
      this.write(() => {
        const db = this.open();
        for (const r of this.retired(db)) this.dropGeneration(r.source, r.gen);
        for (const name of this.orphanTableSets(db)) dropTableSet(db, name);
      });
    } catch (err) {
      this.log?.warn({ err }, 'could not prune retired generations; will retry on the next rebuild or open');
    }
  }

  /**
   * The best `k` of a set's `count` matches, by FTS5's bm25: pruned (pruned.ts) when the query has
   * several phrases, common-term lists are on and the matches are many; FTS5 ranks every match otherwise
   * or when the bounds cannot prove the page.
   */
  private rankMatches(set: TableSet, items: QueryItem[], match: string, k: number, count: number, rids: RidWindow | null, filter: FilterSql | null): Ranked[] {
    if (filter) {
      this.counters.rankedByFts += 1;
      return set.rank(match, k, rids, filter);
    }
    // The lists bound a term's contribution over all of a set's documents, so also inside a window.
    const lists = Number.isFinite(this.tuning.hotMinDf);
    const phrases = lists && count > k ? rankPhrases(items, set.textVersion) : null;
    const pruned = phrases && phrases.length > 1 ? prunedTop(set, match, phrases, 'and', k, PRUNE_LIMITS, count, rids) : null;
    this.counters[pruned ? 'pruned' : 'rankedByFts'] += 1;
    return pruned ?? set.rank(match, k, rids);
  }

  /**
   * Writes the vector index's next file for the serving sets (`whole`: from the stored vectors alone) and
   * switches to it. Another writer's switch meanwhile is simply superseded: a file is correct for the
   * state it was read from, and what was written after is in the delta.
   */
  private writeVectorIndex(whole: boolean): void {
    const db = this.open();
    const previous = this.read(() => this.vectors.snapshot(db)?.file ?? null);
    const written = this.read(() => this.vectors.write(db, this.serving(), whole));
    if (!written) return;
    try {
      this.write(() => this.vectors.commit(db, written));
    } catch (err) {
      this.vectors.discard(written);
      throw err;
    }
    this.vectors.prune(db, previous);
  }

  private buildHotLists(set: TableSet): void {
    const terms = this.read(() => set.lists.frequentTerms(this.tuning.hotMinDf));
    // Small transactions: each list costs one FTS5 ranking of its term (~0.4 µs per match).
    for (let i = 0; i < terms.length; i += 16) {
      this.write(() => {
        for (const term of terms.slice(i, i + 16)) if (set.lists.build(term)) this.counters.listsBuilt += 1;
      });
    }
  }

  private maintain(set: TableSet, term: string): void {
    const db = this.open();
    db.pragma('busy_timeout = 0');
    try {
      this.write(() => {
        // The set may have been swapped out by a rebuild in between; then there is nothing to do.
        if (this.serving(set.source)[0] === set && set.lists.build(term)) this.counters.listsBuilt += 1;
      });
    } catch (err) {
      this.log?.warn({ err, table: set.name, term }, 'could not build a common-term list now; the next query retries');
    } finally {
      db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  private invalid(doc: IndexedDocument): string | null {
    if (!doc || typeof doc !== 'object') return 'not a document';
    if (typeof doc.source_id !== 'string' || !doc.source_id) return 'source_id is missing';
    if (!SOURCE_NAMES.includes(doc.source)) return `unknown source ${String(doc.source)}`;
    if (typeof doc.title !== 'string') return 'title is not a string';
    if (typeof doc.published_at !== 'string' || isoSeconds(doc.published_at) === null) return 'published_at is not a timestamp';
    if (typeof doc.indexed_at !== 'string' || isoSeconds(doc.indexed_at) === null) return 'indexed_at is not a timestamp';
    if (typeof doc.quality_score !== 'number' || !Number.isFinite(doc.quality_score)) return 'quality_score is not a number';
    if (doc.embedding != null) {
      if (!Array.isArray(doc.embedding) || doc.embedding.length !== this.opts.dimension) {
        return `embedding must have ${this.opts.dimension} dimensions`;
      }
      if (!doc.embedding.every(Number.isFinite)) return 'embedding has a non-finite value';
    }
    return null;
  }

  /** A read transaction; none for a caller that has gone away (ReadOptions.signal). */
  private read<T>(fn: () => T, signal?: AbortSignal): T {
    signal?.throwIfAborted();
    return this.guard(() => this.open().transaction(fn).deferred());
  }

  private write<T>(fn: () => T): T {
    try {
      return this.guard(() => this.open().transaction(fn).immediate());
    } finally {
      this.writes += 1;
    }
  }

  /**
   * What the index looks like to this connection's read transaction: SQLite's data_version moves with
   * every commit of another connection (it is read when the transaction takes its snapshot), the
   * write count with this one's.
   */
  private indexVersion(): string {
    return `${this.open().pragma('data_version', { simple: true }) as number}:${this.writes}`;
  }

  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
        throw new EngineUnavailableError('The embedded index is locked by another writer; try again shortly');
      }
      if (err instanceof EmbeddedIndexDamagedError || damaged(err)) {
        // Said once: every call that meets a damaged page fails the same way. Clients get a 503.
        const why = err instanceof EmbeddedIndexDamagedError ? err : new EmbeddedIndexDamagedError(this.opts.file, (err as Error).message);
        if (!this.damageLogged) this.log?.error({ file: this.opts.file }, why.message);
        this.damageLogged = true;
        // Clients get the message alone; the operator (pdi status, a failed run) also the damage.
        throw new EngineUnavailableError(undefined, why.message);
      }
      throw err;
    }
  }

  private debug(op: string, started: number, extra: object): void {
    this.log?.debug({ op, ms: Math.round((performance.now() - started) * 100) / 100, ...extra }, 'embedded engine call');
  }
}

/** The merged order of a ranking's candidates, as kept between pages. */
function rankingOf(candidates: Candidate[], sets: TableSet[], total: number): Ranking {
  const n = candidates.length;
  const ranking = { set: new Uint8Array(n), rid: new BigInt64Array(n), score: new Float64Array(n), total };
  for (let i = 0; i < n; i++) {
    const c = candidates[i];
    ranking.set[i] = sets.indexOf(c.set);
    ranking.rid[i] = c.rid;
    ranking.score[i] = c.s;
  }
  return ranking;
}

/** The page [offset, k) of a kept ranking; its table sets are unchanged since (same index version). */
function pageOf(ranking: Ranking, sets: TableSet[], offset: number, k: number, constant: boolean, view: TextQuery['view']): SearchResult {
  const hits: SearchHit[] = [];
  for (let i = offset; i < Math.min(k, ranking.rid.length); i++) {
    hits.push({ ...sets[ranking.set[i]].viewed(ranking.rid[i], view), score: constant ? 1 : -ranking.score[i] } as SearchHit);
  }
  return { total: ranking.total, hits };
}

function sidOf(c: Candidate): string {
  return (c.sid ??= c.set.sourceIdOf(c.rid));
}

/** Score (smaller first: bm25 values and distances), then published_at desc, then source_id asc. Row ids of
 * one table set already sort by the last two; across sets, compare the publish second, then source_id. */
function compareCandidates(a: Candidate, b: Candidate): number {
  if (a.s !== b.s) return a.s - b.s;
  if (a.set === b.set) return a.rid < b.rid ? -1 : a.rid > b.rid ? 1 : 0;
  const ba = blockOf(a.rid);
  const bb = blockOf(b.rid);
  if (ba !== bb) return ba - bb;
  return compareCodePoints(sidOf(a), sidOf(b));
}
