// One definition of an entity's contract value (lib/contract-value.ts): GET /v1/entity (EntityIndex)
// and the entity's report (buildReport) give the same total for the same documents.
import path from 'node:path';
import t from 'tap';
import { DocumentStore } from '../../ingest/state/documents.js';
import { contractValue } from '../../lib/contract-value.js';
import { EntityIndex, parseEntityQuery, totalsOf } from '../../lib/entities.js';
import { buildReport } from '../../lib/reports/build.js';
import { tempDir } from '../helpers/app.js';
import { contractDoc, storeDocs, SUPPLIER } from '../helpers/report-docs.js';

const AWARD_ADA = 'ΩΑΒΓ469Β7Δ-ΤΛ4';

t.test('when an award and the contract that names it record one procurement, then the entity and its report count it once, alike', async (t) => {
  const docs = [
    // The Diavgeia award and the KIMDIS contract that follows it share the award's ΑΔΑ.
    contractDoc('24AWRD000000001', { category: 'award', value: 1000, adas: [AWARD_ADA], published: '2024-03-01T10:00:00Z' }),
    contractDoc('24SYMV000000001', { value: 1200, adas: [AWARD_ADA], published: '2024-04-01T10:00:00Z' }),
    contractDoc('24SYMV000000002', { value: 500.25, published: '2025-02-01T10:00:00Z' }),
    // Not a contract's value: a payment.
    contractDoc('24PAY000000001', { category: 'payment', value: 9999 }),
  ];
  const documents = new DocumentStore(path.join(tempDir(t), 'documents.db'));
  t.teardown(() => documents.close());
  storeDocs(documents, docs);
  const entity = new EntityIndex(documents.db).resolve(parseEntityQuery(SUPPLIER.afm, 'afm'), { limit: 100, offset: 0, years: true });
  const report = buildReport({
    entity: { identifier: SUPPLIER.afm, type: 'afm' },
    documents: docs,
    totals: totalsOf(entity),
    truncated: false,
    now: new Date('2026-01-01T00:00:00Z'),
  });
  t.equal(entity.total_contract_value, 1700.25, 'the larger of the shared procurement, plus the other contract');
  t.equal(report.sections.procurement.total_value, entity.total_contract_value, 'the report agrees');
  t.same(
    report.sections.procurement.totals_by_year,
    [
      { year: 2024, contracts: 2, value: 1200 },
      { year: 2025, contracts: 1, value: 500.25 },
    ],
    'the years add up to the total',
  );
});

t.test('when amounts are in another currency or documents are not contracts, then they add nothing', async (t) => {
  t.equal(
    contractValue([
      { id: 'a', category: 'contract', amount: 100, currency: 'SEK', adas: [] },
      { id: 'b', category: 'tender_notice', amount: 100, currency: 'EUR', adas: [] },
      { id: 'c', category: 'award', amount: 10.25, currency: 'EUR', adas: [] },
      { id: 'd', category: 'award', amount: null, currency: null, adas: [] },
    ]),
    10.25,
  );
  // Three documents chained by two ΑΔΑs are one procurement.
  t.equal(
    contractValue([
      { id: 'x', category: 'award', amount: 10, currency: 'EUR', adas: ['Α1-Β'] },
      { id: 'y', category: 'contract', amount: 30, currency: 'EUR', adas: ['Α1-Β', 'Α2-Β'] },
      { id: 'z', category: 'contract', amount: 20, currency: 'EUR', adas: ['Α2-Β'] },
    ]),
    30,
  );
});
