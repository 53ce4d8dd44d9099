// Reports (docs/api.md "Due-diligence reports"): lifecycle, PDF, organization scoping, validation and
// failure, on the embedded engine with documents written as ingest writes them.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { startTestApp, tempDir } from '../helpers/app.js';
import { BUYER, SUPPLIER, contractDoc, ingestDocs, storeDocs } from '../helpers/report-docs.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function hasPdftotext(): boolean {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

t.test('when a report is created, then it is pending, its PDF is 404, and once generated it is completed with report_json and a PDF', async (t) => {
  const app = await startTestApp(t, { holdJobs: true });
  await ingestDocs(app.documents, app.search, [
    contractDoc('24SYMV000000001', { value: 120_000, published: '2023-03-01T10:00:00Z' }),
    contractDoc('24SYMV000000002', { value: 80_000, published: '2024-06-01T10:00:00Z', procedure: 'Απευθείας ανάθεση' }),
  ]);
  const key = app.key('pro');

  const created = await app.request('/v1/reports', { key, method: 'POST', body: { entity_identifier: SUPPLIER.afm, identifier_type: 'afm' } });
  t.equal(created.status, 201);
  t.same(Object.keys(created.body).sort(), ['created_at', 'entity_identifier', 'id', 'identifier_type', 'status'], 'the fields of contract 4.2');
  t.match(created.body, { status: 'pending', entity_identifier: SUPPLIER.afm, identifier_type: 'afm' });
  t.match(created.body.id, UUID);
  t.match(created.body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  const id = created.body.id as string;

  const pending = await app.request(`/v1/reports/${id}`, { key });
  t.equal(pending.status, 200);
  t.match(pending.body, { status: 'pending', error_message: null, completed_at: null });
  t.notOk('report_json' in pending.body, 'no report_json while pending');
  const early = await app.request(`/v1/reports/${id}/pdf`, { key });
  t.equal(early.status, 404, 'no PDF before completion');
  t.match(early.body.detail, /pending/);

  app.app.jobs.start();
  await app.app.jobs.idle();
  const done = await app.request(`/v1/reports/${id}`, { key });
  t.equal(done.body.status, 'completed');
  t.match(done.body.completed_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  t.equal(done.body.error_message, null);
  const report = JSON.parse(done.body.report_json);
  t.match(report.entity, { identifier: SUPPLIER.afm, type: 'afm', afm_valid: true, names: [SUPPLIER.name], language: 'el' });
  t.equal(report.sections.procurement.contract_count, 2);
  t.equal(report.sections.procurement.total_value, 200_000);
  t.same(report.sections.procurement.totals_by_year, [
    { year: 2023, contracts: 1, value: 120_000 },
    { year: 2024, contracts: 1, value: 80_000 },
  ]);
  t.equal(report.sections.procurement.main_buyers[0].name, BUYER.name);
  t.match(report.sections.executive_summary, /Η οντότητα ΑΛΦΑ ΤΕΧΝΙΚΗ ΑΕ \(ΑΦΜ 094014201\) εμφανίζεται σε 2 έγγραφα/);
  t.equal(report.sections.risk_indicators.length, 7);
  t.ok(report.risk_score >= 0 && report.risk_score <= 100);
  t.same(report.sections.sources, [{ source: 'kimdis', documents: 2 }]);

  const pdf = await fetch(`${app.url}/v1/reports/${id}/pdf`, { headers: { Authorization: `Bearer ${key}` } });
  t.equal(pdf.status, 200);
  t.equal(pdf.headers.get('content-type'), 'application/pdf');
  t.equal(pdf.headers.get('content-disposition'), `attachment; filename="report-${id}.pdf"`);
  const bytes = Buffer.from(await pdf.arrayBuffer());
  t.equal(bytes.subarray(0, 5).toString(), '%PDF-');
  t.equal(Number(pdf.headers.get('content-length')), bytes.length);

  if (!hasPdftotext()) {
    t.comment('WARNING: pdftotext (poppler-utils) is not installed; the PDF text check is skipped');
    return;
  }
  const file = path.join(tempDir(t), 'report.pdf');
  fs.writeFileSync(file, bytes);
  const text = execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-']).toString();
  t.match(text, SUPPLIER.afm, 'the AFM is in the text');
  t.match(text, 'Έκθεση δέουσας επιμέλειας', 'Greek extracts as Greek letters');
  t.match(text, 'ΑΛΦΑ ΤΕΧΝΙΚΗ ΑΕ');
  t.match(text, 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ');
  t.match(text, /Σελίδα 1 από \d+/, 'page numbers');
});

t.test('when a report is asked by name in Latin letters, then the entity resolver finds the Greek name, and payments are listed with links', async (t) => {
  const app = await startTestApp(t);
  const award = contractDoc('24SYMV000000001', { value: 100_000 });
  const payment = contractDoc('24PAY000000002', { value: 150_000, category: 'payment', published: '2024-09-01T10:00:00Z' });
  await ingestDocs(app.documents, app.search, [award, payment]);
  const key = app.key('pro');
  const created = await app.request('/v1/reports', { key, method: 'POST', body: { entity_identifier: 'alfa techniki', identifier_type: 'name' } });
  await app.app.jobs.idle();
  const report = JSON.parse((await app.request(`/v1/reports/${created.body.id}`, { key })).body.report_json);
  t.same(report.entity.names, [SUPPLIER.name]);
  t.equal(report.entity.language, 'el', 'a Greek entity, though asked in Latin letters');
  t.equal(report.sections.procurement.contract_count, 1);
  t.same(
    report.sections.procurement.payments.map((p: { id: string }) => p.id),
    [payment.source_id],
  );
  const overrun = report.sections.risk_indicators.find((i: { id: string }) => i.id === 'value_overrun');
  t.match(overrun, { status: 'flagged', evidence: [award.source_id, payment.source_id] });
});

t.test('when another organization asks for a report, then detail, PDF and list act as if it did not exist', async (t) => {
  const app = await startTestApp(t);
  const mine = app.key('pro', 'Mine');
  const theirs = app.key('pro', 'Theirs');
  const created = await app.request('/v1/reports', { key: mine, method: 'POST', body: { entity_identifier: 'ΑΛΦΑ ΤΕΧΝΙΚΗ', identifier_type: 'name' } });
  await app.app.jobs.idle();
  const id = created.body.id as string;
  t.equal((await app.request(`/v1/reports/${id}`, { key: mine })).body.status, 'completed');
  t.equal((await app.request(`/v1/reports/${id}/pdf`, { key: mine })).status, 200);

  const detail = await app.request(`/v1/reports/${id}`, { key: theirs });
  t.equal(detail.status, 404);
  t.same(detail.body, { detail: `Report not found: ${id}` });
  t.equal((await app.request(`/v1/reports/${id}/pdf`, { key: theirs })).status, 404);
  const list = await app.request('/v1/reports', { key: theirs });
  t.same(list.body, { items: [], total: 0, limit: 20, offset: 0 });
  const own = await app.request('/v1/reports', { key: mine });
  t.equal(own.body.total, 1);
  t.same(
    own.body.items.map((r: { id: string }) => r.id),
    [id],
  );
  t.same(Object.keys(own.body.items[0]).sort(), ['completed_at', 'created_at', 'entity_identifier', 'id', 'identifier_type', 'status']);
});

t.test('when reports are listed, then they come newest first in pages', async (t) => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const app = await startTestApp(t, { holdJobs: true });
  const key = app.key('pro');
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await app.request('/v1/reports', { key, method: 'POST', body: { entity_identifier: `ΕΤΑΙΡΕΙΑ ${i}`, identifier_type: 'name' } });
    ids.push(r.body.id);
    now += 1;
  }
  const first = await app.request('/v1/reports?limit=2', { key });
  t.equal(first.body.total, 3);
  t.equal(first.body.limit, 2);
  const second = await app.request('/v1/reports?limit=2&offset=2', { key });
  const order = [...first.body.items, ...second.body.items].map((r: { id: string }) => r.id);
  t.same([...order].sort(), [...ids].sort(), 'every report once');
  const created = [...first.body.items, ...second.body.items].map((r: { created_at: string }) => r.created_at);
  t.same(created, [...created].sort().reverse(), 'newest first');
  t.equal((await app.request('/v1/reports?limit=0', { key })).status, 422);
  t.same((await app.request('/v1/reports?limit=101', { key })).body, { detail: 'limit must be an integer from 1 to 100' });
});

t.test('when the body is wrong, then 422 names the field; a Free key gets 403', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('pro');
  const cases: [unknown, string][] = [
    [{ entity_identifier: '094014201' }, 'identifier_type is required'],
    [{ entity_identifier: '094014201', identifier_type: 'vat' }, 'identifier_type must be one of afm, name, ada'],
    [{ identifier_type: 'afm' }, 'entity_identifier is required'],
    [{ entity_identifier: '   ', identifier_type: 'name' }, 'entity_identifier must not be empty'],
    [{ entity_identifier: 94014201, identifier_type: 'afm' }, 'entity_identifier must be a string'],
    [{ entity_identifier: '12345', identifier_type: 'afm' }, 'entity_identifier must be a 9-digit AFM when identifier_type is afm'],
    [{ entity_identifier: 'not an ada', identifier_type: 'ada' }, 'entity_identifier must be a Diavgeia decision id (ADA) when identifier_type is ada'],
    [{ entity_identifier: 'x'.repeat(201), identifier_type: 'name' }, 'entity_identifier must be at most 200 characters'],
    [['afm'], 'The request body must be a JSON object with entity_identifier and identifier_type'],
    [
      { entity_identifier: '094014201', identifier_type: 'afm', format: 'pdf' },
      'format is not a member of a report request (entity_identifier, identifier_type)',
    ],
  ];
  for (const [body, detail] of cases) {
    const res = await app.request('/v1/reports', { key, method: 'POST', body });
    t.equal(res.status, 422, JSON.stringify(body));
    t.same(res.body, { detail });
  }
  const none = await app.request('/v1/reports', { key, method: 'POST' });
  t.equal(none.status, 422, 'no body at all');
  const notJson = await app.request('/v1/reports', { key, method: 'POST', rawBody: '{', headers: { 'Content-Type': 'application/json' } });
  t.equal(notJson.status, 400);
  const free = await app.request('/v1/reports', { key: app.key('free'), method: 'POST', body: { entity_identifier: '094014201', identifier_type: 'afm' } });
  t.equal(free.status, 403);
  t.equal((await app.request('/v1/reports/not-a-report', { key })).status, 404);
  t.equal((await app.request('/v1/reports', { key })).body.total, 0, 'no rejected request made a report');
});

t.test('when generation fails (the search engine is down), then the report ends failed with a message the user can act on', async (t) => {
  // A port nothing listens on: every engine call fails as unavailable.
  const search = new ElasticsearchProvider({
    url: 'http://127.0.0.1:9',
    prefix: 'reports-down',
    dimension: 384,
    embeddingModel: 'pdi/hashing-384',
    requestTimeoutMs: 2_000,
  });
  t.teardown(() => search.close());
  const app = await startTestApp(t, { search });
  // Known to the entity index, so the report reads the document from the engine.
  storeDocs(app.documents, [contractDoc('24SYMV000000001', { value: 120_000 })]);
  const key = app.key('pro');
  const created = await app.request('/v1/reports', { key, method: 'POST', body: { entity_identifier: SUPPLIER.afm, identifier_type: 'afm' } });
  await app.app.jobs.idle();
  const failed = await app.request(`/v1/reports/${created.body.id}`, { key });
  t.match(failed.body, {
    status: 'failed',
    completed_at: null,
    error_message: 'The search engine was unavailable while the report was generated; create the report again in a few minutes',
  });
  t.notOk('report_json' in failed.body);
  t.equal((await app.request(`/v1/reports/${created.body.id}/pdf`, { key })).status, 404);
});
