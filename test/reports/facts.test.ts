// The report reads parties, procedure, tenders, value and dates from the fields ingest fills: checked on
// the real normalizers' output for upstream records, so a change of those fields shows here.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { normalizeDiavgeia } from '../../ingest/sources/diavgeia/normalize.js';
import { normalizeKimdis } from '../../ingest/sources/kimdis/normalize.js';
import { factsOf, isDirectProcedure } from '../../lib/reports/facts.js';
import type { StoredDocument } from '../../lib/search/provider.js';
import { FIXTURES } from '../helpers/paths.js';

function stored(doc: ReturnType<typeof normalizeKimdis>): StoredDocument {
  return { ...doc, indexed_at: '2026-01-01T00:00:00Z', content_hash: '', original: null };
}

t.test('when a KIMDIS contract is normalized, then the report reads its buyer, supplier, procedure, value and signing date', async (t) => {
  const file = path.join(FIXTURES, 'kimdis/contract_page_anonymized_shape.json');
  if (!fs.existsSync(file)) return void t.comment(`WARNING: ${file} is absent; skipped`);
  const facts = factsOf(stored(normalizeKimdis(JSON.parse(fs.readFileSync(file, 'utf8')).content[0])));
  t.match(facts, {
    kind: 'contract',
    value: 5285.2,
    buyers: [{ name: 'ΔΗΜΟΣ ΔΟΚΙΜΗΣ', afm: '999000111' }],
    suppliers: [{ name: 'ΑΝΩΝΥΜΟΣ ΑΝΑΔΟΧΟΣ ΑΕ', afm: '888000220' }],
    procedure: 'Απευθείας ανάθεση',
    direct: true,
    bidders: null,
    actDate: '2026-06-11',
  });
});

t.test('when a Diavgeia award is normalized, then the report reads its contractor and issue date', async (t) => {
  const file = path.join(FIXTURES, 'diavgeia/decision_d1_award.json');
  if (!fs.existsSync(file)) return void t.comment(`WARNING: ${file} is absent; skipped`);
  const facts = factsOf(stored(normalizeDiavgeia(JSON.parse(fs.readFileSync(file, 'utf8')))));
  t.match(facts, { kind: 'contract', value: 170.97, suppliers: [{ name: 'Α ΣΑΡΡΟΣ ΚΑΙ ΣΙΑ ΕΕ', afm: '082000463' }], actDate: '2015-12-22', year: 2016 });
});

t.test('when a KIMDIS contract states its bids, then the report reads the tender count', async (t) => {
  const file = path.join(FIXTURES, 'kimdis/contract_content_items.json');
  if (!fs.existsSync(file)) return void t.comment(`WARNING: ${file} is absent; skipped`);
  const records = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>[];
  const counted = records.filter((r) => r.bidsSubmitted !== null);
  t.ok(counted.length > 0, 'the fixture has a record with bidsSubmitted');
  for (const r of records) t.equal(factsOf(stored(normalizeKimdis(r))).bidders, r.bidsSubmitted ?? null, String(r.referenceNumber));
});

t.test('when procedures are read, then direct procedures are told apart', async (t) => {
  t.ok(isDirectProcedure('ΑΠΕΥΘΕΙΑΣ ΑΝΑΘΕΣΗ'));
  t.ok(isDirectProcedure('neg-wo-call'));
  t.notOk(isDirectProcedure('Ανοικτή διαδικασία'));
  t.notOk(isDirectProcedure('open'));
});
