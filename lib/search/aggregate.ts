// Aggregates over the documents a query and filters match (GET /v1/aggregate, facets on /v1/search):
// what an engine computes, and the one plan both engines follow to get it. An engine answers bucket
// requests (every bucket of one or two groupings, or the totals, of the matched documents within a
// scope of keys), each exact; the plan asks for the buckets, orders and cuts them, then asks for what
// the listed buckets leave (`other`). The embedded engine runs the plan in one read transaction
// (embedded/aggregate-sql.ts), Elasticsearch request by request (elasticsearch/aggregations.ts).
import { EVERY_DOCUMENT_KEYED, type Grouping } from '../../index-mappings/analysis.js';
import type { Filters } from './filters.js';

export const AGGREGATE_ORDERS = ['value', 'documents'] as const;
export type AggregateOrder = (typeof AGGREGATE_ORDERS)[number];

export interface AggregateQuery {
  /** User text as a search reads it (TextQuery.text); absent: every document that passes the filters. */
  text?: string;
  /** The text's translation, as TextQuery.translated. */
  translated?: string[][];
  filters?: Filters;
  /** One grouping, or two (the second within each bucket of the first). */
  groupBy: [Grouping] | [Grouping, Grouping];
  orderBy: AggregateOrder;
  /** Buckets listed at each level. */
  limit: number;
  /** `documents`: counts and dates only (facets); `all`: the contract values and tender counts too. */
  metrics: 'documents' | 'all';
  /** Whether to state what the listed buckets leave (`other`). */
  other: boolean;
}

/**
 * What an engine states of a set of documents. Contract values follow lib/contract-value.ts over the
 * whole match (not the bucket): a procurement whose awards and contracts share an ΑΔΑ counts once, at
 * its largest amount, in the bucket of the document holding that amount; so buckets add up.
 */
export interface Metrics {
  documents: number;
  /** Earliest and latest published_at (ISO 8601 as stored). */
  first: string | null;
  last: string | null;
  /** Documents that state a tender count, the sum of their counts, and those stating 1. */
  tendersStated: number;
  tendersSum: number;
  singleBid: number;
  /** Counted contracts: awards and contracts with an EUR amount, each procurement once. */
  contracts: number;
  /** Their value, in cents. */
  valueCents: number;
  /** Their median value in cents (the mean of the two middle ones for an even count); null without any. */
  medianCents: number | null;
}

export interface Bucket extends Metrics {
  key: string;
  /** Within a bucket of the first grouping, the buckets of the second, and what they leave. */
  buckets?: Bucket[];
  other?: Metrics | null;
}

export interface AggregateResult {
  totals: Metrics;
  buckets: Bucket[];
  /** The matched documents in none of the listed buckets (null unless asked for). */
  other: Metrics | null;
}

/** The facets of a search (GET /v1/search `facets`): each grouping's top buckets by documents, over one match. */
export interface FacetsQuery {
  text?: string;
  translated?: string[][];
  filters?: Filters;
  groupings: Grouping[];
  /** Buckets listed of each. */
  limit: number;
}

/** A facet's bucket: a key and its documents. */
export interface FacetCount {
  key: string;
  documents: number;
}

/** The `limit` keys of most documents, as an aggregate by documents lists them (compareBuckets). */
export function topFacet(counts: Map<string, number>, limit: number): FacetCount[] {
  const buckets = [...counts].map(([key, documents]) => ({ ...EMPTY_METRICS, keys: [key], documents }));
  return buckets
    .sort(compareBuckets('documents'))
    .slice(0, limit)
    .map((b) => ({ key: b.keys[0]!, documents: b.documents }));
}

/** Documents with one of `keys` of a grouping (`exclude` false), or with none of them (`exclude` true). */
export interface KeyScope {
  grouping: Grouping;
  keys: string[];
  exclude: boolean;
}

/** One request of the plan to an engine: every bucket of `groups` (none: the totals) within `scope`. */
export interface BucketsRequest {
  groups: Grouping[];
  /** Each must hold: a document is counted when it has (or lacks) one of the keys of each. */
  scope: KeyScope[];
  metrics: 'documents' | 'all';
}

/** A bucket as an engine answers a request: its key under each of the request's groups. */
export interface RawBucket extends Metrics {
  keys: string[];
}

export const EMPTY_METRICS: Metrics = {
  documents: 0,
  first: null,
  last: null,
  tendersStated: 0,
  tendersSum: 0,
  singleBid: 0,
  contracts: 0,
  valueCents: 0,
  medianCents: null,
};

/**
 * `value`: the largest value first, then the most documents; `documents`: the most documents first
 * (what a facet lists, which knows no values). Then by key, in code point order.
 */
function compareBuckets(order: AggregateOrder) {
  return (a: RawBucket, b: RawBucket): number => {
    const by = order === 'value' ? b.valueCents - a.valueCents || b.documents - a.documents : b.documents - a.documents;
    if (by !== 0) return by;
    const ka = a.keys.join('\u0000');
    const kb = b.keys.join('\u0000');
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  };
}

const metricsOf = ({ keys: _keys, ...m }: RawBucket): Metrics => m;

/**
 * The plan: yields the requests of each step (answered in order, one list of buckets per request) and
 * returns the result. Step 1: the buckets of the first grouping, of both (when there is a second) and
 * the totals. Step 2 (`other`): the matched documents outside the listed buckets of the first grouping,
 * and within each listed bucket those outside its listed buckets of the second.
 */
export function* aggregatePlan(q: AggregateQuery): Generator<BucketsRequest[], AggregateResult, RawBucket[][]> {
  const [first, second] = q.groupBy;
  const { metrics } = q;
  const steps: BucketsRequest[] = [
    { groups: [first], scope: [], metrics },
    { groups: [], scope: [], metrics },
  ];
  if (second) steps.push({ groups: [first, second], scope: [], metrics });
  const [level1, [totals = { keys: [], ...EMPTY_METRICS }], pairs = []] = yield steps;
  const order = compareBuckets(q.orderBy);
  const listed = [...level1].sort(order).slice(0, q.limit);
  const within = new Map<string, RawBucket[]>();
  if (second) {
    for (const pair of pairs) {
      const list = within.get(pair.keys[0]!) ?? [];
      list.push({ ...pair, keys: [pair.keys[1]!] });
      within.set(pair.keys[0]!, list);
    }
    for (const [key, list] of within) within.set(key, list.sort(order).slice(0, q.limit));
  }
  let other: Metrics | null = null;
  const subOther = new Map<string, Metrics>();
  if (q.other) {
    // What every listed bucket leaves of a grouping that keys every document, when none was cut, is
    // nothing: not asked.
    const leavesNone = (g: Grouping, all: number, shown: number) => EVERY_DOCUMENT_KEYED.has(g) && shown === all;
    const rest: (BucketsRequest | null)[] = [
      leavesNone(first, level1.length, listed.length)
        ? null
        : { groups: [], scope: [{ grouping: first, keys: listed.map((b) => b.keys[0]!), exclude: true }], metrics },
    ];
    if (second) {
      const seconds = new Map<string, number>();
      for (const pair of pairs) seconds.set(pair.keys[0]!, (seconds.get(pair.keys[0]!) ?? 0) + 1);
      for (const b of listed) {
        const key = b.keys[0]!;
        const sub = within.get(key) ?? [];
        rest.push(
          leavesNone(second, seconds.get(key) ?? 0, sub.length)
            ? null
            : {
                groups: [],
                scope: [
                  { grouping: first, keys: [key], exclude: false },
                  { grouping: second, keys: sub.map((s) => s.keys[0]!), exclude: true },
                ],
                metrics,
              },
        );
      }
    }
    const asked = rest.filter((r): r is BucketsRequest => r !== null);
    const answers = asked.length ? yield asked : [];
    let next = 0;
    const [outside, ...subs] = rest.map((r) => metricsOf((r === null ? undefined : answers[next++]![0]) ?? { keys: [], ...EMPTY_METRICS }));
    other = outside!;
    listed.forEach((b, i) => {
      if (second) subOther.set(b.keys[0]!, subs[i]!);
    });
  }
  return {
    totals: metricsOf(totals),
    buckets: listed.map((b) => {
      const key = b.keys[0]!;
      const out: Bucket = { key, ...metricsOf(b) };
      if (second) {
        out.buckets = (within.get(key) ?? []).map((s) => ({ key: s.keys[0]!, ...metricsOf(s) }));
        out.other = q.other ? (subOther.get(key) ?? null) : null;
      }
      return out;
    }),
    other,
  };
}

/** Runs the plan with an engine that answers synchronously (inside one read transaction), a step's requests together. */
export function runPlanSync(q: AggregateQuery, answerStep: (rs: BucketsRequest[]) => RawBucket[][]): AggregateResult {
  const plan = aggregatePlan(q);
  let step = plan.next();
  while (!step.done) step = plan.next(answerStep(step.value));
  return step.value;
}

/** Runs the plan with an engine that answers asynchronously, the requests of a step side by side. */
export async function runPlan(q: AggregateQuery, answer: (r: BucketsRequest) => Promise<RawBucket[]>): Promise<AggregateResult> {
  const plan = aggregatePlan(q);
  let step = plan.next();
  while (!step.done) step = plan.next(await Promise.all(step.value.map(answer)));
  return step.value;
}

/** The median of sorted (value, count) pairs: the middle value, or the mean of the two middle ones. */
export function medianOf(sorted: [number, number][]): number | null {
  const n = sorted.reduce((sum, [, count]) => sum + count, 0);
  if (n === 0) return null;
  const at = (i: number) => {
    let seen = 0;
    for (const [value, count] of sorted) {
      seen += count;
      if (i < seen) return value;
    }
    return sorted.at(-1)![0];
  };
  return n % 2 ? at((n - 1) / 2) : (at(n / 2 - 1) + at(n / 2)) / 2;
}
