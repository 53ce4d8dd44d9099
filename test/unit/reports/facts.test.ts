// The report reads parties, procedure, value and dates from the lines ingest writes: checked on the
// real normalizers' output for upstream records, so a change of those lines shows here.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { normalizeDiavgeia } from '../../../ingest/sources/diavgeia/normalize.js';
import { normalizeKimdis } from '../../../ingest/sources/kimdis/normalize.js';
import { factsOf, isDirectProcedure, partyOf } from '../../../lib/reports/facts.js';
import type { StoredDocument } from '../../../lib/search/provider.js';
import { FIXTURES } from '../../helpers/paths.js';

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

t.test('when party lines and procedures are read, then AFMs, amounts and direct procedures are told apart', async (t) => {
  t.same(partyOf('ΑΛΦΑ ΑΕ (ΑΦΜ 094014201)'), { name: 'ΑΛΦΑ ΑΕ', afm: '094014201' });
  t.same(partyOf('ΑΛΦΑ ΑΕ (ΑΦΜ 094014201), 1200.5 EUR'), { name: 'ΑΛΦΑ ΑΕ', afm: '094014201' });
  t.same(partyOf('Acme Ltd'), { name: 'Acme Ltd', afm: null });
  t.ok(isDirectProcedure('ΑΠΕΥΘΕΙΑΣ ΑΝΑΘΕΣΗ'));
  t.ok(isDirectProcedure('neg-wo-call'));
  t.notOk(isDirectProcedure('Ανοικτή διαδικασία'));
  t.notOk(isDirectProcedure('open'));
});
