// The Elasticsearch adapter's pure request builders: no network.
import t from 'tap';
import {
  buildKnn,
  buildListQuery,
  buildScorePage,
  buildSort,
  buildTextQuery,
  fieldGroupOf,
  pageFromScoreWindow,
  queryChunks,
  recordTieFields,
} from '../../lib/search/elasticsearch.js';
import { ENGLISH_QUERY_FIELDS, GREEK_QUERY_FIELDS, searchText, TEXT_QUERY_FIELDS } from '../../index-mappings/mapping.js';
import { TITLE_WEIGHT } from '../../index-mappings/ranking.js';

t.test('when a text query is built, then it is simple_query_string limited to phrase, prefix and whitespace, ANDing its terms', async (t) => {
  const q = buildTextQuery('σύμβαση "δημόσιο έργο" οδο*', { source: 'kimdis' }) as any;
  for (const clause of q.bool.must) {
    t.equal(clause.simple_query_string.default_operator, 'and');
    t.equal(clause.simple_query_string.flags, 'PHRASE|PREFIX|WHITESPACE');
  }
  t.same(q.bool.filter, [{ term: { source: 'kimdis' } }]);
  t.same((buildTextQuery('x') as any).bool.filter, []);
});

t.test('when a text query is built, then each word is looked up in the fields of its script', async (t) => {
  // A Latin word or phrase is one of several alternatives (its Greek name's keys): its text query first.
  const groups = (text: string) =>
    (buildTextQuery(text) as any).bool.must.map((c: any) => c.simple_query_string ?? c.bool.should[0].simple_query_string).map((q: any) => [q.query, q.fields]);
  t.same(groups('σύμβαση "δημόσιο έργο" contract οδο* και'), [
    ['συμβαση "δημοσιο εργο"', GREEK_QUERY_FIELDS],
    ['οδο* και', TEXT_QUERY_FIELDS],
    ['contract', ENGLISH_QUERY_FIELDS],
  ]);
  t.same([GREEK_QUERY_FIELDS, ENGLISH_QUERY_FIELDS], [['search_text'], ['search_text.en']], 'one field a word, in its analysis');
  // Quotes pair up left to right wherever they stand; one left over is ignored.
  t.same(groups('σύμβαση "ανοιχτό'), [['συμβαση ανοιχτο', GREEK_QUERY_FIELDS]]);
  t.same(groups('a"b c"'), [
    ['a', TEXT_QUERY_FIELDS],
    ['"b c"', ENGLISH_QUERY_FIELDS],
  ]);
});

t.test('when an index of an older mapping version serves, then each group also names the fields it searches', async (t) => {
  const fields = (text: string) => {
    const first = (buildTextQuery(text, {}, true) as any).bool.must[0];
    return (first.simple_query_string ?? first.bool.should[0].simple_query_string).fields;
  };
  t.same(fields('σύμβαση'), ['search_text', 'title^3', 'content', 'summary', 'entities.names']);
  t.same(fields('contract'), ['search_text.en', 'title.en^3', 'content.en', 'summary.en', 'entities.names']);
  t.same(fields('2024'), [...TEXT_QUERY_FIELDS, 'title^3', 'content', 'summary', 'entities.names', 'title.en^3', 'content.en', 'summary.en']);
  t.equal((buildTextQuery('σύμβαση', {}, true) as any).bool.must[0].simple_query_string.lenient, true, 'each index skips the fields it cannot search');
});

t.test("when a document's search text is built, then the title comes TITLE_WEIGHT times, then content, summary and every name", async (t) => {
  const doc = { source: 'rae' as const, title: 'Τίτλος', content: 'Κείμενο', summary: 'Περίληψη', entities: { afm: [], ada: [], names: ['Α', 'Β'] } };
  t.equal(TITLE_WEIGHT, 3);
  t.same(searchText(doc), ['Τίτλος', 'Τίτλος', 'Τίτλος', 'Κείμενο', 'Περίληψη', 'Α', 'Β']);
  t.same(searchText({ source: 'rae', title: '', content: 'Κείμενο', summary: '', entities: { afm: [], ada: [], names: [] } }), ['Κείμενο'], 'nothing empty');
});

t.test('when a text query is only prefixes, then every match scores alike; with a word, it is scored', async (t) => {
  const only = buildTextQuery('δήμο* (συμβ*', { source: 'kimdis' }) as any;
  t.same(Object.keys(only), ['constant_score']);
  t.equal(only.constant_score.boost, 1);
  t.same(only.constant_score.filter.bool.filter, [{ term: { source: 'kimdis' } }]);
  t.same(Object.keys(buildTextQuery('δήμο* σύμβαση') as any), ['bool']);
  t.same(Object.keys(buildTextQuery('ν.4412*') as any), ['bool'], 'ν is a word of its own');
});

t.test('when the text has no letter or digit, then the query matches nothing (not everything, as `*` would)', async (t) => {
  for (const text of ['   ', '*', '- – |', '😀', '" "', '**']) {
    t.same((buildTextQuery(text) as any).bool.must, [{ match_none: {} }], JSON.stringify(text));
  }
});

t.test('when the text is read into words, then it is read as the embedded engine reads it', async (t) => {
  const cases: [string, string[]][] = [
    // A word with no letter or digit is dropped: on its own it matched no document, and so did the search.
    // Words are folded as the index holds them: accents (typed as combining marks too, even where no
    // precomposed letter exists), case, final sigma.
    ['σύμβαση - δήμος', ['συμβαση', 'δημοσ']],
    ['Ελλάδα – Υπηρεσίες | 😀 , ( )', ['ελλαδα', 'υπηρεσιεσ']],
    ['δη\u0301μος συ\u0308μβαση Café δ\u0301', ['δημοσ', 'συμβαση', 'cafe', 'δ']],
    // Emoji and invisible characters separate words.
    ['δήμος😀σύμβαση δήμος\u200dσύμβαση 👍🏽δήμος 🇬🇷', ['δημοσ', 'συμβαση']],
    // Prefixes: two characters at least, the star right after a letter or digit; repeats sent once.
    ['σ* συ* συ** δήμ*', ['σ', 'συ*', 'δημ*']],
    ['1* 2* 1* -*', ['1', '2']],
    // A prefix is split at punctuation into its words, the last one the prefix.
    ['ν.4412* (δήμο* «ΣΤΑΥΡ* *δήμος* GR-IX* 4412/20*', ['ν', '4412*', 'δημο*', 'σταυρ*', 'δημοσ*', 'gr', 'ix*', '4412', '20*']],
    ['σύμβαση σύμβαση "δημόσιο  έργο" "δημόσιο έργο"', ['συμβαση', '"δημοσιο εργο"']],
    ['"" "-" "σύμβαση*"', ['"συμβαση"']],
  ];
  for (const [text, chunks] of cases) t.same(queryChunks(text), chunks, text);
});

t.test('when a word is classified, then all fields are kept wherever one analysis could miss a match', async (t) => {
  const cases: [string, string][] = [
    ['σύμβαση', 'greek'],
    ['ΣΥΜΒΑΣΕΙΣ', 'greek'],
    ['"δημόσιο έργο"', 'greek'],
    ['"ανάθεση της"', 'greek'],
    ['ψ4εκ46', 'greek'],
    ['contract', 'english'],
    ['Siemens', 'english'],
    ['"for the region"', 'english'],
    // Stop words of their language: the other analysis is the one that indexes them.
    ['και', 'all'],
    ['Της', 'all'],
    ['"και του"', 'all'],
    ['the', 'all'],
    ['"of the"', 'all'],
    // A prefix meets stemmed terms that may be shorter than it.
    ['συμβάσεις*', 'all'],
    // Punctuation, mixed scripts, digits alone, other scripts.
    ["it's", 'all'],
    ['ΑΔΑ:ΨΖ4Ω', 'all'],
    ['COVID-19', 'all'],
    ['σύμβασηabc', 'all'],
    ['2024', 'all'],
    ['中文', 'all'],
  ];
  for (const [chunk, group] of cases) t.equal(fieldGroupOf(chunk), group, chunk);
});

t.test('when a listing has since, then it filters on published_at after that day at 00:00:00Z', async (t) => {
  t.same(buildListQuery('ted', { since: '2024-05-01' }), {
    bool: { filter: [{ term: { source: 'ted' } }, { range: { published_at: { gt: '2024-05-01T00:00:00.000Z' } } }] },
  });
  t.same(buildListQuery('ted'), { bool: { filter: [{ term: { source: 'ted' } }] } });
  t.same(
    buildListQuery('ted', { since: '2024-05-01T14:00:00+02:00' }),
    {
      bool: { filter: [{ term: { source: 'ted' } }, { range: { published_at: { gt: '2024-05-01T12:00:00.000Z' } } }] },
    },
    'a date-time: after that instant',
  );
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
  const k = buildKnn({ vector: [1, 0], limit: 5, filters: { source: 'ted' }, excludeId: 'ted:1' });
  t.equal(k.field, 'embedding');
  t.equal(k.k, 5);
  t.ok(k.num_candidates! >= 500);
  t.same(k.rescore_vector, { oversample: 3 }, 'scores re-computed from the float vectors');
  t.same(k.filter, { bool: { filter: [{ term: { source: 'ted' } }], must_not: [{ term: { source_id: 'ted:1' } }] } });
});

const hit = (source_id: string, score: number, published_at: unknown = '2024-01-01T00:00:00Z') => ({ source_id, score, published_at });
const idsOf = (xs: { source_id: string }[] | null) => xs?.map((x) => x.source_id) ?? null;

t.test('when a text page is asked for by score, then the window reaches a quarter of a page past each side that exists', async (t) => {
  t.same(buildScorePage(0, 100), { from: 0, size: 125, lead: 0 });
  t.same(buildScorePage(20, 10), { from: 17, size: 16, lead: 3 });
  t.same(buildScorePage(2, 10), { from: 0, size: 15, lead: 2 }, 'no further back than the first hit');
  t.same(buildScorePage(0, 1), { from: 0, size: 2, lead: 0 });
});

t.test('when no tie group reaches past the window, then the page is its slice in score, date, id order', async (t) => {
  // Window for offset 1, limit 3 (from 0, so nothing is before it).
  const window = [
    hit('x:0', 9),
    hit('x:b', 5, '2024-01-01T00:00:00Z'),
    hit('x:c', 5, '2024-02-01T00:00:00Z'),
    hit('x:a', 5, '2024-01-01T00:00:00Z'),
    hit('x:9', 1),
  ];
  t.same(idsOf(pageFromScoreWindow(window, { from: 0, size: 6, lead: 1 }, 3)), ['x:c', 'x:a', 'x:b'], 'newest first, then source_id ascending');
  t.same(idsOf(pageFromScoreWindow([hit('x:1', 3), hit('x:2', 2)], { from: 0, size: 150, lead: 0 }, 100)), ['x:1', 'x:2'], 'a short last page');
  t.same(pageFromScoreWindow([], { from: 0, size: 15, lead: 0 }, 10), []);
  t.same(pageFromScoreWindow([hit('x:1', 3)], { from: 0, size: 15, lead: 5 }, 10), [], 'offset past the last hit');
});

t.test('when a tie group crosses a page edge but ends inside the window, then it is ordered here', async (t) => {
  // The window holds hits 1..6: a 9, four 5s, a 1. Offset 3, limit 2: the page starts and ends inside the group of 5s.
  const window = [
    hit('x:0', 9),
    hit('x:d', 5, '2024-01-01T00:00:00Z'),
    hit('x:b', 5, '2024-03-01T00:00:00Z'),
    hit('x:a', 5, '2024-01-01T00:00:00Z'),
    hit('x:c', 5, '2024-02-01T00:00:00Z'),
    hit('x:9', 1),
  ];
  // Text order of the 5s: b (March), c (February), a, d (January, by id): offsets 2..5.
  t.same(idsOf(pageFromScoreWindow(window, { from: 1, size: 6, lead: 2 }, 2)), ['x:c', 'x:a'], 'offsets 3 and 4');
  t.same(idsOf(pageFromScoreWindow(window.slice(1), { from: 0, size: 6, lead: 0 }, 2)), ['x:b', 'x:c'], 'a group at the very first hit is complete');
});

t.test('when a tie group at a page edge may reach past the window, then the fast path gives up (null)', async (t) => {
  t.equal(
    pageFromScoreWindow([hit('x:1', 5), hit('x:2', 5), hit('x:3', 4)], { from: 3, size: 3, lead: 1 }, 1),
    null,
    "group at the start reaches the window's first hit",
  );
  t.equal(
    pageFromScoreWindow([hit('x:1', 6), hit('x:2', 5), hit('x:3', 5)], { from: 3, size: 3, lead: 1 }, 1),
    null,
    "group at the end reaches a full window's last hit",
  );
  t.equal(pageFromScoreWindow([hit('x:2', 5), hit('x:3', 5)], { from: 0, size: 2, lead: 0 }, 1), null, 'the same on a first page');
  t.same(idsOf(pageFromScoreWindow([hit('x:2', 5), hit('x:3', 5)], { from: 0, size: 3, lead: 0 }, 1)), ['x:2'], 'a window that is not full ends the results');
  t.same(idsOf(pageFromScoreWindow([hit('x:1', 6), hit('x:2', 5), hit('x:3', 4)], { from: 3, size: 3, lead: 1 }, 1)), ['x:2']);
});

t.test("when tie-breakers are read from a record's bytes, then they are what parsing it gives, or null to parse", async (t) => {
  const record = (fields: Record<string, unknown>) =>
    Buffer.from(
      JSON.stringify({
        source_id: 'diavgeia:Ψ4ΕΚ',
        source: 'diavgeia',
        country: 'GR',
        title: 'Σύμβαση',
        published_at: '2024-05-01T10:00:00Z',
        language: 'el',
        ...fields,
      }),
    );
  const cases: Record<string, unknown>[] = [
    {},
    { published_at: null },
    { published_at: 1714557600000 },
    // The key's own text inside an earlier string value is escaped there, so it is not taken for the key.
    { title: ',"published_at":"1999-01-01", "x\\' },
    { title: 'τίτλος με "εισαγωγικά" και 😀' },
  ];
  for (const fields of cases) {
    const json = record(fields);
    const parsed = JSON.parse(json.toString('utf8'));
    t.same(recordTieFields(json), { source_id: parsed.source_id, published_at: parsed.published_at }, JSON.stringify(fields));
  }
  t.equal(recordTieFields(record({ source_id: 'a"b' })), null, 'an escape in source_id: parse instead');
  t.equal(recordTieFields(record({ published_at: undefined })), null, 'no published_at key: parse instead');
  t.equal(recordTieFields(Buffer.from('{"source":"x","source_id":"a"}')), null, 'another shape: parse instead');
});

t.test('when no score in the window ties, then no tie-breaker is read', async (t) => {
  let reads = 0;
  const hit = (score: number, id: string) => ({
    score,
    get published_at() {
      reads++;
      return '2024-01-01';
    },
    get source_id() {
      reads++;
      return id;
    },
  });
  const window = [hit(9, 'a'), hit(8, 'b'), hit(7, 'c'), hit(6, 'd'), hit(5, 'e')];
  const page = pageFromScoreWindow(window, { from: 0, size: 5, lead: 0 }, 3);
  t.same(
    page!.map((h) => h.source_id),
    ['a', 'b', 'c'],
  );
  reads = 0;
  pageFromScoreWindow(window, { from: 0, size: 5, lead: 0 }, 3);
  t.equal(reads, 0, 'records of hits with distinct scores are never parsed');
  const tied = [hit(9, 'b'), hit(9, 'a'), hit(7, 'c'), hit(6, 'd'), hit(5, 'e')];
  reads = 0;
  const tiedPage = pageFromScoreWindow(tied, { from: 0, size: 5, lead: 0 }, 3)!;
  t.equal(reads, 4, 'only the tied pair is read, once each');
  t.same(
    tiedPage.map((h) => h.source_id),
    ['a', 'b', 'c'],
  );
});

t.test("when tied hits are put in text order, then it matches Elasticsearch's sort, missing dates last", async (t) => {
  /** The ids of `hits` (a complete result: nothing before or after the window) in text order. */
  const order = (...hits: ReturnType<typeof hit>[]) => idsOf(pageFromScoreWindow(hits, { from: 0, size: hits.length + 1, lead: 0 }, hits.length));
  t.same(order(hit('b', 1), hit('a', 2)), ['a', 'b'], 'higher score first');
  t.same(order(hit('a', 1, '2024-01-01T00:00:00Z'), hit('b', 1, '2024-01-02T00:00:00Z')), ['b', 'a'], 'newer first');
  t.same(order(hit('b', 1, null), hit('a', 1, '2020-01-01T00:00:00Z')), ['a', 'b'], 'missing date last');
  t.same(order(hit('b', 1, '2024-01-01T00:00:00Z'), hit('a', 1, 1704067200000)), ['a', 'b'], 'epoch millis = same instant, then id');
  t.same(order(hit('b', 1, '2024-01-01T10:00:00Z'), hit('a', 1, '2024-01-01T10:00:00')), ['a', 'b'], 'no zone reads as UTC: the same instant, then id');
  // UTF-8 byte order, as keyword sorting: U+FF5E (3 bytes, EF BD 9E) before U+1F600 (4 bytes, F0 ...),
  // which UTF-16 code units (0xFF5E > 0xD83D) would put the other way round.
  t.same(order(hit('x:\u{1F600}', 1), hit('x:\uFF5E', 1)), ['x:\uFF5E', 'x:\u{1F600}'], 'byte order, not UTF-16 order');
});
