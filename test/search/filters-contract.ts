// The one filter value on every route that takes it (search, listings, ask), checked against the
// documents themselves; run against each engine by filters-embedded.test.ts and filters-elasticsearch.test.ts.
import type { Test } from 'tap';
import type { IndexedDocument } from '../../index-mappings/document.js';
import type { Filters } from '../../lib/search/filters.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { analysisCorpus, EVERY_WORD, FILTER_EXAMPLES, filterQuery, passes } from '../helpers/analysis-corpus.js';
import { startTestApp } from '../helpers/app.js';

const Q = encodeURIComponent(EVERY_WORD);
const ids = (body: { results?: { source_id: string }[]; documents?: { source_id: string }[] }) => (body.results ?? body.documents)!.map((r) => r.source_id);
/** Listing order: newest first, then source_id. */
const byDate = (a: IndexedDocument, b: IndexedDocument) =>
  a.published_at > b.published_at ? -1 : a.published_at < b.published_at ? 1 : a.source_id < b.source_id ? -1 : 1;

export function filtersContract(t: Test, engine: string, open: (t: Test) => Promise<SearchProvider>): void {
  t.test(`${engine}: one filter value on search, listings and ask`, async (t) => {
    const search = await open(t);
    const app = await startTestApp(t, { search });
    const docs = analysisCorpus();
    // With vectors, so that ask's semantic leg is filtered too.
    const vectors = await app.embedder.embed(docs.map((d) => `${d.title}\n${d.content}`));
    t.equal((await search.upsert(docs.map((d, i) => ({ ...d, embedding: vectors[i]! })))).failed.length, 0);
    await search.refresh();
    // A key of its own per test: each asks more than a Pro key's daily quota in all.
    let key = '';
    t.beforeEach(() => {
      key = app.key('pro', `org-${Math.random()}`);
    });
    const get = (path: string) => app.request(path, { key });

    t.test('when each filter is given to search, then exactly the documents that pass it are found', async (t) => {
      for (const f of FILTER_EXAMPLES) {
        const want = docs.filter((d) => passes(d, f));
        t.ok(want.length > 0 && want.length < docs.length, `${filterQuery(f)} keeps ${want.length} of ${docs.length}`);
        const res = await get(`/v1/search?q=${Q}&${filterQuery(f)}&limit=1000&sort=date`);
        t.equal(res.status, 200, filterQuery(f));
        t.equal(res.body.total, want.length, `${filterQuery(f)}: total`);
        t.same(
          ids(res.body),
          want.sort(byDate).map((d) => d.source_id),
          `${filterQuery(f)}: the documents, newest first`,
        );
      }
    });

    t.test('when a filter narrows a search, then page 2 is narrowed as page 1 is', async (t) => {
      for (const f of FILTER_EXAMPLES) {
        const q = `/v1/search?q=${Q}&${filterQuery(f)}`;
        const all = ids((await get(`${q}&limit=1000`)).body);
        // The unfiltered query paged first: a ranking or walk kept for it must not serve the filtered one.
        await get(`/v1/search?q=${Q}&limit=3&offset=3`);
        const pages = [...ids((await get(`${q}&limit=3`)).body), ...ids((await get(`${q}&limit=3&offset=3`)).body)];
        t.same(pages, all.slice(0, 6), `${filterQuery(f)}: pages 1 and 2 are the first six of the filtered order`);
      }
    });

    t.test("when a source's listing is filtered, then it lists the source's documents that pass, newest first, paged alike", async (t) => {
      for (const f of FILTER_EXAMPLES.filter((x) => x.source === undefined)) {
        const want = docs
          .filter((d) => d.source === 'kimdis' && passes(d, f))
          .sort(byDate)
          .map((d) => d.source_id);
        const res = await get(`/v1/kimdis/documents?${filterQuery(f)}&limit=1000`);
        t.equal(res.status, 200, filterQuery(f));
        t.same([res.body.total, ids(res.body)], [want.length, want], filterQuery(f));
        const second = await get(`/v1/kimdis/documents?${filterQuery(f)}&limit=2&offset=2`);
        t.same(ids(second.body), want.slice(2, 4), `${filterQuery(f)}: page 2`);
      }
      const res = await get(`/v1/kimdis/documents?source=ted`);
      t.same(
        [res.status, res.body],
        [
          422,
          {
            detail:
              'Unknown parameter: source (this route takes since, until, buyer, supplier, party, cpv, amount_min, amount_max, procedure_type, region, doc_category, single_bid, limit, offset)',
          },
        ],
      );
    });

    t.test('when a filter is malformed or unknown, then 422 names it', async (t) => {
      for (const [query, detail] of [
        ['buyer=12345', 'buyer must be an AFM of 9 digits'],
        ['supplier=', 'supplier must be an AFM of 9 digits'],
        ['party=abcdefghi', 'party must be an AFM of 9 digits'],
        ['cpv=4', 'cpv must be a CPV code of 8 digits or its first 2 to 7 digits (e.g. 45 or 45233120)'],
        ['cpv=452331200', 'cpv must be a CPV code of 8 digits or its first 2 to 7 digits (e.g. 45 or 45233120)'],
        ['amount_min=-1', 'amount_min must be an amount in EUR from 0 to 1e15'],
        ['amount_max=ten', 'amount_max must be an amount in EUR from 0 to 1e15'],
        ['amount_min=10&amount_max=9', 'amount_max must not be below amount_min'],
        ['single_bid=false', 'single_bid must be true (leave it out for no filter)'],
        ['procedure_type=', 'procedure_type must not be empty'],
        [`region=${'x'.repeat(201)}`, 'region must be at most 200 characters'],
        ['doc_category=a%0Ab', 'doc_category must not contain control characters'],
        ['since=2024-02-01&until=2024-01-01', 'until must not be before since'],
        ['buyer=090025537&buyer=090252840', 'buyer must be given once'],
        [`supplir=${docs[0]!.parties[0]?.afm}`, /^Unknown parameter: supplir \(this route takes q, source, since, until, buyer, supplier/],
      ] as const) {
        const res = await get(`/v1/search?q=${Q}&${query}`);
        t.equal(res.status, 422, query);
        if (typeof detail === 'string') t.same(res.body, { detail }, query);
        else t.match(res.body.detail, detail, query);
      }
      t.same((await get(`/v1/search?q=${Q}&source=nowhere`)).status, 404, 'an unknown source is a 404, as before');
    });

    t.test('when ask is given filters, then every source it answers from passes them; an unknown or malformed one is a 422', async (t) => {
      const ent = app.key('enterprise');
      const ask = (body: unknown) => app.request('/v1/ask', { key: ent, method: 'POST', body });
      const f: Filters = {
        supplier: docs.find((d) => d.parties.some((p) => p.role === 'supplier' && p.afm))!.parties.find((p) => p.role === 'supplier' && p.afm)!.afm!,
      };
      const res = await ask({ question: `${EVERY_WORD} υλικών`, limit: 20, filters: f });
      t.equal(res.status, 200);
      const passing = new Set(docs.filter((d) => passes(d, f)).map((d) => d.source_id));
      t.ok(res.body.sources.length > 0, 'found some');
      t.ok(
        res.body.sources.every((s: { source_id: string }) => passing.has(s.source_id)),
        'every source passes',
      );
      const unfiltered = await ask({ question: `${EVERY_WORD} υλικών`, limit: 20 });
      t.ok(
        unfiltered.body.sources.some((s: { source_id: string }) => !passing.has(s.source_id)),
        'without filters others come too',
      );
      for (const [filters, detail] of [
        [
          { suplier: 'x' },
          'filters has an unknown member: suplier (filters are source, since, until, buyer, supplier, party, cpv, amount_min, amount_max, procedure_type, region, doc_category, single_bid)',
        ],
        [{ amount_min: 'lots' }, 'amount_min must be a number'],
        [['kimdis'], 'filters must be an object of filters'],
      ] as const) {
        const bad = await ask({ question: EVERY_WORD, filters });
        t.same([bad.status, bad.body], [422, { detail }], JSON.stringify(filters));
      }
    });
  });
}
