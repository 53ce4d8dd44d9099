// Mitos procedures of the demo corpus (data/demo/mitos, records in the repository) at the end. No
// recorded Mitos response exists (fixtures/README.md); these bodies follow the documented envelopes of
// docs/upstream-sources.md §1.5 and the field names used by public clients of the API.
import t from 'tap';
import { qualityScore } from '../../ingest/quality.js';
import { mitos } from '../../ingest/sources/mitos/index.js';
import type { MitosRecord } from '../../ingest/sources/mitos/index.js';
import { text, toIsoUtc } from '../../ingest/sources/mitos/normalize.js';
import { MalformedRecordError } from '../../ingest/sources/types.js';
import { demoBodies } from '../helpers/demo-records.js';

const SERVICE_EXTENDED = {
  data: {
    id: '937099',
    title: { el: 'Έκδοση άδειας διαμονής για επενδυτική δραστηριότητα', en: 'Issuance of a residence permit for investment activity' },
    ns: 'services',
    last_updated: '2024-05-10T08:30:00+03:00',
    metadata: {
      process: {
        official_title: { el: 'Χορήγηση άδειας διαμονής σε πολίτες τρίτων χωρών για επενδυτική δραστηριότητα' },
        description: { el: '<p>Η διαδικασία αφορά την <b>έκδοση</b> άδειας διαμονής.</p><p>Υποβάλλεται ηλεκτρονικά.</p>' },
        org_owner: { title: { el: 'ΥΠΟΥΡΓΕΙΟ ΜΕΤΑΝΑΣΤΕΥΣΗΣ ΚΑΙ ΑΣΥΛΟΥ' } },
        life_events: [{ title: { el: 'Μετανάστευση' } }, 'Επιχειρηματικότητα'],
      },
      process_conditions: [{ conditions_name: { el: 'Ο αιτών είναι πολίτης τρίτης χώρας' }, conditions_type: { el: 'Ιθαγένεια' } }],
      process_evidences: [{ evidence_num_id: 1, evidence_type: { title: { el: 'Διαβατήριο' } }, evidence_description: { el: 'Επικυρωμένο αντίγραφο' } }],
      process_evidences_cost: [
        { evidence_cost_type: { el: 'Παράβολο' }, evidence_cost_description: { el: 'e-παράβολο' }, evidence_cost_min: 2000, evidence_cost_max: 2000 },
      ],
      process_steps: [
        { step_title: { el: 'Υποβολή αίτησης' }, step_description: { el: 'Ο αιτών υποβάλλει την αίτηση' } },
        { step_title: { el: 'Έκδοση απόφασης' }, step_description: '' },
      ],
      process_steps_digital: [{ step_digital_title: { el: 'Ηλεκτρονική υποβολή' }, step_digital_url: 'https://migration.gov.gr/' }],
      process_rules: [
        {
          rule_type: 'Νόμος',
          rule_decision_number: '5038',
          rule_decision_year: '2023',
          rule_article: '16',
          rule_description: 'Κώδικας Μετανάστευσης',
          rule_gazette_doc_number: 81,
          rule_gazette_doc_issue: 'Α',
          rule_url: 'https://www.et.gr/',
        },
        {
          rule_type: 'Υπουργική Απόφαση',
          rule_decision_number: '1234',
          rule_decision_year: '2024',
          rule_description: 'Καθορισμός δικαιολογητικών',
          rule_ada: 'ΨΘ82ΩΡΦ-7ΑΙ',
        },
        // A Latin look-alike ADA as typed on a Latin keyboard.
        { rule_type: 'Εγκύκλιος', rule_ada: '6ΨΙΞΩ1P-ABΓ' },
      ],
      process_useful_links: [{ useful_link_title: { el: 'Οδηγός' }, useful_link_url: 'https://migration.gov.gr/guide' }],
    },
  },
  success: true,
};

const SERVICES_PAGE = {
  data: [
    { id: '937099', title: { el: 'Έκδοση άδειας διαμονής', en: 'Residence permit' }, ns: 'services', last_updated: '2024-05-10 08:30:00' },
    { id: 1001, title: { el: 'Βεβαίωση μόνιμης κατοικίας' }, ns: 'services', last_updated: '2023-01-02' },
  ],
  success: true,
  total: 4305,
  next_page: 2,
  current_page: 1,
  limit: 100,
};

t.test('when a services-extended body is parsed, then it yields one details record kept byte for byte', async (t) => {
  const body = JSON.stringify(SERVICE_EXTENDED);
  const parsed = mitos.parse(body, 'application/json');
  t.equal(parsed.length, 1);
  t.equal((parsed[0].record as MitosRecord).kind, 'service_extended');
  t.equal(parsed[0].original.body.toString('utf8'), body);
});

t.test('when a services-extended record is normalized, then it is a procedure document with steps, rules and linked ADAs', async (t) => {
  const [{ record }] = mitos.parse(JSON.stringify(SERVICE_EXTENDED));
  const doc = mitos.normalize(record);
  t.equal(doc.source_id, 'mitos:937099');
  t.equal(doc.source, 'mitos');
  t.equal(doc.title, 'Έκδοση άδειας διαμονής για επενδυτική δραστηριότητα');
  t.equal(doc.doc_type, 'procedure');
  t.equal(doc.doc_category, 'administrative_procedure');
  t.equal(doc.published_at, '2024-05-10T05:30:00Z');
  t.equal(doc.source_url, 'https://id.mitos.gov.gr/937099');
  t.equal(doc.language, 'el');
  t.equal(doc.country, 'GR');
  t.strictSame(doc.entities, { afm: [], ada: ['ΨΘ82ΩΡΦ-7ΑΙ', '6ΨΙΞΩ1Ρ-ΑΒΓ'], names: ['ΥΠΟΥΡΓΕΙΟ ΜΕΤΑΝΑΣΤΕΥΣΗΣ ΚΑΙ ΑΣΥΛΟΥ'] });
  t.equal(doc.summary, 'Η διαδικασία αφορά την έκδοση άδειας διαμονής. Υποβάλλεται ηλεκτρονικά.');
  t.equal(doc.amount, null);
  t.strictSame(doc.cpv, []);
  t.equal(
    doc.content,
    [
      'Έκδοση άδειας διαμονής για επενδυτική δραστηριότητα',
      'Επίσημος τίτλος: Χορήγηση άδειας διαμονής σε πολίτες τρίτων χωρών για επενδυτική δραστηριότητα',
      'Αρμόδιος φορέας: ΥΠΟΥΡΓΕΙΟ ΜΕΤΑΝΑΣΤΕΥΣΗΣ ΚΑΙ ΑΣΥΛΟΥ',
      '',
      'Η διαδικασία αφορά την έκδοση άδειας διαμονής.',
      'Υποβάλλεται ηλεκτρονικά.',
      '',
      'Προϋποθέσεις:',
      '- Ο αιτών είναι πολίτης τρίτης χώρας (Ιθαγένεια)',
      '',
      'Δικαιολογητικά:',
      '- Διαβατήριο: Επικυρωμένο αντίγραφο',
      '',
      'Κόστος:',
      '- Παράβολο: e-παράβολο: 2000 €',
      '',
      'Βήματα:',
      '1. Υποβολή αίτησης: Ο αιτών υποβάλλει την αίτηση',
      '2. Έκδοση απόφασης',
      '',
      'Ψηφιακά βήματα:',
      '1. Ηλεκτρονική υποβολή: https://migration.gov.gr/',
      '',
      'Νομικό πλαίσιο:',
      '- Νόμος 5038/2023 άρθρο 16 (ΦΕΚ Α 81) · Κώδικας Μετανάστευσης · https://www.et.gr/',
      '- Υπουργική Απόφαση 1234/2024 · Καθορισμός δικαιολογητικών · ΑΔΑ ΨΘ82ΩΡΦ-7ΑΙ',
      '- Εγκύκλιος · ΑΔΑ 6ΨΙΞΩ1Ρ-ΑΒΓ',
      '',
      'Γεγονότα ζωής:',
      '- Μετανάστευση',
      '- Επιχειρηματικότητα',
      '',
      'Χρήσιμοι σύνδεσμοι:',
      '- Οδηγός: https://migration.gov.gr/guide',
    ].join('\n'),
  );
  const { quality_score, ...rest } = doc;
  t.equal(quality_score, qualityScore(rest));
});

t.test('when a /services list body is parsed, then each entry yields a title-only record', async (t) => {
  const parsed = mitos.parse(JSON.stringify(SERVICES_PAGE));
  t.same(
    parsed.map((p) => (p.record as MitosRecord).kind),
    ['service_summary', 'service_summary'],
  );
  const docs = parsed.map((p) => mitos.normalize(p.record));
  t.same(
    docs.map((d) => d.source_id),
    ['mitos:937099', 'mitos:1001'],
  );
  t.same(
    docs.map((d) => d.published_at),
    ['2024-05-10T08:30:00Z', '2023-01-02T00:00:00Z'],
  );
  t.equal(docs[0].title, 'Έκδοση άδειας διαμονής');
  t.equal(docs[0].content, 'Έκδοση άδειας διαμονής');
  t.strictSame(docs[1].entities, { afm: [], ada: [], names: [] });
  t.same(JSON.parse(parsed[1].original.body.toString('utf8')), SERVICES_PAGE.data[1]);
});

t.test('when the envelope reports failure or the body is not JSON, then parse throws', async (t) => {
  t.throws(() => mitos.parse('{"success":false,"message":"Not found"}'), /upstream reported failure: "Not found"/);
  t.throws(() => mitos.parse('{"data":{"id":'), /not valid JSON/);
  t.throws(() => mitos.parse('{"success":true}'), /no data/);
  t.throws(() => mitos.parse('{"data":{"title":"x"},"success":true}'), /no service id/);
});

t.test('when a record lacks a title or a usable last_updated, then normalize reports it malformed', async (t) => {
  t.throws(() => mitos.normalize({ kind: 'service_summary', service: { id: '1', last_updated: '2024-01-01' } }), MalformedRecordError);
  t.throws(() => mitos.normalize({ kind: 'service_summary', service: { id: '1', title: 'Τίτλος', last_updated: 'χθες' } }), MalformedRecordError);
  t.throws(() => mitos.normalize({ kind: 'other' }), MalformedRecordError);
});

t.test('when texts and dates come in their several upstream forms, then they read the same', async (t) => {
  t.equal(text({ el: 'Ελληνικά', en: 'English' }), 'Ελληνικά');
  t.equal(text({ el: '', en: 'English' }), 'English');
  t.equal(text('a &amp; b<br/>c'), 'a & b\nc');
  t.equal(toIsoUtc('2024-05-10 08:30'), '2024-05-10T08:30:00Z');
  t.equal(toIsoUtc('2024-05-10T08:30:00.123Z'), '2024-05-10T08:30:00Z');
  t.equal(toIsoUtc(1715329800), '2024-05-10T08:30:00Z');
  t.equal(toIsoUtc('1715329800000'), '2024-05-10T08:30:00Z');
  t.equal(toIsoUtc('not a date'), null);
});

t.test('when the demo procedures are replayed, then each normalizes to its id, Greek title, last update and owning body', async (t) => {
  const bodies = demoBodies('mitos', mitos);
  t.ok(bodies.length >= 150, `${bodies.length} procedures`);
  const seen = bodies.map(({ docs }) => docs.map((d) => [d.source_id, d.title, d.published_at, d.parties.map((p) => [p.role, p.name])]));
  const wanted = bodies.map(({ json }) => {
    const s = json.data;
    return [[`mitos:${s.id}`, s.title.el, new Date(s.last_updated).toISOString().replace('.000Z', 'Z'), [['issuer', s.metadata.process.org_owner.title]]]];
  });
  t.strictSame(seen, wanted);
});
