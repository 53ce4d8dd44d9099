// Expected request bodies (Pelias's query fixtures): each query shape in, the exact body the
// Elasticsearch adapter sends out. A change to a builder shows here as a reviewed diff.
import t from 'tap';
import { buildKnn, buildListQuery, buildMoreLikeThis, buildScorePage, buildSort, buildTextQuery } from '../../lib/search/elasticsearch.js';

const simple = (query: string, fields: string[]) => ({
  simple_query_string: { query, fields, default_operator: 'and', flags: 'PHRASE|PREFIX|WHITESPACE', lenient: true },
});
/** A Latin word: its English analysis, or the Latin key of a Greek name, or the Greek name it is English for. */
const latinWord = (query: string, key: string, greek?: string) => ({
  bool: {
    should: [simple(query, ['search_text.en']), { match_phrase: { search_latin: key } }, ...(greek ? [simple(greek, ['search_text'])] : [])],
    minimum_should_match: 1,
  },
});

t.test('when a Greek word is searched in one source, then it is folded, looked up in the Greek analysis only, and the source is a filter', async (t) => {
  t.same(buildTextQuery('Συμβάσεις', { source: 'kimdis' }), {
    bool: { must: [simple('συμβασεισ', ['search_text'])], filter: [{ term: { source: 'kimdis' } }] },
  });
});

t.test(
  "when an English word is searched in every source, then it is looked up in the English analysis or as a Greek name's Latin key, with no filter",
  async (t) => {
    t.same(buildTextQuery('harbour'), { bool: { must: [latinWord('harbour', 'xarbur')], filter: [] } });
  },
);

t.test('when an English name of a Greek place is searched, then its Greek name is looked up too', async (t) => {
  t.same(buildTextQuery('athens'), { bool: { must: [latinWord('athens', 'athens', 'αθηνα')], filter: [] } });
});

t.test('when a Greek phrase and a Latin word are searched, then each goes to its own analysis, both required', async (t) => {
  t.same(buildTextQuery('"σύμβαση έργου" road'), {
    bool: { must: [simple('"συμβαση εργου"', ['search_text']), latinWord('road', 'road')], filter: [] },
  });
});

t.test('when only a prefix is searched, then every match scores the same (constant_score) in both analyses', async (t) => {
  t.same(buildTextQuery('λιμέ*'), {
    constant_score: { filter: { bool: { must: [simple('λιμε*', ['search_text', 'search_text.en'])], filter: [] } }, boost: 1 },
  });
});

t.test('when the text holds no letter or digit, then the body matches nothing', async (t) => {
  t.same(buildTextQuery('– 🙂'), { bool: { must: [{ match_none: {} }], filter: [] } });
});

t.test("when a source is listed since a day, then its filter and the day's end are the query", async (t) => {
  t.same(buildListQuery('ted', { since: '2024-01-31' }), {
    bool: { filter: [{ term: { source: 'ted' } }, { range: { published_at: { gt: '2024-01-31T00:00:00.000Z' } } }] },
  });
  t.same(buildListQuery('rae'), { bool: { filter: [{ term: { source: 'rae' } }] } });
});

t.test('when the text order is reversed for a walk from the end, then every order and missing-value side flips', async (t) => {
  const spec = [
    { field: '_score', order: 'desc' },
    { field: 'published_at', order: 'desc' },
    { field: 'source_id', order: 'asc' },
  ] as const;
  t.same(buildSort([...spec]), [
    { _score: { order: 'desc' } },
    { published_at: { order: 'desc', missing: '_last' } },
    { source_id: { order: 'asc', missing: '_last' } },
  ]);
  t.same(buildSort([...spec], true), [
    { _score: { order: 'asc' } },
    { published_at: { order: 'asc', missing: '_first' } },
    { source_id: { order: 'desc', missing: '_first' } },
  ]);
});

t.test('when neighbours of a vector are asked in one source without one document, then the filter applies inside the graph search', async (t) => {
  t.same(buildKnn({ vector: [1, 0], limit: 5, filters: { source: 'rae' }, excludeId: 'rae:1' }), {
    field: 'embedding',
    query_vector: [1, 0],
    k: 5,
    num_candidates: 500,
    rescore_vector: { oversample: 3 },
    filter: { bool: { filter: [{ term: { source: 'rae' } }], must_not: [{ term: { source_id: 'rae:1' } }] } },
  });
  t.equal(buildKnn({ vector: [1], limit: 80 }).num_candidates, 800, 'ten candidates a neighbour past the floor');
  t.equal(buildKnn({ vector: [1], limit: 2_000 }).num_candidates, 10_000, 'candidates capped');
});

t.test('when documents like a text are asked, then more_like_this runs on the searched field', async (t) => {
  t.same(buildMoreLikeThis({ text: 'οδικό έργο', limit: 3 }), {
    bool: {
      must: [
        {
          more_like_this: {
            fields: ['search_text', 'search_text.en'],
            like: 'οδικό έργο',
            min_term_freq: 1,
            min_doc_freq: 1,
            max_query_terms: 25,
            minimum_should_match: '1',
          },
        },
      ],
    },
  });
});

t.test('when a text page is asked, then the score window widens it by a quarter page on each side', async (t) => {
  t.same(buildScorePage(0, 100), { from: 0, size: 125, lead: 0 });
  t.same(buildScorePage(200, 100), { from: 175, size: 150, lead: 25 });
  t.same(buildScorePage(10, 100), { from: 0, size: 135, lead: 10 });
});
