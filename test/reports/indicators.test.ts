// Each risk indicator fires on a constructed case, stays silent on its negative, and says
// "not assessable" where the data cannot tell; the score is the flagged weights, monotone.
import t from 'tap';
import type { DocumentFacts, Party } from '../../lib/reports/facts.js';
import { assessIndicators, riskScore, RULES, type Entity, type Indicator } from '../../lib/reports/indicators.js';

const ENTITY: Entity = { identifier: '094014201', type: 'afm' };
const ME: Party = { name: 'ΑΛΦΑ ΤΕΧΝΙΚΗ ΑΕ', afm: '094014201' };
const CITY: Party = { name: 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', afm: '090025537' };
const REGION: Party = { name: 'ΠΕΡΙΦΕΡΕΙΑ ΑΤΤΙΚΗΣ', afm: '997861633' };

let n = 0;
function fact(over: Partial<DocumentFacts> = {}): DocumentFacts {
  n += 1;
  const published = over.published_at ?? '2024-05-01T10:00:00Z';
  return {
    id: `kimdis:F${n}`,
    source: 'kimdis',
    title: `Σύμβαση ${n}`,
    source_url: `https://example.org/${n}`,
    published_at: published,
    year: Number(published.slice(0, 4)),
    kind: 'contract',
    value: 50_000,
    buyers: [CITY],
    suppliers: [ME],
    procedure: null,
    direct: null,
    bidders: null,
    actDate: null,
    ...over,
  };
}

function indicator(id: string, facts: DocumentFacts[], entity = ENTITY): Indicator {
  const found = assessIndicators(facts, entity, 'en').find((i) => i.id === id);
  if (!found) throw new Error(`no indicator ${id}`);
  return found;
}

t.test('when contracts state their bidders, then single_bidder fires at 25% single-tender contracts and not below', async (t) => {
  const single = fact({ bidders: 1 });
  const flagged = indicator('single_bidder', [single, fact({ bidders: 3 }), fact({ bidders: 4 })]);
  t.equal(flagged.status, 'flagged');
  t.same(flagged.evidence, [single.id]);
  t.equal(flagged.explanation, '1 of 3 contracts with a bidder count had a single tender (33%).');
  t.equal(indicator('single_bidder', [fact({ bidders: 1 }), ...[2, 3, 4, 5].map((b) => fact({ bidders: b }))]).status, 'clear', '1 of 5 is under 25%');
  const unknown = indicator('single_bidder', [fact(), fact()]);
  t.equal(unknown.status, 'not_assessable');
  t.same(unknown.evidence, []);
  t.match(unknown.explanation, /^Not assessable: no source states the number of tenders/);
});

t.test('when most contracts with a known procedure are direct awards, then direct_awards fires; half or one alone does not', async (t) => {
  const a = fact({ procedure: 'Απευθείας ανάθεση', direct: true });
  const b = fact({ procedure: 'neg-wo-call', direct: true });
  const flagged = indicator('direct_awards', [a, b, fact({ procedure: 'Ανοικτός', direct: false })]);
  t.equal(flagged.status, 'flagged');
  t.same(flagged.evidence, [a.id, b.id]);
  t.equal(
    indicator('direct_awards', [fact({ direct: true }), fact({ direct: true }), fact({ direct: false }), fact({ direct: false })]).status,
    'clear',
    '50% is not more than half',
  );
  t.equal(indicator('direct_awards', [fact({ direct: true })]).status, 'clear', 'a single direct award is not a pattern');
  t.equal(indicator('direct_awards', [fact(), fact({ kind: 'payment', direct: true })]).status, 'not_assessable', 'no contract states a procedure');
});

t.test('when two contracts sit just under a threshold, then near_threshold fires; at or above the threshold, or one alone, it does not', async (t) => {
  const a = fact({ value: 29_500 });
  const b = fact({ value: 140_000 });
  const flagged = indicator('near_threshold', [a, b, fact({ value: 80_000 })]);
  t.equal(flagged.status, 'flagged');
  t.same(flagged.evidence, [a.id, b.id]);
  t.equal(
    indicator('near_threshold', [fact({ value: 30_000 }), fact({ value: 143_000 }), fact({ value: 26_000 })]).status,
    'clear',
    'at a threshold, or more than 10% under it',
  );
  t.equal(indicator('near_threshold', [fact({ value: 29_900 }), fact({ value: 60_000 })]).status, 'clear', 'one contract under a threshold');
  t.equal(indicator('near_threshold', [fact({ value: null })]).status, 'not_assessable');
});

t.test('when payments to a counterparty pass its awarded value by more than 10%, then value_overrun fires; within 10% it does not', async (t) => {
  const award = fact({ value: 100_000 });
  const pay1 = fact({ kind: 'payment', value: 60_000 });
  const pay2 = fact({ kind: 'payment', value: 55_000 });
  const flagged = indicator('value_overrun', [award, pay1, pay2]);
  t.equal(flagged.status, 'flagged');
  t.same(flagged.evidence, [award.id, pay1.id, pay2.id]);
  t.equal(indicator('value_overrun', [fact({ value: 100_000 }), fact({ kind: 'payment', value: 110_000 })]).status, 'clear', 'exactly 10% over');
  t.equal(
    indicator('value_overrun', [fact({ value: 100_000 }), fact({ kind: 'modification', value: 50_000, buyers: [REGION] })]).status,
    'not_assessable',
    'the amendment is with another buyer',
  );
  t.equal(
    indicator('value_overrun', [fact({ value: 100_000 }), fact({ kind: 'modification', value: 150_000 })]).status,
    'flagged',
    'amendments count as payments do',
  );
});

t.test('when an award is published more than 30 days after it was signed, then late_publication fires; on time it does not', async (t) => {
  const late = fact({ actDate: '2024-03-01', published_at: '2024-04-15T10:00:00Z' });
  const flagged = indicator('late_publication', [late, fact({ actDate: '2024-04-20', published_at: '2024-05-01T10:00:00Z' })]);
  t.equal(flagged.status, 'flagged');
  t.same(flagged.evidence, [late.id]);
  t.equal(indicator('late_publication', [fact({ actDate: '2024-04-01', published_at: '2024-05-01T10:00:00Z' })]).status, 'clear', '30 days is on time');
  t.equal(indicator('late_publication', [fact(), fact()]).status, 'not_assessable');
});

t.test("when one buyer holds most of a supplier's contract value, then counterparty_concentration fires; a spread or too few contracts do not", async (t) => {
  const a = fact({ value: 300_000 });
  const b = fact({ value: 100_000 });
  const flagged = indicator('counterparty_concentration', [a, b, fact({ value: 100_000, buyers: [REGION] })]);
  t.equal(flagged.status, 'flagged');
  t.same(flagged.evidence, [a.id, b.id]);
  t.equal(flagged.explanation, 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ accounts for 80% of the value of 3 contracts.');
  t.equal(
    indicator('counterparty_concentration', [
      fact({ value: 100_000 }),
      fact({ value: 100_000, buyers: [REGION] }),
      fact({ value: 100_000, buyers: [{ name: 'ΔΗΜΟΣ ΠΕΙΡΑΙΑ', afm: '090153025' }] }),
    ]).status,
    'clear',
  );
  t.equal(indicator('counterparty_concentration', [fact({ value: 100_000 }), fact({ value: 100_000 })]).status, 'not_assessable', 'two contracts');
});

t.test(
  'when a supplier wins a large contract in its first year in the data, then new_supplier_large_contract fires; later or smaller it does not',
  async (t) => {
    const big = fact({ value: 500_000, published_at: '2024-03-01T00:00:00Z' });
    const flagged = indicator('new_supplier_large_contract', [fact({ published_at: '2024-01-10T00:00:00Z', kind: 'notice' }), big]);
    t.equal(flagged.status, 'flagged');
    t.same(flagged.evidence, [big.id]);
    t.equal(
      indicator('new_supplier_large_contract', [fact({ published_at: '2020-01-10T00:00:00Z' }), fact({ value: 500_000, published_at: '2024-03-01T00:00:00Z' })])
        .status,
      'clear',
      'known for four years',
    );
    t.equal(indicator('new_supplier_large_contract', [fact({ value: 20_000 })]).status, 'clear', 'small contracts');
    t.equal(
      indicator('new_supplier_large_contract', [fact({ value: 500_000, suppliers: [REGION], buyers: [ME] })]).status,
      'not_assessable',
      'the entity is the buyer',
    );
  },
);

t.test('when indicators are flagged, then the score is the sum of their weights, within 0..100, and flagging one more never lowers it', async (t) => {
  t.equal(
    RULES.reduce((s, r) => s + r.weight, 0),
    100,
    'weights add up to 100',
  );
  const all = RULES.map((r) => ({ id: r.id, name: r.id, status: 'clear' as const, threshold: '', weight: r.weight, evidence: [], explanation: '' }));
  t.equal(riskScore(all), 0);
  let previous = 0;
  const growing: Indicator[] = all.map((i) => ({ ...i }));
  for (const i of growing) {
    i.status = 'flagged';
    const score = riskScore(growing);
    t.ok(score >= previous, `flagging ${i.id} does not lower the score`);
    previous = score;
  }
  t.equal(previous, 100);
  t.equal(riskScore(all.map((i) => ({ ...i, status: 'not_assessable' as const }))), 0, 'not assessable adds nothing, and says so in its status');
});

t.test('when the report is Greek, then names and explanations are Greek', async (t) => {
  const [first] = assessIndicators([fact()], ENTITY, 'el');
  t.equal(first!.name, 'Μία μόνο προσφορά');
  t.match(first!.explanation, /^Δεν εκτιμάται/);
});
