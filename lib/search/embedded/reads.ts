// The reads of the port (SearchProvider), as the embedded engine runs them: in this thread (LocalReads,
// also what each reader thread runs), or sent to the reader threads (pooledReads, read-pool.ts). The
// provider holds one or the other, so no read asks which.
import type { IndexedDocument } from '../../../index-mappings/document.js';
import { runPlanSync, topFacet, type AggregateQuery, type AggregateResult, type FacetCount, type FacetsQuery } from '../aggregate.js';
import type {
  ExportBatch,
  ExportCursor,
  ExportQuery,
  IndexStats,
  KnnQuery,
  ListQuery,
  MoreLikeThisQuery,
  ReadOptions,
  SearchHit,
  SearchProvider,
  SearchResult,
  TextQuery,
} from '../provider.js';
import { publishedWindow } from '../published-window.js';
import { EmbeddedAggregation } from './aggregate-sql.js';
import { compareCandidates, type Candidate } from './candidates.js';
import { logCall, type Engine } from './engine.js';
import { filterSql } from './filter-sql.js';
import { blockOf, ridWindow } from './keys.js';
import { nearest } from './nearest.js';
import { RankingCache } from './rankings.js';
import type { ReadPool } from './read-pool.js';
import { moreLikeThis, searchText } from './text-search.js';
import { parseQuery, parseTranslated, queryFor, textQueryFor } from './text.js';

/** The port's reads (SearchProvider). */
export type Reads = Pick<SearchProvider, 'search' | 'list' | 'get' | 'knn' | 'moreLikeThis' | 'stats' | 'aggregate' | 'facets' | 'exportBatch'>;

/** Reads sent to the reader threads, where LocalReads runs each. */
export function pooledReads(pool: ReadPool): Reads {
  return {
    search: (q, opts) => pool.call('search', q, opts),
    list: (q, opts) => pool.call('list', q, opts),
    get: (sourceId, opts) => pool.call('get', sourceId, opts),
    knn: (q, opts) => pool.call('knn', q, opts),
    moreLikeThis: (q, opts) => pool.call('moreLikeThis', q, opts),
    stats: (opts) => pool.call('stats', null, opts),
    aggregate: (q, opts) => pool.call('aggregate', q, opts),
    facets: (q, opts) => pool.call('facets', q, opts),
    exportBatch: (q, cursor, opts) => pool.call('exportBatch', { q, cursor }, opts),
  };
}

/** Reads in this thread, each in one read transaction (ReadOptions.signal: none once the caller left). */
export class LocalReads implements Reads {
  private readonly rankings = new RankingCache();

  constructor(private readonly engine: Engine) {}

  async search(q: TextQuery, opts: ReadOptions = {}): Promise<SearchResult> {
    return searchText(this.engine, this.rankings, q, opts.signal);
  }

  async list(q: ListQuery, opts: ReadOptions = {}): Promise<SearchResult> {
    const { file, gens } = this.engine;
    const started = performance.now();
    const filters = { ...q.filters, source: q.source };
    const window = publishedWindow(filters.since, filters.until);
    const filter = filterSql(filters);
    const result = file.read(() => {
      const [set] = gens.serving(q.source);
      if (!set) return { total: 0, hits: [] };
      const [limit, offset] = [Math.max(0, q.limit), Math.max(0, q.offset)];
      // Without filters, the set's own count is the total.
      const { total, rids } =
        window === null && filter === null
          ? set.list(limit, offset)
          : set.listFiltered(window && ridWindow(window.afterMs, window.beforeMs), filter, limit, offset);
      return { total, hits: rids.map((rid) => ({ doc: set.fetch(rid), score: 0 })) };
    }, opts.signal);
    logCall(this.engine, 'list', started, { source: q.source, total: result.total });
    return result;
  }

  async get(sourceId: string, opts: ReadOptions = {}): Promise<IndexedDocument | null> {
    const { file, gens } = this.engine;
    return file.read(() => {
      for (const set of gens.serving()) {
        const found = set.find(sourceId);
        if (found) return { ...found.doc, embedding: set.embedding(found.rid) };
      }
      return null;
    }, opts.signal);
  }

  async knn(q: KnnQuery, opts: ReadOptions = {}): Promise<SearchHit[]> {
    return nearest(this.engine, q, opts.signal);
  }

  async moreLikeThis(q: MoreLikeThisQuery, opts: ReadOptions = {}): Promise<SearchHit[]> {
    return moreLikeThis(this.engine, q, opts.signal);
  }

  async stats(opts: ReadOptions = {}): Promise<IndexStats> {
    const { file, gens } = this.engine;
    return file.read(() => {
      const stats: IndexStats = { total_documents: 0, sources: {} };
      for (const set of gens.serving()) {
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
    const started = performance.now();
    const result = this.aggregation(q, q.metrics, (aggregation) => runPlanSync(q, (rs) => aggregation.answerStep(rs)), opts);
    logCall(this.engine, 'aggregate', started, { groupBy: q.groupBy, documents: result.totals.documents });
    return result;
  }

  /** Each facet's plan over one match, in one read transaction. */
  async facets(q: FacetsQuery, opts: ReadOptions = {}): Promise<FacetCount[][]> {
    const started = performance.now();
    const result = this.aggregation(q, 'documents', (aggregation) => q.groupings.map((g) => topFacet(aggregation.counts(g), q.limit)), opts);
    logCall(this.engine, 'facets', started, { groupings: q.groupings });
    return result;
  }

  /** `answer` over the documents that `q`'s text and filters match (aggregate-sql.ts), in one read transaction. */
  private aggregation<T>(
    q: Pick<AggregateQuery, 'text' | 'translated' | 'filters'>,
    metrics: AggregateQuery['metrics'],
    answer: (aggregation: EmbeddedAggregation) => T,
    opts: ReadOptions,
  ): T {
    const { file, gens } = this.engine;
    const filters = q.filters ?? {};
    const window = publishedWindow(filters.since, filters.until);
    const rids = ridWindow(window?.afterMs ?? null, window?.beforeMs ?? null);
    const filter = filterSql(filters);
    const items = q.text === undefined ? null : parseQuery(q.text);
    return file.read(() => {
      // Text without a letter or digit matches nothing, as a search of it.
      const sets = items?.length === 0 ? [] : gens.serving(filters.source);
      const translated = parseTranslated(q.translated);
      const matched = sets.map((set) => ({
        source: set.source,
        fts: set.fts,
        side: set.side,
        match: items === null ? null : textQueryFor(items, translated, set.textVersion).match,
      }));
      const aggregation = new EmbeddedAggregation(file.open(), matched, rids, filter, metrics);
      try {
        return answer(aggregation);
      } finally {
        aggregation.dropTemp();
      }
    }, opts.signal);
  }

  /**
   * A batch of an export: each set read from the first document after the cursor (its published second's
   * block and source_id, the listing order), the sets' rows merged. Each batch is its own read: a write
   * between two batches is seen from the next one on, and no document is repeated or skipped for it.
   */
  async exportBatch(q: ExportQuery, cursor: ExportCursor | null, opts: ReadOptions = {}): Promise<ExportBatch> {
    const { file, gens } = this.engine;
    const filters = q.filters ?? {};
    const window = publishedWindow(filters.since, filters.until);
    const rids = window && ridWindow(window.afterMs, window.beforeMs);
    const filter = filterSql(filters);
    const items = q.text === undefined ? null : parseQuery(q.text);
    const after = cursor as { block: number; sid: string } | null;
    const size = Math.max(1, Math.floor(q.size));
    return file.read(() => {
      // Each set's next keys, merged; the rows of those kept alone are read.
      const candidates: Candidate[] = [];
      for (const set of items?.length === 0 ? [] : gens.serving(filters.source)) {
        const from = after === null ? ridWindow(null, null).from : set.firstAfter(after.block, after.sid);
        if (from === null) continue;
        const match = items === null ? null : queryFor(items, set.textVersion).match;
        for (const { rid, sid } of set.exportKeys(match, from, rids, filter, size)) candidates.push({ set, rid, s: 0, sid });
      }
      const kept = candidates.sort(compareCandidates).slice(0, size);
      const last = kept.at(-1);
      return {
        rows: kept.map((c) => c.set.exportRow(c.rid)),
        cursor: kept.length === size && last ? { block: blockOf(last.rid), sid: last.sid! } : null,
      };
    }, opts.signal);
  }
}
