// GET /v1/search beyond the contract's fields: snippets, since/until, sort, and TED's labels kept out of
// what is searched, for search and alert keywords alike. Run against each engine by
// documents-embedded.test.ts and documents-elasticsearch.test.ts.
import type { Test } from 'tap';
import type { IndexedDocument } from '../../index-mappings/document.js';
import { ted } from '../../ingest/sources/ted/index.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { alertedBy } from '../helpers/alert-profile.js';
import { startTestApp } from '../helpers/app.js';
import { makeDoc } from '../helpers/elasticsearch.js';

/** A TED notice as the search API gives it, normalized as ingest does: its content carries TED's labels. */
function tedNotice(pubno: string, noticeType: string, title: string, date: string, greekTitle?: string): IndexedDocument {
  const doc = ted.normalize({
    'publication-number': pubno,
    'notice-type': noticeType,
    'publication-date': `${date}Z`,
    'notice-title': greekTitle ? { ell: greekTitle, eng: title } : { eng: title },
    'buyer-name': { eng: ['Region of Attica'] },
    'contract-nature': ['services'],
    'procedure-type': 'open',
    'classification-cpv': ['90910000'],
  });
  return { ...makeDoc('ted', pubno), ...doc };
}

function corpus(): IndexedDocument[] {
  const decision = (id: string, published: string, title: string, content: string, names: string[] = []) =>
    makeDoc('diavgeia', id, { title, content, published_at: published, entities: { afm: [], ada: [], names } });
  return [
    decision(
      'ΣΝ1',
      '2025-03-01T10:00:00Z',
      'Ανάθεση σύμβασης καθαριότητας',
      'Η ΑΠΌΦΑΣΗ αφορά την ανάθεση της σύμβασης καθαριότητας των σχολείων του Δήμου Θεσσαλονίκης.',
      ['Δήμος Θεσσαλονίκης'],
    ),
    decision('ΣΝ2', '2025-03-15T23:59:59Z', 'Έγκριση δαπάνης', 'Έγκριση δαπάνης για τις συμβάσεις συντήρησης πρασίνου <παράρτημα> & λοιπά.'),
    decision('ΣΝ3', '2025-04-01T00:00:00Z', 'Πρόσκληση', `${'Εισαγωγή κειμένου χωρίς σημασία. '.repeat(20)}Στο τέλος αναφέρεται η σύμβαση προμήθειας.`),
    decision('ΣΝ4', '2025-02-28T12:00:00Z', 'Σύμβαση προμήθειας', 'Κείμενο.', ['Τεχνική Ζαγορίου ΑΕ']),
    tedNotice('100001-2025', 'cn-standard', 'Greece – Cleaning services – School cleaning', '2025-03-02'),
    tedNotice('100002-2025', 'can-standard', 'Greece – Road works – Road maintenance', '2025-03-03'),
    tedNotice('100003-2025', 'can-modif', 'Greece – Framework contracts – Lighting', '2025-03-04'),
    tedNotice(
      '100004-2025',
      'cn-standard',
      'Greece – Street-lighting equipment – Δήμος Βόλου',
      '2024-11-02',
      'Ελλάδα – Εξοπλισμός οδικού φωτισμού – Δήμος Βόλου',
    ),
    // Its one word that a test searches (κυματοθραύστης) past the snippet text's cap (snippet.ts SNIPPET_TEXT_CHARS).
    makeDoc('mitos', 'ΣΝ5', {
      title: 'Πρόσκληση εκδήλωσης ενδιαφέροντος',
      content: `Η πρόσκληση απευθύνεται ${'σε όσους ενδιαφέρονται για τα έργα του λιμένα. '.repeat(30)}Στο τέλος ο κυματοθραύστης.`,
      published_at: '2024-06-01T10:00:00Z',
    }),
    // Of the same source, so that BM25 weighs the words alike for both (the embedded engine scores per source).
    makeDoc('ted', '100005-2025', {
      title: 'Roadworks',
      content:
        'Resurfacing of municipal roads in the region, the street lighting equipment moved and put back where the works require it, and the road signs renewed.',
      published_at: '2024-11-01T10:00:00Z',
    }),
  ];
}

interface Result {
  source_id: string;
  published_at: string;
  snippet: string;
}

export function searchFeaturesContract(t: Test, engine: string, open: (t: Test) => Promise<SearchProvider>): void {
  t.test(`${engine}: search snippets, date filters and sort`, async (t) => {
    const search = await open(t);
    const app = await startTestApp(t, { search });
    t.equal((await search.upsert(corpus())).failed.length, 0);
    await search.refresh();
    const key = app.key('pro');
    const get = async (query: string): Promise<{ status: number; body: { total: number; results: Result[]; detail?: string } }> => {
      const res = await app.request(`/v1/search?${query}`, { key });
      return { status: res.status, body: res.body };
    };
    const hits = async (query: string) => {
      const res = await get(query);
      t.equal(res.status, 200, query);
      return res.body.results;
    };
    const byId = (results: Result[]) => new Map(results.map((r) => [r.source_id, r.snippet]));

    t.test('when a Greek query differs in case, accents and final sigma, then the snippet marks each inflection of it', async (t) => {
      const snippets = byId(await hits(`q=${encodeURIComponent('ΣΥΜΒΑΣΕΙΣ')}`));
      t.match(snippets.get('diavgeia:ΣΝ1'), /την ανάθεση της <mark>σύμβασης<\/mark> καθαριότητας/);
      t.match(snippets.get('diavgeia:ΣΝ2'), /για τις <mark>συμβάσεις<\/mark> συντήρησης/);
      t.match(snippets.get('diavgeia:ΣΝ2'), /&lt;παράρτημα&gt; &amp; λοιπά/, 'the rest is HTML-escaped');
      t.match(snippets.get('diavgeia:ΣΝ3'), /^…[^<]*αναφέρεται η <mark>σύμβαση<\/mark> προμήθειας\.$/, 'the passage is where the word is, cut at a word');
      t.match(snippets.get('diavgeia:ΣΝ4'), /^<mark>Σύμβαση<\/mark> προμήθειας$/, 'no match in the content: the title, marked');
      const both = byId(await hits(`q=${encodeURIComponent('απόφαση σύμβαση')}`));
      t.match(both.get('diavgeia:ΣΝ1'), /Η <mark>ΑΠΌΦΑΣΗ<\/mark> αφορά την ανάθεση της <mark>σύμβασης<\/mark>/, 'the text as stored, accents and case kept');
    });

    t.test('when a Greek name is searched in Latin letters, then the snippet marks the Greek name in the text', async (t) => {
      const snippets = byId(await hits('q=Thessaloniki'));
      t.match(snippets.get('diavgeia:ΣΝ1'), /του Δήμου <mark>Θεσσαλονίκης<\/mark>\./);
    });

    t.test('when the only word a document matches sits past its stored snippet text, then its snippet is the opening of its content', async (t) => {
      const [hit] = await hits(`q=${encodeURIComponent('κυματοθραύστης')}`);
      t.equal(hit?.source_id, 'mitos:ΣΝ5', 'found by the word, wherever it is');
      t.match(hit.snippet, /^Η πρόσκληση απευθύνεται σε όσους ενδιαφέρονται για τα έργα του λιμένα\. .*…$/);
      t.notOk(hit.snippet.includes('<mark>'), 'nothing marked');
      t.ok(hit.snippet.length < 300, `a passage, not the text (${hit.snippet.length})`);
      const [titled] = await hits(`q=${encodeURIComponent('κυματοθραύστης εκδήλωσης')}`);
      t.equal(titled.snippet, 'Πρόσκληση <mark>εκδήλωσης</mark> ενδιαφέροντος', 'with a word of the title: the title, marked');
    });

    t.test('when an English word is searched, then TED notices match by their own text, not by the labels every notice carries', async (t) => {
      const ids = (await hits('q=contracts')).map((r) => r.source_id);
      t.same(ids, ['ted:100003-2025'], 'only the notice whose title says so');
      t.same(
        (await hits('q=notice')).map((r) => r.source_id),
        [],
        '"Contract notice" is a label',
      );
      t.same(
        (await hits('q=100002-2025')).map((r) => r.source_id),
        ['ted:100002-2025'],
        'the publication number is still searched',
      );
      t.same(
        (await hits('q=Attica')).map((r) => r.source_id).sort(),
        ['ted:100001-2025', 'ted:100002-2025', 'ted:100003-2025', 'ted:100004-2025'],
        'and the buyer',
      );
      const [only] = await hits('q=contracts');
      t.match(only.snippet, /Framework <mark>contracts<\/mark>/);
    });

    t.test('when an alert keyword is a word search finds, or one it does not, then the alert matches the documents the search finds', async (t) => {
      const alerted = (keyword: string) => alertedBy([keyword], corpus());
      for (const keyword of ['contracts', 'notice', 'Notice', 'Attica', '100002-2025', 'σύμβαση', 'Ζαγορίου', 'Region of Attica']) {
        const found = (await hits(`q=${encodeURIComponent(keyword)}`)).map((r) => r.source_id).sort();
        t.same(alerted(keyword), found, keyword);
      }
      t.same(alerted('Ζαγορίου'), ['diavgeia:ΣΝ4'], 'a name among its parties only: searched, so alerted');
      t.same(alerted('notice'), [], "TED's label line: not searched, so not alerted");
      t.same(alerted('contracts'), ['ted:100003-2025'], "a notice's own word");
    });

    t.test('when an English query names what a Greek TED notice is about, then its English title ranks it as a title', async (t) => {
      const results = await hits(`q=${encodeURIComponent('street lighting equipment')}`);
      t.same(
        results.map((r) => r.source_id),
        ['ted:100004-2025', 'ted:100005-2025'],
        'above a text that mentions it in passing',
      );
      t.match(results[0].snippet, /<mark>Street<\/mark>-<mark>lighting<\/mark> <mark>equipment<\/mark>/);
    });

    t.test('when since and until are given, then only documents published within those days', async (t) => {
      const q = `q=${encodeURIComponent('σύμβαση')}`;
      const all = (await hits(q)).map((r) => r.source_id).sort();
      t.same(all, ['diavgeia:ΣΝ1', 'diavgeia:ΣΝ2', 'diavgeia:ΣΝ3', 'diavgeia:ΣΝ4']);
      t.same(
        (await hits(`${q}&since=2025-03-01`)).map((r) => r.source_id).sort(),
        ['diavgeia:ΣΝ1', 'diavgeia:ΣΝ2', 'diavgeia:ΣΝ3'],
        'since: after that day began',
      );
      t.same(
        (await hits(`${q}&until=2025-03-15`)).map((r) => r.source_id).sort(),
        ['diavgeia:ΣΝ1', 'diavgeia:ΣΝ2', 'diavgeia:ΣΝ4'],
        'until: that whole day included',
      );
      t.same(
        (await hits(`${q}&since=2025-03-02&until=2025-03-31`)).map((r) => r.source_id),
        ['diavgeia:ΣΝ2'],
      );
      const none = await get(`${q}&since=2025-05-01`);
      t.same([none.body.total, none.body.results], [0, []]);
      const counted = await get(`${q}&until=2025-03-14&limit=1`);
      t.equal(counted.body.total, 2, 'the total counts within the window');
    });

    t.test('when sort=date, then newest first; sort=relevance is the default order', async (t) => {
      const q = `q=${encodeURIComponent('σύμβαση')}`;
      const dated = await hits(`${q}&sort=date`);
      t.same(
        dated.map((r) => r.source_id),
        ['diavgeia:ΣΝ3', 'diavgeia:ΣΝ2', 'diavgeia:ΣΝ1', 'diavgeia:ΣΝ4'],
      );
      t.same(
        (await hits(`${q}&sort=date&limit=2&offset=1`)).map((r) => r.source_id),
        ['diavgeia:ΣΝ2', 'diavgeia:ΣΝ1'],
        'pages of the date order',
      );
      t.same(
        (await hits(`${q}&sort=date&since=2025-03-02`)).map((r) => r.source_id),
        ['diavgeia:ΣΝ3', 'diavgeia:ΣΝ2'],
      );
      t.same(await hits(`${q}&sort=relevance`), await hits(q));
    });

    t.test('when since or until is a date-time, then the window starts after that instant or ends at it (UTC without an offset)', async (t) => {
      const q = `q=${encodeURIComponent('σύμβαση')}`;
      const ids = async (query: string) => (await hits(`${q}&${query}`)).map((r) => r.source_id).sort();
      t.same(await ids('since=2025-03-01T10:00:00Z'), ['diavgeia:ΣΝ2', 'diavgeia:ΣΝ3'], 'after the instant: ΣΝ1, published at it, is not');
      t.same(await ids('since=2025-03-01T09:59:59'), ['diavgeia:ΣΝ1', 'diavgeia:ΣΝ2', 'diavgeia:ΣΝ3'], 'no offset: UTC');
      t.same(await ids('since=2025-03-01T11:59:59.5%2B02:00'), ['diavgeia:ΣΝ1', 'diavgeia:ΣΝ2', 'diavgeia:ΣΝ3'], 'an offset and a fraction honoured');
      t.same(await ids('until=2025-03-15T23:59:59Z'), ['diavgeia:ΣΝ1', 'diavgeia:ΣΝ2', 'diavgeia:ΣΝ4'], 'until the instant, itself included');
      t.same(await ids('until=2025-03-15T23:59:58Z'), ['diavgeia:ΣΝ1', 'diavgeia:ΣΝ4']);
      t.same(await ids('since=2025-03-01&until=2025-03-15T12:00Z'), ['diavgeia:ΣΝ1'], 'a date and a date-time together');
      const listed = await app.request('/v1/diavgeia/documents?since=2025-03-01T10:00:00Z', { key });
      t.same(listed.body.documents.map((d: Result) => d.source_id).sort(), ['diavgeia:ΣΝ2', 'diavgeia:ΣΝ3'], 'the listings take both forms too');
      t.same((await app.request('/v1/diavgeia/documents?since=2025-03-01', { key })).body.total, 3);
      const bad = await app.request('/v1/diavgeia/documents?since=2025-03-01T10', { key });
      t.same(
        [bad.status, bad.body],
        [422, { detail: 'since must be a date YYYY-MM-DD or a date-time YYYY-MM-DDTHH:MM:SSZ (an offset instead of Z, or none for UTC)' }],
      );
    });

    t.test('when since, until or sort are malformed, then 422 names the parameter', async (t) => {
      const q = `q=${encodeURIComponent('σύμβαση')}`;
      for (const [query, detail] of [
        [`${q}&since=2025-02-30`, /^since must be a date YYYY-MM-DD or a date-time YYYY-MM-DDTHH:MM:SSZ/],
        [`${q}&until=yesterday`, /^until must be a date YYYY-MM-DD or a date-time/],
        [`${q}&since=2025-03-01T25:00:00Z`, /^since must be a date YYYY-MM-DD or a date-time/],
        // An offset's + unencoded reads as a space (%2B is a plus).
        [`${q}&until=2025-03-01T10:00:00+02:00`, /^until must be a date YYYY-MM-DD or a date-time/],
        [`${q}&since=2025-03-01T10:00:00Z&until=2025-03-01T09:59:59Z`, /until must not be before since/],
        [`${q}&since=2025-03-02&until=2025-03-01`, /until must not be before since/],
        [`${q}&sort=score`, /sort must be one of relevance, date/],
      ] as const) {
        const res = await get(query);
        t.equal(res.status, 422, query);
        t.match(res.body.detail, detail, query);
      }
    });
  });
}
