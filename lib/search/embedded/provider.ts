// The embedded search engine: SQLite FTS5 and a usearch graph behind the SearchProvider port, the default when
// no Elasticsearch is configured. How it stores, ranks and swaps: docs/search-engines.md. The port's calls
// are composed here from the engine's parts: the file (index-file.ts), its generations (generations.ts),
// a rebuild (rebuild.ts), the reads (reads.ts: text-search.ts, nearest.ts), in this thread or on reader
// threads (read-pool.ts).
import type { IndexedDocument } from '../../../index-mappings/document.js';
import { VECTOR_CANDIDATES } from '../../../index-mappings/ranking.js';
import type { AggregateQuery, AggregateResult, FacetCount, FacetsQuery } from '../aggregate.js';
import type { Logger } from '../../logger.js';
import type {
  BulkResult,
  EmbeddingIdentity,
  ExportBatch,
  ExportCursor,
  ExportQuery,
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
import { invalidDocument } from './doc-rows.js';
import { logCall, type Engine } from './engine.js';
import { Generations } from './generations.js';
import { IndexFile } from './index-file.js';
import { catchUpVectors, writeVectorIndex } from './nearest.js';
import { LocalReads, pooledReads, type Reads } from './reads.js';
import { ReadPool, type Counters } from './read-pool.js';
import { rebuild } from './rebuild.js';
import type { TableSet, Tuning, WriteContext } from './table-set.js';
import { buildLists } from './text-search.js';
import { VectorIndex } from './vector-index.js';

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

export class EmbeddedProvider implements SearchProvider {
  readonly engine = 'embedded' as const;
  /** How searches were served, per table set consulted (for tests, benchmarks and debugging). */
  readonly counters: Counters = { fromList: 0, rankedByFts: 0, listsBuilt: 0, fromRanking: 0, pruned: 0 };
  private readonly parts: Engine;
  private readonly pool: ReadPool | null = null;
  private readonly reads: Reads;
  /** What reader threads are started with: a switch of model reaches the threads started after it. */
  private readonly readerIndex: { embeddingModel: string } | null = null;

  constructor(private readonly opts: EmbeddedOptions) {
    const tuning = { ...DEFAULT_TUNING, ...opts.tuning };
    const log = opts.logger?.child({ component: 'search-embedded' });
    const file = new IndexFile({
      file: opts.file,
      dimension: opts.dimension,
      embeddingModel: opts.embeddingModel,
      log,
      opened: (db) => gens.pruneIfLeftovers(db),
    });
    const gens = new Generations(file, tuning, log);
    const vectors = new VectorIndex({
      file: opts.file === ':memory:' ? null : opts.file,
      dimension: opts.dimension,
      exactScope: tuning.vectorExactScope,
      candidates: tuning.vectorCandidates,
      log: (level, msg, extra) => log?.[level]({ ...extra }, msg),
    });
    this.parts = { file, gens, vectors, tuning, dimension: opts.dimension, counters: this.counters, log };
    const readers = opts.readers ?? 0;
    if (readers > 0 && opts.file !== ':memory:') {
      const { dimension, embeddingModel } = opts;
      const addCounters = (d: Counters) => {
        for (const key of Object.keys(this.counters) as (keyof Counters)[]) this.counters[key] += d[key] ?? 0;
      };
      const reader = { index: { file: opts.file, dimension, embeddingModel, tuning }, entities: opts.entities ?? null, logLevel: opts.logger?.level ?? null };
      this.readerIndex = reader.index;
      this.pool = new ReadPool({ reader, size: readers, onCounters: addCounters, log, entry: opts.readerEntry });
    }
    this.reads = this.pool ? pooledReads(this.pool) : new LocalReads(this.parts);
  }

  /** The reader threads; null when reads run on the calling thread. */
  get readPool(): ReadPool | null {
    return this.pool;
  }

  /** Opens the index for writing: a vector index file that is missing or damaged is rebuilt (vector-index.ts). */
  async init(): Promise<void> {
    const { file, vectors, log } = this.parts;
    const db = file.open();
    if (file.read(() => vectors.damaged(db))) {
      log?.warn({ file: this.opts.file }, 'the vector index file is missing or damaged; rebuilding it from the stored vectors');
      writeVectorIndex(this.parts, true);
    }
  }

  async upsert(docs: IndexedDocument[]): Promise<BulkResult> {
    const { file, gens, tuning } = this.parts;
    const started = performance.now();
    const failed: BulkResult['failed'] = [];
    const valid: IndexedDocument[] = [];
    for (const doc of docs) {
      const error = invalidDocument(doc, this.opts.dimension);
      if (error) failed.push({ source_id: String((doc as Partial<IndexedDocument> | null)?.source_id ?? ''), error, cause: 'document' });
      else valid.push(doc);
    }
    file.write(() => {
      const contexts = new Map<TableSet, WriteContext>();
      const ctxOf = (set: TableSet) => {
        let ctx = contexts.get(set);
        if (!ctx) contexts.set(set, (ctx = set.beginWrite()));
        return ctx;
      };
      const serving = gens.serving();
      for (const doc of valid) {
        let set = serving.find((s) => s.source === doc.source);
        if (!set) serving.push((set = gens.createServing(doc.source)));
        // source_id is unique across sources: drop a copy held under another source.
        for (const other of serving) if (other !== set) other.delete(doc.source_id, ctxOf(other));
        set.write(doc, ctxOf(set));
      }
      for (const [set, ctx] of contexts) set.endWrite(ctx);
    });
    catchUpVectors(this.parts, tuning.vectorDeltaMax);
    logCall(this.parts, 'upsert', started, { written: valid.length, failed: failed.length });
    return { written: valid.length, failed };
  }

  /** rebuild.ts; from the swap on, reader threads started after it open the index with its model. */
  async rebuild(scope: RebuildScope, batches: AsyncIterable<IndexedDocument[]>, embedding?: EmbeddingIdentity): Promise<RebuildResult> {
    const result = await rebuild(this.parts, scope, batches, embedding);
    if (this.readerIndex) this.readerIndex.embeddingModel = this.parts.file.embeddingModel;
    return result;
  }

  /** Read from the file without opening it for writing (no set-up, no check of what it records). */
  async recordedEmbedding(): Promise<EmbeddingIdentity | null> {
    return this.parts.file.recordedEmbedding();
  }

  search(q: TextQuery & { view: 'metadata' | 'snippet' }, opts?: ReadOptions): Promise<SearchResult<MetadataDocument>>;
  search(q: TextQuery, opts?: ReadOptions): Promise<SearchResult>;
  async search(q: TextQuery, opts: ReadOptions = {}): Promise<SearchResult> {
    return this.reads.search(q, opts);
  }

  async list(q: ListQuery, opts: ReadOptions = {}): Promise<SearchResult> {
    return this.reads.list(q, opts);
  }

  async get(sourceId: string, opts: ReadOptions = {}): Promise<IndexedDocument | null> {
    return this.reads.get(sourceId, opts);
  }

  async knn(q: KnnQuery, opts: ReadOptions = {}): Promise<SearchHit[]> {
    return this.reads.knn(q, opts);
  }

  async moreLikeThis(q: MoreLikeThisQuery, opts: ReadOptions = {}): Promise<SearchHit[]> {
    return this.reads.moreLikeThis(q, opts);
  }

  async stats(opts: ReadOptions = {}): Promise<IndexStats> {
    return this.reads.stats(opts);
  }

  async aggregate(q: AggregateQuery, opts: ReadOptions = {}): Promise<AggregateResult> {
    return this.reads.aggregate(q, opts);
  }

  async facets(q: FacetsQuery, opts: ReadOptions = {}): Promise<FacetCount[][]> {
    return this.reads.facets(q, opts);
  }

  async exportBatch(q: ExportQuery, cursor: ExportCursor | null, opts: ReadOptions = {}): Promise<ExportBatch> {
    return this.reads.exportBatch(q, cursor, opts);
  }

  /** An embedded export holds nothing between batches. */
  async endExport(): Promise<void> {}

  /** Every committed write is already visible to reads in SQLite. */
  async refresh(): Promise<void> {
    this.parts.file.open();
  }

  async close(): Promise<void> {
    await this.pool?.close();
    this.parts.vectors.close();
    this.parts.gens.forget();
    this.parts.file.close();
  }

  /**
   * Housekeeping after large upsert loads (rebuild does this itself): merges the FTS5 segments, builds
   * the lists of every term found in at least hotMinDf documents of a source, and puts every vector
   * written since into the vector index's file.
   */
  async optimize(): Promise<void> {
    const { file, gens } = this.parts;
    for (const set of file.read(() => gens.serving())) {
      file.write(() => set.optimize());
      buildLists(this.parts, set);
    }
    catchUpVectors(this.parts, 0);
  }

  /** index-file.ts checkStorage: throws EmbeddedIndexDamagedError. */
  checkStorage(): void {
    this.parts.file.checkStorage();
  }
}
