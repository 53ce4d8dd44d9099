// The labels of aggregate buckets, and the facets of a search: both read the engine's buckets and name
// their keys (lib/bucket-labels.ts) in one call per grouping.
import type { Grouping } from '../../index-mappings/analysis.js';
import type { BucketLabel } from '../../lib/bucket-labels.js';
import type { Filters } from '../../lib/search/filters.js';
import type { ReadOptions } from '../../lib/search/provider.js';
import type { AppContext } from '../context.js';

/** A facet's bucket: its key, label and documents (GET /v1/search `facets`). */
export type FacetBucket = { key: string } & BucketLabel & { documents: number };

/** The labels of the keys of a grouping, read in one call; a lookup by key. */
export async function labelsOf(ctx: AppContext, grouping: Grouping, keys: string[], read: ReadOptions): Promise<(key: string) => BucketLabel> {
  const unique = [...new Set(keys)];
  const found = unique.length ? await ctx.entityReaders.labels({ grouping, keys: unique }, read) : [];
  const byKey = new Map(unique.map((k, i) => [k, found[i]!]));
  return (key) => byKey.get(key) ?? { label: null, label_el: null };
}

/**
 * The `limit` buckets of most documents of each facet over what `text` and `filters` match: the
 * buckets GET /v1/aggregate answers with order_by=documents, counts only.
 */
export async function facetsOf(
  ctx: AppContext,
  { text, translated }: { text: string; translated?: string[][] },
  filters: Filters,
  facets: Grouping[],
  limit: number,
  read: ReadOptions,
): Promise<Record<string, FacetBucket[]>> {
  const buckets = await ctx.search.facets({ text, translated, filters, groupings: facets, limit }, read);
  const answers = await Promise.all(
    facets.map(async (grouping, i) => {
      const label = await labelsOf(
        ctx,
        grouping,
        buckets[i]!.map((b) => b.key),
        read,
      );
      return buckets[i]!.map((b) => ({ key: b.key, ...label(b.key), documents: b.documents }));
    }),
  );
  return Object.fromEntries(facets.map((g, i) => [g, answers[i]!]));
}
