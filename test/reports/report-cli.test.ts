// pdi report create: the report of an entity written to a PDF without the API, and with --org
// recorded as that organization's report.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ReportStore } from '../../api/reports/store.js';
import { startTestApp, tempDir } from '../helpers/app.js';
import { pdi } from '../helpers/cli.js';
import { SUPPLIER, contractDoc, ingestDocs } from '../helpers/report-docs.js';

t.test('when pdi report create runs for an AFM, then it writes the PDF, and with --org the report is listed for that organization', async (t) => {
  const app = await startTestApp(t);
  await ingestDocs(app.documents, app.search, [
    contractDoc('24SYMV000000001', { value: 120_000 }),
    contractDoc('24SYMV000000002', { value: 40_000, published: '2025-01-10T10:00:00Z' }),
  ]);
  const out = path.join(tempDir(t), 'report.pdf');

  const plain = await pdi(app.dataDir, ['report', 'create', SUPPLIER.afm, '--type', 'afm', '--out', out], { LOG_LEVEL: '' });
  t.equal(plain.code, 0, plain.stderr);
  t.notMatch(plain.stderr, /embedding model/, 'a report embeds nothing: no warning of the fallback');
  t.match(plain.stdout, `Wrote ${out}: 2 documents, risk score`);
  t.equal(fs.readFileSync(out).subarray(0, 5).toString(), '%PDF-');
  t.equal(new ReportStore(app.db).list('none', 10, 0).total, 0);

  const key = app.key('pro', 'Acme');
  const recorded = await pdi(app.dataDir, ['report', 'create', `EL ${SUPPLIER.afm}`, '--type', 'afm', '--org', 'Acme', '--out', out, '--json']);
  t.equal(recorded.code, 0, recorded.stderr);
  const line = JSON.parse(recorded.stdout);
  t.match(line, { file: out, documents: 2, status: 'completed' });
  const listed = await app.request('/v1/reports', { key });
  t.same(
    listed.body.items.map((r: { id: string }) => r.id),
    [line.id],
    'the organization sees the report',
  );
  const detail = await app.request(`/v1/reports/${line.id}`, { key });
  t.equal(JSON.parse(detail.body.report_json).sections.procurement.total_value, 160_000);
  try {
    t.match(execFileSync('pdftotext', ['-enc', 'UTF-8', out, '-']).toString(), SUPPLIER.afm);
  } catch {
    t.comment('WARNING: pdftotext (poppler-utils) is not installed; the PDF text check is skipped');
  }
});

t.test('when --org names no organization, then pdi report create refuses naming the close matches and creates none', async (t) => {
  const app = await startTestApp(t);
  app.key('pro', 'Acme Σύμβουλοι');
  app.key('pro', 'Globex');
  const out = path.join(tempDir(t), 'report.pdf');
  const spaced = await pdi(app.dataDir, ['report', 'create', SUPPLIER.afm, '--type', 'afm', '--org', ' Acme Σύμβουλοι ', '--out', out]);
  t.equal(spaced.code, 0, `the trimmed name is the organization: ${spaced.stderr}`);
  const cased = await pdi(app.dataDir, ['report', 'create', SUPPLIER.afm, '--type', 'afm', '--org', 'acme συμβουλοι', '--out', out]);
  t.equal(cased.code, 2, 'another case is another name');
  t.match(cased.stderr, 'did you mean "Acme Σύμβουλοι"?');
  const typo = await pdi(app.dataDir, ['report', 'create', SUPPLIER.afm, '--type', 'afm', '--org', 'Acme Σύμβουλι', '--out', out]);
  t.equal(typo.code, 2, typo.stderr);
  t.match(typo.stderr, '--org Acme Σύμβουλι: no such organization; did you mean "Acme Σύμβουλοι"?');
  const none = await pdi(app.dataDir, ['report', 'create', SUPPLIER.afm, '--type', 'afm', '--org', 'Initech', '--out', out]);
  t.equal(none.code, 2);
  t.match(none.stderr, /--org Initech: no such organization \(an organization is made by creating its first key/);
  t.equal(app.db.prepare('SELECT count(*) FROM organizations').pluck().get(), 2, 'no organization was created');
});

t.test('when pdi report create gets bad arguments, then it exits 2 naming them', async (t) => {
  const dir = tempDir(t);
  const out = path.join(dir, 'x.pdf');
  const bad = await pdi(dir, ['report', 'create', '123', '--type', 'afm', '--out', out]);
  t.equal(bad.code, 2);
  t.match(bad.stderr, 'IDENTIFIER must be a 9-digit AFM when --type is afm');
  const type = await pdi(dir, ['report', 'create', 'ΑΛΦΑ', '--type', 'vat', '--out', out]);
  t.equal(type.code, 2);
  t.match(type.stderr, '--type must be one of afm, name, ada');
  const noOut = await pdi(dir, ['report', 'create', 'ΑΛΦΑ', '--type', 'name']);
  t.equal(noOut.code, 2);
  t.match(noOut.stderr, '--out FILE.pdf is required');
  t.notOk(fs.existsSync(out), 'nothing written');
});
