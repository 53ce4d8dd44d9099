// The quality score rule of docs/quality-score.md, on hand-built documents of the common model.
import t from 'tap';
import { FULL_CONTENT_CHARS, QUALITY_WEIGHTS, qualityParts, qualityScore, type ScorableDocument } from '../../ingest/quality.js';

const complete: ScorableDocument = {
  source_id: 'kimdis:26SYMV018545731',
  source: 'kimdis',
  country: 'GR',
  title: 'Συντήρηση οδικού δικτύου ΠΕ Καβάλας',
  doc_type: 'contract',
  doc_category: 'contract',
  published_at: '2026-02-26T13:09:14Z',
  source_url: 'https://cerpp.eprocurement.gov.gr/khmdhs-opendata/contract/attachment/26SYMV018545731',
  language: 'el',
  content: 'x'.repeat(FULL_CONTENT_CHARS),
  summary: 'Σύμβαση.',
  entities: { afm: ['997687965'], ada: [], names: ['ΠΕΡΙΦΕΡΕΙΑ'] },
  parties: [],
  procedure_type: null,
  tenders_received: null,
  act_date: null,
  amount: { value: 662646.63, currency: 'EUR' },
  cpv: ['45233141'],
  region: 'EL515',
  sector: 'construction',
};

const empty: ScorableDocument = {
  ...complete,
  title: '',
  content: '',
  summary: '',
  published_at: '',
  source_url: '',
  entities: { afm: [], ada: [], names: [] },
  amount: null,
  cpv: [],
  region: null,
  sector: null,
};

t.test('when the weights are added up, then they make exactly 1', async (t) => {
  const sum = Object.values(QUALITY_WEIGHTS).reduce((a, b) => a + b, 0);
  t.equal(Math.round(sum * 1e9) / 1e9, 1);
});

t.test('when every criterion is met, then the score is 1; when none is, then it is 0', async (t) => {
  t.equal(qualityScore(complete), 1);
  t.equal(qualityScore(empty), 0);
});

t.test('when content is half the full length, then it earns half the content weight', async (t) => {
  const doc = { ...complete, content: 'x'.repeat(FULL_CONTENT_CHARS / 2) };
  t.equal(qualityParts(doc).content, 0.5);
  t.equal(qualityScore(doc), 0.9);
});

t.test('when only names are known, then entities count half; identifiers count fully', async (t) => {
  t.equal(qualityParts({ ...complete, entities: { afm: [], ada: [], names: ['X'] } }).entities, 0.5);
  t.equal(qualityParts({ ...complete, entities: { afm: [], ada: ['ΨΘ82ΩΡΦ-7ΑΙ'], names: [] } }).entities, 1);
  t.equal(qualityScore({ ...complete, entities: { afm: [], ada: [], names: ['X'] } }), 0.95);
});

t.test('when fields are malformed rather than missing, then they earn nothing', async (t) => {
  const parts = qualityParts({
    ...complete,
    published_at: '2026-02-26',
    source_url: 'ftp://example.org/x',
    amount: { value: 0, currency: 'EUR' },
    region: '  ',
  });
  t.strictSame([parts.published_at, parts.source_url, parts.amount, parts.region], [0, 0, 0, 0]);
  t.equal(qualityParts({ ...complete, amount: { value: 10, currency: 'euro' } }).amount, 0);
});

t.test('when the same document is scored twice, then the score is identical and has two decimals', async (t) => {
  const doc = { ...complete, title: 'Σύντομος', content: 'y'.repeat(123) };
  const a = qualityScore(doc);
  t.equal(qualityScore(structuredClone(doc)), a);
  t.equal(a, Math.round(a * 100) / 100);
  t.equal(a, 0.77); // 0.15·8/20 + 0.20·123/400 + 0.65
});
