// GET /v1/export: every match streamed to the end in listing order, CSV that a standard parser reads,
// one request counted, and a client that goes away ending the work. Run against each engine by
// export-embedded.test.ts and export-elasticsearch.test.ts.
import { parse } from 'csv-parse/sync';
import type { Test } from 'tap';
import { CSV_COLUMNS } from '../../api/presenters/export.js';
import { EXPORT_BATCH } from '../../api/routes/analysis.js';
import type { IndexedDocument } from '../../index-mappings/document.js';
import type { ExportCursor, SearchProvider } from '../../lib/search/provider.js';
import { analysisCorpus, EVERY_WORD, FILTER_EXAMPLES, filterQuery, passes, SOME_WORDS } from '../helpers/analysis-corpus.js';
import { startTestApp } from '../helpers/app.js';

/** Listing order: newest first, then source_id. */
const byDate = (a: IndexedDocument, b: IndexedDocument) =>
  a.published_at > b.published_at ? -1 : a.published_at < b.published_at ? 1 : a.source_id < b.source_id ? -1 : 1;

export function exportContract(t: Test, engine: string, open: (t: Test) => Promise<SearchProvider>): void {
  t.test(`${engine}: export`, async (t) => {
    const search = await open(t);
    const app = await startTestApp(t, { search });
    // More than two batches, so that an export goes on from a cursor, twice.
    const docs = analysisCorpus(2 * EXPORT_BATCH + 100, 7);
    t.equal((await search.upsert(docs)).failed.length, 0);
    await search.refresh();
    const ordered = [...docs].sort(byDate);
    let key = '';
    t.beforeEach(() => {
      key = app.key('pro', `org-${Math.random()}`);
    });
    const get = (path: string) => app.request(path, { key });

    t.test('when every document is exported as NDJSON, then each comes once, newest first, with its analysis fields', async (t) => {
      const res = await get('/v1/export?format=ndjson');
      t.equal(res.status, 200);
      t.equal(res.headers.get('content-type'), 'application/x-ndjson');
      t.equal(res.headers.get('content-disposition'), 'attachment; filename="export.ndjson"');
      t.equal(res.headers.get('x-ratelimit-limit'), '100', 'the quota headers');
      const lines = res.text.split('\n');
      t.equal(lines.pop(), '', 'the last line ends');
      const rows = lines.map((l) => JSON.parse(l));
      t.same(
        rows.map((r) => r.source_id),
        ordered.map((d) => d.source_id),
      );
      const doc = ordered[17]!;
      t.same(rows[17], {
        source_id: doc.source_id,
        source: doc.source,
        country: doc.country,
        title: doc.title,
        doc_type: doc.doc_type,
        doc_category: doc.doc_category,
        published_at: doc.published_at,
        source_url: doc.source_url,
        language: doc.language,
        quality_score: doc.quality_score,
        parties: doc.parties,
        amount: doc.amount,
        cpv: doc.cpv,
        procedure_type: doc.procedure_type,
        tenders_received: doc.tenders_received,
        region: doc.region,
      });
    });

    t.test("when a text and filters are exported as CSV, then a standard parser reads the search's total of rows, its columns flat", async (t) => {
      for (const [q, f] of [
        [EVERY_WORD, {}],
        [SOME_WORDS[1]!, FILTER_EXAMPLES[5]!],
        [undefined, FILTER_EXAMPLES[11]!],
        [SOME_WORDS[0]!, { cpv: '45', since: '2023-01-01' }],
      ] as const) {
        const query = [q === undefined ? '' : `q=${encodeURIComponent(q)}`, filterQuery(f)].filter(Boolean).join('&');
        const res = await get(`/v1/export?format=csv${query ? `&${query}` : ''}`);
        t.equal(res.status, 200, query);
        t.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
        const records = parse(res.text, { bom: true, columns: true, relax_column_count: false }) as Record<string, string>[];
        const want = ordered.filter((d) => passes(d, f) && (q === undefined || d.content.includes(q)));
        t.same(
          records.map((r) => r.source_id),
          want.map((d) => d.source_id),
          `${query}: every match, in listing order`,
        );
        if (q !== undefined)
          t.equal(records.length, (await get(`/v1/search?q=${encodeURIComponent(q)}&${filterQuery(f)}&limit=1`)).body.total, `${query}: the search's total`);
        t.same(Object.keys(records[0] ?? Object.fromEntries(CSV_COLUMNS.map((c) => [c, '']))), [...CSV_COLUMNS], 'the header');
        for (const [i, d] of want.entries()) {
          const r = records[i]!;
          const role = (x: string) => d.parties.filter((p) => p.role === x);
          t.same(
            [r.title, r.buyer_afms, r.supplier_names, r.amount, r.currency, r.cpv, r.tenders_received],
            [
              d.title,
              role('buyer')
                .map((p) => p.afm ?? '')
                .join('; '),
              role('supplier')
                .map((p) => p.name ?? '')
                .join('; '),
              d.amount === null ? '' : String(d.amount.value),
              d.amount?.currency ?? '',
              d.cpv.join('; '),
              d.tenders_received === null ? '' : String(d.tenders_received),
            ],
            d.source_id,
          );
        }
      }
    });

    t.test('when an export streams every document, then it counts as one request', async (t) => {
      const before = (await get('/v1/usage')).body.daily_used;
      await get('/v1/export?format=csv');
      t.equal((await get('/v1/usage')).body.daily_used, before + 2, 'the export and the usage call');
    });

    t.test('when the client goes away mid-export, then no further batch is read and what the engine held is released', async (t) => {
      const context = app.app.context;
      const real = context.search;
      let calls = 0;
      let ended!: (cursor: ExportCursor) => void;
      const endedWith = new Promise<ExportCursor>((resolve) => {
        ended = resolve;
      });
      // The engine itself, its second batch asked for only once the server has seen the client go.
      context.search = new Proxy(real, {
        get(target, prop) {
          if (prop === 'exportBatch') {
            return async (...args: Parameters<SearchProvider['exportBatch']>) => {
              calls++;
              const signal = args[2]!.signal!;
              if (args[1] !== null && !signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
              return target.exportBatch(...args);
            };
          }
          if (prop === 'endExport') return (cursor: ExportCursor) => target.endExport(cursor).then(() => ended(cursor));
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      t.teardown(() => {
        context.search = real;
      });
      const abort = new AbortController();
      const res = await fetch(`${app.url}/v1/export?format=ndjson`, { headers: { Authorization: `Bearer ${key}` }, signal: abort.signal });
      const reader = res.body!.getReader();
      const first = await reader.read();
      t.ok(first.value && first.value.length > 0, 'the first batch arrives');
      abort.abort();
      await reader.cancel().catch(() => undefined);
      const cursor = await endedWith;
      t.ok(cursor, 'the export ended with its cursor released');
      t.equal(calls, 2, 'no batch after the one in flight');
      const after = await get('/v1/usage');
      t.equal(after.status, 200, 'the server answers the key again');
    });

    t.test('when format is missing or unknown, or a filter malformed, then 422 before anything is streamed; a Free key gets 403', async (t) => {
      for (const [query, detail] of [
        ['', 'format is required'],
        ['format=xlsx', 'format must be one of csv, ndjson'],
        ['format=csv&buyer=1', 'buyer must be an AFM of 9 digits'],
        ['format=csv&limit=10', /^Unknown parameter: limit/],
      ] as const) {
        const res = await get(`/v1/export?${query}`);
        t.equal(res.status, 422, query);
        if (typeof detail === 'string') t.same(res.body, { detail }, query);
        else t.match(res.body.detail, detail, query);
      }
      t.equal((await app.request('/v1/export?format=csv', { key: app.key('free') })).status, 403);
      const head = await app.request('/v1/export?format=csv', { key, method: 'HEAD' });
      t.same([head.status, head.text, head.headers.get('content-type')], [200, '', 'text/csv; charset=utf-8'], 'HEAD: the head alone');
    });
  });
}
