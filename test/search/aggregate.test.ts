// The aggregate plan both engines follow (lib/search/aggregate.ts): which requests it asks an engine,
// and the order facets list their keys in.
import t from 'tap';
import type { Grouping } from '../../index-mappings/analysis.js';
import { EMPTY_METRICS, runPlanSync, topFacet, type AggregateQuery, type BucketsRequest, type RawBucket } from '../../lib/search/aggregate.js';

/** Buckets of `documents` each, by their keys. */
const bucket = (keys: string[], documents = 1): RawBucket => ({ ...EMPTY_METRICS, keys, documents });

/** An engine over `pairs` (first key, second key: one document each); the requests it was asked, step by step. */
function engine(pairs: [string, string][]) {
  const steps: BucketsRequest[][] = [];
  const answer = (r: BucketsRequest): RawBucket[] => {
    const docs = pairs.filter(([a, b]) =>
      r.scope.every((s) => {
        const key = s.grouping === 'year' || s.grouping === 'region' ? a : b;
        return s.keys.includes(key) !== s.exclude;
      }),
    );
    const counts = new Map<string, number>();
    for (const [a, b] of docs) {
      const keys = r.groups.map((_, i) => (i === 0 ? a : b)).join('\u0000');
      counts.set(keys, (counts.get(keys) ?? 0) + 1);
    }
    return [...counts].map(([keys, n]) => bucket(keys === '' ? [] : keys.split('\u0000'), n));
  };
  return {
    steps,
    answerStep: (rs: BucketsRequest[]) => {
      steps.push(rs);
      return rs.map(answer);
    },
  };
}

const query = (groupBy: [Grouping] | [Grouping, Grouping], limit: number): AggregateQuery => ({
  groupBy,
  orderBy: 'documents',
  limit,
  metrics: 'documents',
  other: true,
});

t.test('when every bucket of a grouping that keys every document is listed, then what they leave is not asked and is empty', async (t) => {
  const e = engine([
    ['2023', 'ted'],
    ['2023', 'kimdis'],
    ['2024', 'ted'],
  ]);
  const result = runPlanSync(query(['year'], 10), e.answerStep);
  t.equal(e.steps.length, 1, 'one step: the buckets and the totals');
  t.same(result.other, EMPTY_METRICS);
  t.same(
    result.buckets.map((b) => [b.key, b.documents]),
    [
      ['2023', 2],
      ['2024', 1],
    ],
  );

  const two = engine([
    ['2023', 'ted'],
    ['2023', 'kimdis'],
    ['2023', 'diavgeia'],
    ['2024', 'ted'],
  ]);
  const nested = runPlanSync(query(['year', 'source'], 2), two.answerStep);
  t.equal(two.steps.length, 2);
  t.same(
    two.steps[1]!.map((r) => r.scope.map((s) => [s.grouping, s.keys, s.exclude])),
    [
      [
        ['year', ['2023'], false],
        ['source', ['diavgeia', 'kimdis'], true],
      ],
    ],
    "only the year whose sources were cut is asked what they leave; every year is listed, so the years' other is not",
  );
  t.same(
    nested.buckets.map((b) => [b.key, b.other?.documents]),
    [
      ['2023', 1],
      ['2024', 0],
    ],
  );
});

t.test('when a bucket is cut, or the grouping may leave a document without a key, then what the buckets leave is asked', async (t) => {
  const cut = engine([
    ['2023', 'ted'],
    ['2024', 'ted'],
  ]);
  t.equal(runPlanSync(query(['year'], 1), cut.answerStep).other?.documents, 1);
  t.equal(cut.steps.length, 2);
  const region = engine([['EL303', 'ted']]);
  runPlanSync(query(['region'], 10), region.answerStep);
  t.equal(region.steps.length, 2, 'region: a document may have none');
});

t.test('when a facet lists its keys, then by documents, then by key', async (t) => {
  t.same(
    topFacet(
      new Map([
        ['b', 2],
        ['a', 2],
        ['c', 5],
        ['d', 1],
      ]),
      3,
    ),
    [
      { key: 'c', documents: 5 },
      { key: 'a', documents: 2 },
      { key: 'b', documents: 2 },
    ],
  );
});
