// Aggregates on Elasticsearch (lib/search/aggregate.ts): composite aggregations, paged with after_key to
// their last bucket, so every count is exact whatever the number of shards (no terms-aggregation
// approximation: no doc_count_error_upper_bound, nothing left in a sum_other_doc_count), and every
// value in EUR is summed in cents from the distinct amounts of a bucket, whose median is taken from the
// same distribution (exact, where a percentiles aggregation would be approximate).
//
// The contract-value rule (lib/contract-value.ts) needs the ΑΔΑ links of the matched awards and
// contracts, which no aggregation can follow: the ΑΔΑs two or more of them share are found by a
// composite aggregation (a bucket per document and ΑΔΑ, with its amount), the rule applied to those
// sharing one here; what counts is then those sharing no ΑΔΑ and, of the rest, the first of each
// procurement (a short list, where those left out may be most of them). Requests read their documents
// while the rule is settled, and their values after.
import type { estypes } from '@elastic/elasticsearch';
import { setMaxListeners } from 'node:events';
import { GROUPING_FIELDS, type Grouping } from '../../../index-mappings/analysis.js';
import { CONTRACT_CATEGORIES, countedContractValues, toCents } from '../../contract-value.js';
import { type BucketsRequest, type KeyScope, medianOf, type RawBucket } from '../aggregate.js';
import type { EngineClient } from './client.js';
import { totalOf } from './records.js';

type Query = estypes.QueryDslQueryContainer;
type Aggs = Record<string, estypes.AggregationsAggregationContainer>;
type CompositeSources = Record<string, estypes.AggregationsCompositeAggregationSource>[];

/** Buckets asked for per composite page: each carries three sub-aggregations, well under search.max_buckets. */
const PAGE = 5_000;
/** Buckets per page of a composite aggregation without sub-aggregations (search.max_buckets is 65,536). */
const WIDE_PAGE = 50_000;
/** Values of one terms query at most (index.max_terms_count is 65,536). */
const TERMS_CHUNK = 50_000;

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
  /** Of the matched awards and contracts, those the contract-value rule counts; null: every one. */
  private counted: Query | null = null;
  /** Resolved once `counted` is settled (countValues). */
  private settled: Promise<void> = Promise.resolve();

  constructor(
    private readonly engine: EngineClient,
    private readonly index: string,
    private readonly query: Query,
    private readonly signal: AbortSignal | undefined,
  ) {
    // A step's requests run side by side on one signal, each with its listener until it ends.
    if (signal) setMaxListeners(64, signal);
  }

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
    const size = Object.keys(aggs).length ? PAGE : WIDE_PAGE;
    let after: Record<string, string | number> | undefined;
    for (;;) {
      const res = await this.search(op, query, { c: { composite: { size, sources, ...(after ? { after } : {}) }, aggs } });
      const agg = res.aggregations?.c as { buckets: CompositeBucket[]; after_key?: Record<string, string | number> } | undefined;
      for (const b of agg?.buckets ?? []) yield b;
      if (!agg?.after_key || (agg.buckets ?? []).length < size) return;
      after = agg.after_key;
    }
  }

  /**
   * Starts settling which matched awards and contracts count (lib/contract-value.ts): requests read
   * their documents meanwhile and wait for it only to read their values.
   */
  countValues(): void {
    this.settled = this.settle();
    // Awaited by each request that reads values; one that fails before any does is no unhandled rejection.
    this.settled.catch(() => undefined);
  }

  /** Each matched valued document's ΑΔΑs (one bucket per document and ΑΔΑ), then the rule over those sharing one. */
  private async settle(): Promise<void> {
    const valued: Query = { bool: { filter: [this.query, ...VALUED, { exists: { field: 'entities.ada' } }] } };
    const docs = new Map<string, { amount: number; adas: string[] }>();
    const holders = new Map<string, number>();
    const sources: CompositeSources = [
      { id: { terms: { field: 'source_id' } } },
      { amount: { terms: { field: 'amount.value' } } },
      { ada: { terms: { field: 'entities.ada' } } },
    ];
    for await (const b of this.composite('aggregate.links', valued, sources)) {
      const [id, ada] = [String(b.key.id), String(b.key.ada)];
      const doc = docs.get(id);
      if (doc) doc.adas.push(ada);
      else docs.set(id, { amount: Number(b.key.amount), adas: [ada] });
      holders.set(ada, (holders.get(ada) ?? 0) + 1);
    }
    const shared = [...holders].filter(([, n]) => n > 1).map(([ada]) => ada);
    if (shared.length === 0) return;
    const linked = [...docs].filter(([, d]) => d.adas.some((ada) => holders.get(ada)! > 1));
    const values = countedContractValues(linked.map(([id, d]) => ({ id, category: 'contract', amount: d.amount, currency: 'EUR', adas: d.adas })));
    const first = [...values].filter(([, value]) => value > 0).map(([id]) => id);
    this.counted = {
      bool: {
        should: [
          { bool: { must_not: chunks(shared, TERMS_CHUNK).map((adas) => ({ terms: { 'entities.ada': adas } })) } },
          ...chunks(first, TERMS_CHUNK).map((ids) => ({ terms: { source_id: ids } })),
        ],
        minimum_should_match: 1,
      },
    };
  }

  /** Each grouping's documents per key over the match (facets), composite aggregations side by side in one request, paged on. */
  async facetCounts(groupings: Grouping[]): Promise<Map<string, number>[]> {
    const counts = groupings.map(() => new Map<string, number>());
    // undefined: from the first key; null: done.
    const after: (Record<string, string | number> | undefined | null)[] = groupings.map(() => undefined);
    while (after.some((a) => a !== null)) {
      const aggs: Aggs = {};
      groupings.forEach((g, i) => {
        const from = after[i];
        if (from !== null)
          aggs[`f${i}`] = { composite: { size: WIDE_PAGE, sources: [{ k: { terms: { field: GROUPING_FIELDS[g] } } }], ...(from ? { after: from } : {}) } };
      });
      const res = await this.search('aggregate.facets', this.query, aggs);
      for (const name of Object.keys(aggs)) {
        const i = Number(name.slice(1));
        const agg = res.aggregations?.[name] as { buckets: CompositeBucket[]; after_key?: Record<string, string | number> } | undefined;
        for (const b of agg?.buckets ?? []) counts[i]!.set(String(b.key.k), b.doc_count);
        after[i] = agg?.after_key && agg.buckets.length === WIDE_PAGE ? agg.after_key : null;
      }
    }
    return counts;
  }

  /** The query of a request: the match, within its scope. */
  private scoped(scope: KeyScope[]): Query {
    const { filter, must_not } = scopeClauses(scope);
    return { bool: { filter: [this.query, ...filter], must_not } };
  }

  /** Every bucket of the request's groups (the totals when none) within its scope: its documents and, side by side, its values. */
  async answer(r: BucketsRequest): Promise<RawBucket[]> {
    const query = this.scoped(r.scope);
    const cols = r.groups.map((g, i) => ({ [`k${i}`]: { terms: { field: GROUPING_FIELDS[g] } } }));
    const keysOf = (key: Record<string, string | number>) => r.groups.map((_, i) => String(key[`k${i}`]));
    const [buckets, amounts] = await Promise.all([
      this.documents(query, cols, keysOf),
      r.metrics === 'all' ? this.settled.then(() => this.amounts(query, cols, keysOf)) : null,
    ]);
    for (const [id, list] of amounts ?? []) {
      const bucket = buckets.get(id);
      if (!bucket) continue;
      bucket.contracts = list.reduce((n, [, count]) => n + count, 0);
      bucket.valueCents = list.reduce((sum, [cents, count]) => sum + cents * count, 0);
      bucket.medianCents = medianOf(list);
    }
    return [...buckets.values()];
  }

  /** Each bucket's document metrics, by its keys joined with NUL (one bucket, '', for the totals). */
  private async documents(query: Query, cols: CompositeSources, keysOf: (key: Record<string, string | number>) => string[]): Promise<Map<string, RawBucket>> {
    const buckets = new Map<string, RawBucket>();
    if (cols.length === 0) {
      const res = await this.search('aggregate.totals', query, DOCUMENT_AGGS);
      buckets.set('', { keys: [], ...documentMetrics(totalOf(res), res.aggregations as Record<string, unknown>) });
    } else {
      for await (const b of this.composite('aggregate.buckets', query, cols, DOCUMENT_AGGS)) {
        const keys = keysOf(b.key);
        buckets.set(keys.join('\u0000'), { keys, ...documentMetrics(b.doc_count, b) });
      }
    }
    return buckets;
  }

  /** Each bucket's counted contracts as (cents, count) pairs, amounts ascending: the distinct amounts of the bucket. */
  private async amounts(
    query: Query,
    cols: CompositeSources,
    keysOf: (key: Record<string, string | number>) => string[],
  ): Promise<Map<string, [number, number][]>> {
    const counted: Query = { bool: { filter: [query, ...VALUED, ...(this.counted ? [this.counted] : [])] } };
    const amounts = new Map<string, [number, number][]>();
    for await (const b of this.composite('aggregate.values', counted, [...cols, { amount: { terms: { field: 'amount.value' } } }])) {
      const id = keysOf(b.key).join('\u0000');
      const list = amounts.get(id) ?? [];
      // In key order: amounts ascending within a bucket.
      list.push([toCents(Number(b.key.amount)), b.doc_count]);
      amounts.set(id, list);
    }
    return amounts;
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
