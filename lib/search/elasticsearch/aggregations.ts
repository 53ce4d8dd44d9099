// Aggregates on Elasticsearch (lib/search/aggregate.ts): composite aggregations, paged with after_key to
// their last bucket, so every count is exact whatever the number of shards (no terms-aggregation
// approximation: no doc_count_error_upper_bound, nothing left in a sum_other_doc_count), and every
// value in EUR is summed in cents from the distinct amounts of a bucket, whose median is taken from the
// same distribution (exact, where a percentiles aggregation would be approximate).
//
// The contract-value rule (lib/contract-value.ts) needs the ΑΔΑ links of the matched awards and
// contracts, which no aggregation can follow: the ΑΔΑs two or more of them share are found by a
// composite aggregation, then those documents' ids, amounts and ΑΔΑs (only theirs) as buckets of
// another, the rule applied to them here, and the documents it does not count left out by id.
import type { estypes } from '@elastic/elasticsearch';
import { GROUPING_FIELDS } from '../../../index-mappings/analysis.js';
import { CONTRACT_CATEGORIES, countedContractValues, toCents } from '../../contract-value.js';
import { type BucketsRequest, type KeyScope, medianOf, type RawBucket } from '../aggregate.js';
import type { EngineClient } from './client.js';
import { totalOf } from './records.js';

type Query = estypes.QueryDslQueryContainer;
type Aggs = Record<string, estypes.AggregationsAggregationContainer>;
type CompositeSources = Record<string, estypes.AggregationsCompositeAggregationSource>[];

/** Buckets asked for per composite page: each carries three sub-aggregations, well under search.max_buckets. */
const PAGE = 5_000;
/** Values of one terms query at most (index.max_terms_count is 65,536). */
const TERMS_CHUNK = 50_000;
/** ΑΔΑs one award or contract carries at most, as read back. */
const MAX_ADAS = 1_000;

/** Awards and contracts with an EUR amount: the documents a contract value is counted from. */
export const VALUED: Query[] = [
  { terms: { doc_category: [...CONTRACT_CATEGORIES] } },
  { term: { 'amount.currency': 'EUR' } },
  { range: { 'amount.value': { gt: 0 } } },
];

/** The metrics a bucket of documents carries beside its count. */
export const DOCUMENT_AGGS: Aggs = {
  first: { min: { field: 'published_at', format: 'strict_date_time_no_millis' } },
  last: { max: { field: 'published_at', format: 'strict_date_time_no_millis' } },
  stated: { filter: { exists: { field: 'tenders_received' } }, aggs: { sum: { sum: { field: 'tenders_received' } } } },
  single: { filter: { term: { tenders_received: 1 } } },
};

/** A request's scope as filter and must_not clauses. */
export function scopeClauses(scope: KeyScope[]): { filter: Query[]; must_not: Query[] } {
  const filter: Query[] = [];
  const mustNot: Query[] = [];
  for (const s of scope) (s.exclude ? mustNot : filter).push({ terms: { [GROUPING_FIELDS[s.grouping]]: s.keys } });
  return { filter, must_not: mustNot };
}

function chunks<T>(xs: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

interface CompositeBucket {
  key: Record<string, string | number>;
  doc_count: number;
  [sub: string]: unknown;
}

type MetricValue = { value: number | null; value_as_string?: string };

/** The aggregates of one query (text and filters) on the read alias, request by request. */
export class ElasticAggregation {
  /** Matched awards and contracts the contract-value rule does not count (another of their procurement does). */
  private uncounted: string[] = [];

  constructor(
    private readonly engine: EngineClient,
    private readonly index: string,
    private readonly query: Query,
    private readonly signal: AbortSignal | undefined,
  ) {}

  private search(op: string, query: Query, aggs: Aggs): Promise<estypes.SearchResponse<unknown, Record<string, estypes.AggregationsAggregate>>> {
    return this.engine.call(
      op,
      (options) =>
        this.engine.es.search({ index: this.index, query, aggs, size: 0, track_total_hits: true, allow_partial_search_results: false }, options) as Promise<
          estypes.SearchResponse<unknown, Record<string, estypes.AggregationsAggregate>>
        >,
      this.signal,
    );
  }

  /** Every bucket of a composite aggregation of `sources` over `query`, page after page. */
  private async *composite(op: string, query: Query, sources: CompositeSources, aggs: Aggs = {}): AsyncGenerator<CompositeBucket> {
    let after: Record<string, string | number> | undefined;
    for (;;) {
      const res = await this.search(op, query, { c: { composite: { size: PAGE, sources, ...(after ? { after } : {}) }, aggs } });
      const agg = res.aggregations?.c as { buckets: CompositeBucket[]; after_key?: Record<string, string | number> } | undefined;
      for (const b of agg?.buckets ?? []) yield b;
      if (!agg?.after_key || (agg.buckets ?? []).length < PAGE) return;
      after = agg.after_key;
    }
  }

  /** Settles which matched awards and contracts count (lib/contract-value.ts); call before answering `all` requests. */
  async countValues(): Promise<void> {
    const valued: Query = { bool: { filter: [this.query, ...VALUED] } };
    const shared: string[] = [];
    for await (const b of this.composite('aggregate.adas', valued, [{ ada: { terms: { field: 'entities.ada' } } }])) {
      if (b.doc_count > 1) shared.push(String(b.key.ada));
    }
    const linked = new Map<string, { amount: number; adas: string[] }>();
    for (const part of chunks(shared, TERMS_CHUNK)) {
      const query: Query = { bool: { filter: [valued, { terms: { 'entities.ada': part } }] } };
      const aggs: Aggs = { amount: { max: { field: 'amount.value' } }, adas: { terms: { field: 'entities.ada', size: MAX_ADAS } } };
      for await (const b of this.composite('aggregate.linked', query, [{ id: { terms: { field: 'source_id' } } }], aggs)) {
        const adas = (b.adas as { buckets: { key: string }[] }).buckets.map((a) => a.key);
        linked.set(String(b.key.id), { amount: (b.amount as MetricValue).value!, adas });
      }
    }
    const counted = countedContractValues([...linked].map(([id, d]) => ({ id, category: 'contract', amount: d.amount, currency: 'EUR', adas: d.adas })));
    this.uncounted = [...counted].filter(([, value]) => value === 0).map(([id]) => id);
  }

  /** The query of a request: the match, within its scope. */
  private scoped(scope: KeyScope[]): Query {
    const { filter, must_not } = scopeClauses(scope);
    return { bool: { filter: [this.query, ...filter], must_not } };
  }

  /** Every bucket of the request's groups (the totals when none) within its scope. */
  async answer(r: BucketsRequest): Promise<RawBucket[]> {
    const query = this.scoped(r.scope);
    const cols = r.groups.map((g, i) => ({ [`k${i}`]: { terms: { field: GROUPING_FIELDS[g] } } }));
    const buckets = new Map<string, RawBucket>();
    const keysOf = (key: Record<string, string | number>) => r.groups.map((_, i) => String(key[`k${i}`]));
    if (cols.length === 0) {
      const res = await this.search('aggregate.totals', query, DOCUMENT_AGGS);
      buckets.set('', { keys: [], ...documentMetrics(totalOf(res), res.aggregations as Record<string, unknown>) });
    } else {
      for await (const b of this.composite('aggregate.buckets', query, cols, DOCUMENT_AGGS)) {
        const keys = keysOf(b.key);
        buckets.set(keys.join('\u0000'), { keys, ...documentMetrics(b.doc_count, b) });
      }
    }
    if (r.metrics === 'all') await this.addValues(query, cols, buckets, keysOf);
    return [...buckets.values()];
  }

  /** Each bucket's counted contracts, their value and median, from the distinct amounts of the bucket. */
  private async addValues(
    query: Query,
    cols: CompositeSources,
    buckets: Map<string, RawBucket>,
    keysOf: (key: Record<string, string | number>) => string[],
  ): Promise<void> {
    const counted: Query = {
      bool: { filter: [query, ...VALUED], must_not: chunks(this.uncounted, TERMS_CHUNK).map((ids) => ({ terms: { source_id: ids } })) },
    };
    const amounts = new Map<string, [number, number][]>();
    for await (const b of this.composite('aggregate.values', counted, [...cols, { amount: { terms: { field: 'amount.value' } } }])) {
      const id = keysOf(b.key).join('\u0000');
      const list = amounts.get(id) ?? [];
      // In key order: amounts ascending within a bucket.
      list.push([toCents(Number(b.key.amount)), b.doc_count]);
      amounts.set(id, list);
    }
    for (const [id, list] of amounts) {
      const bucket = buckets.get(id);
      if (!bucket) continue;
      bucket.contracts = list.reduce((n, [, count]) => n + count, 0);
      bucket.valueCents = list.reduce((sum, [cents, count]) => sum + cents * count, 0);
      bucket.medianCents = medianOf(list);
    }
  }
}

/** A bucket's document metrics from its sub-aggregations (DOCUMENT_AGGS). */
function documentMetrics(documents: number, aggs: Record<string, unknown>): Omit<RawBucket, 'keys'> {
  const date = (m: unknown) => ((m as MetricValue).value === null ? null : ((m as MetricValue).value_as_string ?? null));
  const stated = aggs.stated as { doc_count: number; sum: MetricValue };
  return {
    documents,
    first: date(aggs.first),
    last: date(aggs.last),
    tendersStated: stated.doc_count,
    tendersSum: stated.sum.value ?? 0,
    singleBid: (aggs.single as { doc_count: number }).doc_count,
    contracts: 0,
    valueCents: 0,
    medianCents: null,
  };
}
