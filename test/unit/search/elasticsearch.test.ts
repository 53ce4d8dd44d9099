// The Elasticsearch adapter's pure request builders: no network.
import t from 'tap';
import { buildKnn, buildListQuery, buildSort, buildTextQuery } from '../../../lib/search/elasticsearch.js';

t.test('when a text query is built, then it is a simple_query_string limited to phrase, prefix and whitespace', async (t) => {
  const q = buildTextQuery('σύμβαση "δημόσιο έργο" οδο*', 'kimdis') as any;
  const sqs = q.bool.must[0].simple_query_string;
  t.equal(sqs.query, 'σύμβαση "δημόσιο έργο" οδο*');
  t.equal(sqs.default_operator, 'and');
  t.equal(sqs.flags, 'PHRASE|PREFIX|WHITESPACE');
  t.same(sqs.fields.slice(0, 2), ['title^3', 'title.en^3']);
  t.same(q.bool.filter, [{ term: { source: 'kimdis' } }]);
  t.same((buildTextQuery('x') as any).bool.filter, []);
});

t.test('when a listing has since, then it filters on published_at after that day at 00:00:00Z', async (t) => {
  t.same(buildListQuery('ted', '2024-05-01'), {
    bool: { filter: [{ term: { source: 'ted' } }, { range: { published_at: { gt: '2024-05-01T00:00:00Z' } } }] },
  });
  t.same(buildListQuery('ted'), { bool: { filter: [{ term: { source: 'ted' } }] } });
});

t.test('when a sort is reversed, then every order and missing placement flips', async (t) => {
  const spec = [
    { field: '_score', order: 'desc' as const },
    { field: 'published_at', order: 'desc' as const },
    { field: 'source_id', order: 'asc' as const },
  ];
  t.same(buildSort(spec), [
    { _score: { order: 'desc' } },
    { published_at: { order: 'desc', missing: '_last' } },
    { source_id: { order: 'asc', missing: '_last' } },
  ]);
  t.same(buildSort(spec, true), [
    { _score: { order: 'asc' } },
    { published_at: { order: 'asc', missing: '_first' } },
    { source_id: { order: 'desc', missing: '_first' } },
  ]);
});

t.test('when a kNN query excludes a document, then it filters it inside the vector search and rescores exactly', async (t) => {
  const k = buildKnn({ vector: [1, 0], limit: 5, source: 'ted', excludeId: 'ted:1' });
  t.equal(k.field, 'embedding');
  t.equal(k.k, 5);
  t.ok(k.num_candidates! >= 100);
  t.same(k.rescore_vector, { oversample: 3 }, 'scores re-computed from the float vectors');
  t.same(k.filter, { bool: { filter: [{ term: { source: 'ted' } }], must_not: [{ ids: { values: ['ted:1'] } }] } });
});
