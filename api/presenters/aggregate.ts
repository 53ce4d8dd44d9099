// Aggregates as GET /v1/aggregate and the MCP tool `aggregate` answer them (docs/openapi.json
// AggregateResponse): the engine's metrics in EUR and shares, each bucket with its key's label.
import type { BucketLabel } from '../../lib/bucket-labels.js';
import type { Bucket, Metrics } from '../../lib/search/aggregate.js';

export interface PublicMetrics {
  documents: number;
  contracts: number;
  value_sum: number;
  value_median: number | null;
  tenders_stated: number;
  tenders_mean: number | null;
  single_bid_share: number | null;
  first_published: string | null;
  last_published: string | null;
}

export type PublicBucket = { key: string } & BucketLabel & PublicMetrics & { buckets?: PublicBucket[]; other?: PublicMetrics | null };

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** Metrics in EUR (cents / 100: exact to the cent) and shares rounded to 4 decimals. */
export function publicMetrics(m: Metrics): PublicMetrics {
  return {
    documents: m.documents,
    contracts: m.contracts,
    value_sum: m.valueCents / 100,
    value_median: m.medianCents === null ? null : m.medianCents / 100,
    tenders_stated: m.tendersStated,
    tenders_mean: m.tendersStated ? round4(m.tendersSum / m.tendersStated) : null,
    single_bid_share: m.tendersStated ? round4(m.singleBid / m.tendersStated) : null,
    first_published: m.first,
    last_published: m.last,
  };
}

/** A bucket with its label (and its second level's, from `inner`), keyed as `labelOf` finds them. */
export function publicBucket(b: Bucket, labelOf: (key: string) => BucketLabel, inner?: (key: string) => BucketLabel): PublicBucket {
  const out: PublicBucket = { key: b.key, ...labelOf(b.key), ...publicMetrics(b) };
  if (b.buckets && inner) {
    out.buckets = b.buckets.map((s) => publicBucket(s, inner));
    out.other = b.other ? publicMetrics(b.other) : null;
  }
  return out;
}
