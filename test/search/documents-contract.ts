// The API contract of the document index (search, listings, content, stats), run against each engine
// by documents-embedded.test.ts and documents-elasticsearch.test.ts.
import type { Test } from 'tap';
import { METADATA_FIELDS, type IndexedDocument } from '../../index-mappings/document.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { makeDoc } from '../helpers/elasticsearch.js';

const METADATA_KEYS = [...METADATA_FIELDS].sort();
const SINCE_PROBLEM = 'since must be a date YYYY-MM-DD or a date-time YYYY-MM-DDTHH:MM:SSZ (an offset instead of Z, or none for UTC)';
const FULL_KEYS = [
  ...METADATA_FIELDS,
  'content',
  'summary',
  'entities',
  'parties',
  'procedure_type',
  'tenders_received',
  'amount',
  'cpv',
  'region',
  'sector',
].sort();

function corpus(): IndexedDocument[] {
  const docs: IndexedDocument[] = [];
  const day = (i: number) => `2025-0${1 + (i % 9)}-${String(10 + (i % 18)).padStart(2, '0')}T08:00:00Z`;
  for (let i = 0; i < 30; i++) {
    docs.push(
      makeDoc('diavgeia', `ΑΔΑ${String(i).padStart(3, '0')}-ΑΒΓ`, {
        title: i % 3 === 0 ? `ΑΠΟΦΑΣΗ ΑΝΑΘΕΣΗΣ ΣΥΜΒΑΣΗΣ ${i}` : `Έγκριση δαπάνης για προμήθεια ${i}`,
        content: i % 3 === 0 ? 'Η απόφαση αφορά την ανάθεση σύμβασης καθαριότητας.' : 'Δαπάνη για προμήθεια γραφικής ύλης του δήμου.',
        published_at: day(i),
        quality_score: 0.5 + (i % 5) / 10,
        amount: { value: 1000 + i, currency: 'EUR' },
        entities: { afm: ['090252840'], ada: [], names: ['ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ'] },
        parties: [{ role: 'buyer', name: 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', afm: '090252840' }],
        procedure_type: 'Απευθείας ανάθεση',
        tenders_received: i % 2,
      }),
    );
  }
  for (let i = 0; i < 12; i++) {
    docs.push(
      makeDoc('kimdis', `25SYMV0000000${String(i).padStart(2, '0')}`, {
        title: `Σύμβαση παροχής υπηρεσιών ${i}`,
        content: 'Σύμβαση για υπηρεσίες συντήρησης οδοφωτισμού.',
        doc_type: 'contract',
        published_at: day(i + 3),
      }),
    );
  }
  for (let i = 0; i < 6; i++) {
    docs.push(
      makeDoc('ted', `0065432${i}-2025`, {
        title: `Road construction works contract ${i}`,
        content: 'Contract award notice for road construction in Attica.',
        language: 'en',
        country: 'EU',
        published_at: day(i),
      }),
    );
  }
  return docs;
}

export function documentsContract(t: Test, engine: string, open: (t: Test) => Promise<SearchProvider>): void {
  t.test(`${engine}: document API contract`, async (t) => {
    const search = await open(t);
    const app: TestApp = await startTestApp(t, { search });
    const docs = corpus();
    // One original, to download.
    const original = Buffer.from('<?xml version="1.0"?><ContractAwardNotice>ok</ContractAwardNotice>');
    const [sha256] = await app.blobs.put([original]);
    const withOriginal = docs.find((d) => d.source === 'ted')!;
    withOriginal.original = { sha256, content_type: 'application/xml' };
    const result = await search.upsert(docs);
    t.equal(result.failed.length, 0);
    await search.refresh();
    const pro = app.key('pro');
    const ent = app.key('enterprise');

    t.test('when searching, then results are metadata records with a snippet, and total, query, limit and offset', async (t) => {
      const res = await app.request(`/v1/search?q=${encodeURIComponent('σύμβαση')}&limit=5`, { key: pro });
      t.equal(res.status, 200);
      t.equal(res.body.query, 'σύμβαση');
      t.equal(res.body.limit, 5);
      t.equal(res.body.offset, 0);
      t.ok(res.body.total >= 12, `total ${res.body.total}`);
      t.equal(res.body.results.length, 5);
      for (const r of res.body.results) t.same(Object.keys(r).sort(), [...METADATA_KEYS, 'snippet'].sort());
      t.match(res.headers.get('content-type'), /^application\/json/);
      // The body is the canonical serialisation of what it holds, whether the engine's records were
      // copied into it as they are (Elasticsearch) or serialised from objects (embedded).
      t.equal(res.text, JSON.stringify(res.body));
      t.equal(Number(res.headers.get('content-length')), Buffer.byteLength(res.text));
    });

    t.test('when each route of the index answers, then with its quota headers, and HEAD with the head GET has', async (t) => {
      const paths = [
        `/v1/search?q=${encodeURIComponent('σύμβαση')}&limit=5`,
        '/v1/ted/documents?limit=5',
        `/v1/documents/${encodeURIComponent(withOriginal.source_id)}/content`,
        '/v1/stats',
        '/v1/sources',
        '/v1/usage',
      ];
      const key = app.key('enterprise');
      for (const path of paths) {
        const get = await app.request(path, { key });
        t.equal(get.status, 200, path);
        t.equal(get.headers.get('x-ratelimit-limit'), '1000', path);
        t.match(get.headers.get('x-ratelimit-remaining'), /^\d+$/, path);
        t.match(get.headers.get('x-ratelimit-reset'), /^\d{10}$/, path);
        t.equal(get.headers.get('x-tier'), 'enterprise', path);
        const head = await app.request(path, { key, method: 'HEAD' });
        t.equal(head.status, 200, `HEAD ${path}`);
        t.equal(head.text, '', `HEAD ${path}: no body`);
        t.equal(head.headers.get('content-type'), get.headers.get('content-type'), `HEAD ${path}`);
        t.equal(head.headers.get('content-length'), get.headers.get('content-length'), `HEAD ${path}`);
        t.equal(Number(head.headers.get('x-ratelimit-remaining')), Number(get.headers.get('x-ratelimit-remaining')) - 1, `HEAD ${path}: counted`);
        t.equal(head.headers.get('x-tier'), 'enterprise', `HEAD ${path}`);
      }
    });

    t.test('when the query differs only in accents and case, then the hits are the same', async (t) => {
      const ids = async (q: string) => {
        const res = await app.request(`/v1/search?q=${encodeURIComponent(q)}&limit=1000`, { key: pro });
        t.equal(res.status, 200, q);
        return res.body.results.map((r: { source_id: string }) => r.source_id).sort();
      };
      const base = await ids('απόφαση');
      t.ok(base.length >= 10);
      t.same(await ids('ΑΠΟΦΑΣΗ'), base);
      t.same(await ids('αποφαση'), base);
    });

    t.test('when filtering by source, then only that source comes back; the alias works', async (t) => {
      const res = await app.request(`/v1/search?q=${encodeURIComponent('σύμβαση')}&source=e_procurement&limit=100`, { key: pro });
      t.equal(res.status, 200);
      t.equal(res.body.total, 12);
      t.ok(res.body.results.every((r: { source: string }) => r.source === 'kimdis'));
      const unknown = await app.request('/v1/search?q=x&source=nowhere', { key: pro });
      t.equal(unknown.status, 404);
      t.same(unknown.body, { detail: 'Unknown source: nowhere' });
      // Names every JavaScript object has are no sources either.
      for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
        const res = await app.request(`/v1/search?q=x&source=${name}`, { key: pro });
        t.equal(res.status, 404, name);
        t.same(res.body, { detail: `Unknown source: ${name}` }, name);
      }
    });

    t.test('when paging through results, then pages neither overlap nor leave gaps', async (t) => {
      const everything = await app.request(`/v1/search?q=${encodeURIComponent('δήμου')}&limit=1000`, { key: pro });
      t.equal(everything.status, 200);
      const expected = everything.body.results.map((r: { source_id: string }) => r.source_id);
      t.ok(expected.length >= 15, `${expected.length} hits`);
      const seen: string[] = [];
      for (let offset = 0; offset < everything.body.total; offset += 4) {
        const page = await app.request(`/v1/search?q=${encodeURIComponent('δήμου')}&limit=4&offset=${offset}`, { key: pro });
        t.equal(page.body.total, everything.body.total);
        seen.push(...page.body.results.map((r: { source_id: string }) => r.source_id));
      }
      t.same(seen, expected);
    });

    t.test('when parameters are missing or out of range, then 422 names the parameter', async (t) => {
      const cases: [string, string][] = [
        ['/v1/search', 'q is required'],
        ['/v1/search?q=', 'q is required'],
        ['/v1/search?q=a&limit=0', 'limit must be an integer from 1 to 1000'],
        ['/v1/search?q=a&limit=1001', 'limit must be an integer from 1 to 1000'],
        ['/v1/search?q=a&limit=ten', 'limit must be an integer from 1 to 1000'],
        ['/v1/search?q=a&offset=-1', `offset must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`],
        ['/v1/search?q=a&limit=1&limit=2', 'limit must be given once'],
        [`/v1/search?q=${'a'.repeat(1001)}`, 'q must be at most 1000 characters'],
        ['/v1/diavgeia/documents?since=2025-13-01', SINCE_PROBLEM],
        ['/v1/diavgeia/documents?since=yesterday', SINCE_PROBLEM],
        ['/v1/diavgeia/documents?limit=5000', 'limit must be an integer from 1 to 1000'],
        // Given without a value: malformed, not absent.
        ['/v1/search?q=a&limit=', 'limit must be an integer from 1 to 1000'],
        ['/v1/search?q=a&offset', `offset must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`],
        ['/v1/search?q=a&source=', 'source must not be empty'],
        ['/v1/diavgeia/documents?since=', SINCE_PROBLEM],
        // Digits only: no spaces around them, Unicode ones included.
        ['/v1/search?q=a&limit=5%20', 'limit must be an integer from 1 to 1000'],
        ['/v1/search?q=a&limit=%E2%80%835', 'limit must be an integer from 1 to 1000'],
        ['/v1/diavgeia/documents?offset=%C2%A05', `offset must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`],
        // Characters, not UTF-16 units: 1000 emoji are accepted, 1001 are not.
        [`/v1/search?q=${encodeURIComponent('😀'.repeat(1001))}`, 'q must be at most 1000 characters'],
        // Bytes that are no UTF-8 are not silently replaced.
        ['/v1/search?q=%E0%A4%A', 'q is not valid percent-encoded UTF-8'],
        ['/v1/search?q=a&source=%C3%28', 'source is not valid percent-encoded UTF-8'],
        // A % that starts no escape is malformed too, not text (a literal % is %25).
        ['/v1/search?q=a%G1', 'q is not valid percent-encoded UTF-8'],
        ['/v1/search?q=100%', 'q is not valid percent-encoded UTF-8'],
      ];
      for (const [path, detail] of cases) {
        const res = await app.request(path, { key: ent });
        t.equal(res.status, 422, path);
        t.same(res.body, { detail }, path);
      }
    });

    t.test('when q is 1000 characters outside the BMP, then it is accepted', async (t) => {
      const res = await app.request(`/v1/search?q=${encodeURIComponent('😀'.repeat(1000))}`, { key: ent });
      t.equal(res.status, 200);
    });

    t.test('when q is query-syntax garbage, then the answer is never a 5xx', async (t) => {
      const garbage = [
        '"',
        '(',
        ')',
        'AND',
        'OR NOT',
        'title:x',
        '*',
        '-',
        '\\',
        '"unclosed phrase',
        'a AND (b OR',
        '😀😀',
        '[1 TO 2]',
        '~2',
        'x^9',
        '/regex/',
        '{"a":1}',
        'NEAR(a b)',
        '%',
        "'; DROP TABLE documents; --",
      ];
      for (const q of garbage) {
        const res = await app.request(`/v1/search?q=${encodeURIComponent(q)}`, { key: ent });
        t.equal(res.status, 200, q);
        t.type(res.body.total, 'number', q);
      }
    });

    t.test('when a Free key lists a source, then metadata with the upgrade hint and nothing more', async (t) => {
      const res = await app.request('/v1/diavgeia/documents?limit=3', { key: app.key('free') });
      t.equal(res.status, 200);
      t.equal(res.body.source, 'diavgeia');
      t.equal(res.body.total, 30);
      t.equal(res.body.documents.length, 3);
      for (const d of res.body.documents) {
        t.same(Object.keys(d).sort(), [...METADATA_KEYS, '_upgrade_hint'].sort());
        t.match(d._upgrade_hint, /Pro/);
      }
      t.match(res.body._upgrade_hint, /Pro/, 'the response carries the hint too (each Free response does)');
    });

    t.test('when a Free key gets an empty page, then the response still carries the upgrade hint; Pro gets none', async (t) => {
      const empty = await app.request('/v1/diavgeia/documents?since=2099-01-01', { key: app.key('free') });
      t.equal(empty.status, 200);
      t.same(empty.body.documents, []);
      t.match(empty.body._upgrade_hint, /Pro/);
      const pro = await app.request('/v1/diavgeia/documents?limit=1', { key: app.key('pro') });
      t.notOk('_upgrade_hint' in pro.body);
    });

    t.test('when a Pro key lists a source, then full content and no internals', async (t) => {
      const res = await app.request('/v1/diavgeia/documents?limit=2', { key: pro });
      t.equal(res.status, 200);
      for (const d of res.body.documents) {
        t.same(Object.keys(d).sort(), FULL_KEYS);
        t.same(d.entities, { afm: ['090252840'], ada: [], names: ['ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ'] });
        t.same(d.parties, [{ role: 'buyer', name: 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', afm: '090252840' }], 'parties as stored');
        t.equal(d.procedure_type, 'Απευθείας ανάθεση');
        t.ok(d.tenders_received === 0 || d.tenders_received === 1, 'the tender count as stored');
        t.match(d.amount, { currency: 'EUR' });
      }
    });

    t.test('when listing, then newest first, stable, and since keeps only later documents', async (t) => {
      const all = await app.request('/v1/diavgeia/documents?limit=1000', { key: pro });
      const dates = all.body.documents.map((d: { published_at: string }) => d.published_at);
      t.same(dates, [...dates].sort().reverse());
      const since = await app.request('/v1/diavgeia/documents?since=2025-06-15&limit=1000', { key: pro });
      t.ok(since.body.total > 0 && since.body.total < 30, `${since.body.total}`);
      t.ok(since.body.documents.every((d: { published_at: string }) => d.published_at > '2025-06-15T00:00:00Z'));
      t.equal(since.body.total, dates.filter((d: string) => d > '2025-06-15T00:00:00Z').length);
      const pages: string[] = [];
      for (let offset = 0; offset < 30; offset += 7) {
        const p = await app.request(`/v1/diavgeia/documents?limit=7&offset=${offset}`, { key: pro });
        pages.push(...p.body.documents.map((d: { source_id: string }) => d.source_id));
      }
      t.same(
        pages,
        all.body.documents.map((d: { source_id: string }) => d.source_id),
      );
    });

    t.test('when listing through the e_procurement alias or an unknown source, then kimdis or 404', async (t) => {
      const alias = await app.request('/v1/e_procurement/documents', { key: pro });
      t.equal(alias.status, 200);
      t.equal(alias.body.source, 'kimdis');
      t.equal(alias.body.total, 12);
      t.ok(alias.body.documents.every((d: { source: string }) => d.source === 'kimdis'));
      const unknown = await app.request('/v1/foo/documents', { key: pro });
      t.equal(unknown.status, 404);
      t.same(unknown.body, { detail: 'Unknown source: foo' });
      for (const name of ['__proto__', 'constructor', 'valueOf']) {
        const res = await app.request(`/v1/${name}/documents`, { key: pro });
        t.equal(res.status, 404, name);
        t.same(res.body, { detail: `Unknown source: ${name}` }, name);
      }
    });

    t.test('when a source_id is longer than 100 characters, then the content route still answers for it', async (t) => {
      const id = `ted:${'9'.repeat(300)}`;
      const res = await app.request(`/v1/documents/${encodeURIComponent(id)}/content`, { key: app.key('enterprise') });
      t.equal(res.status, 404);
      t.same(res.body, { detail: `Document not found: ${id}` }, 'the route matched; only the document is missing');
    });

    t.test('when a source_id is longer than 512 bytes (past what Elasticsearch takes as an id), then 404 on content and similar, never a 5xx', async (t) => {
      const id = `diavgeia:${'α'.repeat(1000)}`;
      for (const route of ['documents', 'similar']) {
        const res = await app.request(`/v1/${route}/${encodeURIComponent(id)}${route === 'documents' ? '/content' : ''}`, { key: app.key('enterprise') });
        t.equal(res.status, 404, route);
        t.same(res.body, { detail: `Document not found: ${id}` }, route);
      }
    });

    t.test('when Enterprise downloads an original, then its bytes with their content type, as a file to save', async (t) => {
      const res = await fetch(`${app.url}/v1/documents/${encodeURIComponent(withOriginal.source_id)}/content`, { headers: { Authorization: `Bearer ${ent}` } });
      t.equal(res.status, 200);
      t.equal(res.headers.get('content-type'), 'application/xml');
      t.same(Buffer.from(await res.arrayBuffer()), original);
      // An original is upstream bytes (a TED notice may carry XHTML with a <script>): never a page of the API's origin.
      const name = `${withOriginal.source_id.replace(':', '_')}.xml`;
      t.equal(res.headers.get('content-disposition'), `attachment; filename="${name}"; filename*=UTF-8''${name}`);
      t.equal(res.headers.get('x-content-type-options'), 'nosniff');
      t.equal(res.headers.get('content-security-policy'), "default-src 'none'; sandbox");
      t.equal(res.headers.get('cache-control'), 'no-store');
      const noOriginal = await app.request(`/v1/documents/${encodeURIComponent(docs[0].source_id)}/content`, { key: ent });
      t.equal(noOriginal.status, 404);
      t.same(noOriginal.body, { detail: `No original is stored for ${docs[0].source_id}` });
      const missing = await app.request('/v1/documents/ted:nope/content', { key: ent });
      t.equal(missing.status, 404);
      t.same(missing.body, { detail: 'Document not found: ted:nope' });
      for (const empty of ['/v1/documents//content', '/v1/documents/%20/content']) {
        const res = await app.request(empty, { key: ent });
        t.equal(res.status, 422, empty);
        t.same(res.body, { detail: 'source_id must not be empty' }, empty);
      }
      t.equal((await app.request(`/v1/documents/${encodeURIComponent(withOriginal.source_id)}/content`, { key: pro })).status, 403);
    });

    t.test('when asking for stats, then counts, last update and mean quality per source', async (t) => {
      const res = await app.request('/v1/stats', { key: app.key('free') });
      t.equal(res.status, 200);
      t.equal(res.body.total_documents, 48);
      t.same(Object.keys(res.body.sources).sort(), ['data_gov_gr', 'diavgeia', 'elstat', 'geodata', 'kimdis', 'mitos', 'rae', 'ted']);
      t.match(res.body.sources.diavgeia, { documents: 30, last_updated: '2024-05-02T00:00:00Z' });
      t.ok(Math.abs(res.body.sources.diavgeia.avg_quality - 0.7) < 0.001, `${res.body.sources.diavgeia.avg_quality}`);
      t.same(res.body.sources.rae, { documents: 0, last_updated: null, avg_quality: null });
      t.match(res.body.embedding, { model: 'pdi/hashing-384', dimension: 384, fallback: true });
      t.equal(res.body.engine, engine);
    });
  });
}
