// Matching of documents against alert profiles and monitored entities, the event types, the email's
// text, the retry schedule and the address checks of webhook targets.
import t from 'tap';
import type { NormalizedDocument } from '../../index-mappings/document.js';
import { composeMail } from '../../api/alerts/channels/email.js';
import { DocumentText, entityMatches, eventTypeOf, keywordWords, profileMatcher } from '../../api/alerts/match.js';
import { searchText } from '../../index-mappings/mapping.js';
import { ted } from '../../ingest/sources/ted/index.js';
import { docText, LATIN_MARK, RAW_MARK, TEXT_VERSION, VALUE_GAP } from '../../lib/search/embedded/text.js';
import type { Filters } from '../../api/alerts/input.js';
import { RETRY, retryDelayMs } from '../../api/alerts/deliveries.js';
import { matchKeyOf, type EntityRecord } from '../../api/monitoring/store.js';
import type { IdentifierType } from '../../lib/identifiers.js';
import { profileRecord } from '../helpers/alert-profile.js';

const DOC: NormalizedDocument = {
  source_id: 'diavgeia:Ω6Η2ΟΡΡ9-Β9Ω',
  source: 'diavgeia',
  country: 'GR',
  title: 'ΑΝΑΘΕΣΗ ΠΡΟΜΗΘΕΙΑΣ ΗΛΕΚΤΡΟΝΙΚΩΝ ΥΠΟΛΟΓΙΣΤΩΝ',
  doc_type: 'Δ.1',
  doc_category: 'award',
  published_at: '2026-03-01T10:00:00Z',
  source_url: 'https://diavgeia.gov.gr/doc/x',
  language: 'el',
  quality_score: 0.9,
  content: 'Η Δημοτική Επιτροπή αποφασίζει την ανάθεση για τον Δήμο Αθηναίων. Σχολικός εξοπλισμός.',
  summary: '',
  entities: { afm: ['090252840'], ada: ['ΨΨ4Ξ46ΜΤΛ6-Ξ7Θ'], names: ['ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ'] },
  parties: [],
  procedure_type: null,
  tenders_received: null,
  act_date: null,
  amount: { value: 12_500, currency: 'EUR' },
  cpv: [],
  region: 'EL30',
  sector: 'IT',
};

const matches = (filters: Partial<Filters>, doc = DOC) => profileMatcher(profileRecord(filters)).matches(new DocumentText(doc));

t.test('when keywords are compared, then case, accents and final sigma fold and words stem as in search, and words match whole', async (t) => {
  t.ok(matches({ keywords: ['υπολογιστές'] }), 'another form of the word (stemmed)');
  t.ok(matches({ keywords: ['ΣΥΜΒΑΣΕΙΣ'] }, { ...DOC, content: 'μία σύμβαση' }), 'plural keyword, singular text');
  t.ok(matches({ keywords: ['υπολογιστών'] }), 'lower case with accent against capitals');
  t.ok(matches({ keywords: ['ΥΠΟΛΟΓΙΣΤΏΝ'] }));
  t.ok(matches({ keywords: ['σχολικοσ'] }), 'final sigma folds to σ');
  t.ok(matches({ keywords: ['ΣΧΟΛΙΚΌΣ'] }));
  t.ok(matches({ keywords: ['ηλεκτρονικών υπολογιστών'] }), 'a phrase in a row');
  t.notOk(matches({ keywords: ['υπολογιστών ηλεκτρονικών'] }), 'a phrase out of order');
  t.ok(matches({ keywords: ['δημοτική επιτροπή'] }));
  t.notOk(matches({ keywords: ['υπολογιστών η δημοτική'] }), 'a phrase does not run from the title into the content, as in search');
  t.notOk(matches({ keywords: ['υπολογ'] }), 'a part of a word is no word');
  t.ok(matches({ keywords: ['χαρτί', 'Αθηναίων'] }), 'any keyword');
  t.notOk(matches({ keywords: ['χαρτί'] }));
});

t.test('when alerts, Elasticsearch and the embedded engine read a document, then they search the same words', async (t) => {
  const notice = ted.normalize({
    'publication-number': '100001-2025',
    'notice-type': 'cn-standard',
    'publication-date': '2025-03-02Z',
    'notice-title': { ell: 'Ελλάδα – Υπηρεσίες καθαρισμού – Σχολεία', eng: 'Greece – Cleaning services – Schools' },
    'buyer-name': { eng: ['Region of Attica'] },
    'classification-cpv': ['90910000'],
  });
  const labelled = { ...DOC, source: 'kimdis' as const, summary: 'Περίληψη', cpv: ['30213000'], cpv_labels_en: ['Personal computers'] };
  for (const doc of [DOC, notice, labelled]) {
    const alerts = [...new DocumentText(doc).wordSet()].sort();
    const elasticsearch = [...new Set(searchText(doc).flatMap(keywordWords))].sort();
    const { title, body } = docText(doc, TEXT_VERSION);
    const marked = (w: string) => w === VALUE_GAP || w.startsWith(RAW_MARK) || w.startsWith(LATIN_MARK);
    const embedded = [...new Set([...title, ...body].filter((w) => !marked(w)))].sort();
    t.same(alerts, elasticsearch, `${doc.source_id}: Elasticsearch`);
    t.same(alerts, embedded, `${doc.source_id}: embedded`);
  }
  const words = new DocumentText(notice).wordSet();
  t.ok(words.has('attica') && words.has('school'), "a notice's buyer and English title are searched");
  t.notOk(words.has('notic'), 'its label lines are not');
  t.ok(new DocumentText(labelled).wordSet().has('comput'), 'the CPV labels are searched');
});

t.test('when the other filters are given, then each must hold', async (t) => {
  t.ok(matches({}), 'no filter matches every document');
  t.ok(matches({ sources: ['diavgeia'] }));
  t.notOk(matches({ sources: ['ted'] }));
  t.ok(matches({ sectors: ['it'], regions: ['el30'] }), 'codes compare folded');
  t.notOk(matches({ regions: ['EL42'] }));
  t.ok(matches({ min_value: 12_500, max_value: 12_500 }), 'bounds are inclusive');
  t.notOk(matches({ min_value: 12_501 }));
  t.notOk(matches({ max_value: 100 }));
  t.notOk(matches({ min_value: 1 }, { ...DOC, amount: null }), 'a bound needs an amount');
  t.notOk(matches({ sources: ['diavgeia'], keywords: ['χαρτί'] }), 'every filter, not any');
});

function entity(type: IdentifierType, identifier: string): EntityRecord {
  return {
    id: 'e',
    org_id: 'o',
    entity_identifier: identifier,
    identifier_type: type,
    match_key: matchKeyOf(type, identifier),
    label: null,
    is_active: true,
    created_at: '2026-01-01T00:00:00Z',
    last_alert_at: null,
  };
}

t.test('when entities are compared, then AFM and ADA match the extracted identifiers and names fold', async (t) => {
  const text = new DocumentText(DOC);
  t.ok(entityMatches(entity('afm', 'EL090252840'), text));
  t.notOk(entityMatches(entity('afm', '094014201'), text));
  t.ok(entityMatches(entity('ada', 'ψψ4ξ46μτλ6-ξ7θ'), text), 'an ADA typed in lower case');
  t.ok(entityMatches(entity('ada', 'Ω6Η2ΟΡΡ9-Β9Ω'), text), 'the decision itself');
  t.ok(entityMatches(entity('name', 'Δήμος Αθηναίων'), text));
  t.notOk(entityMatches(entity('name', 'Δήμος Αθη'), text), 'whole words only');
});

t.test('when event types are read, then they follow decisions.md', async (t) => {
  t.equal(eventTypeOf(DOC), 'contract_award');
  t.equal(eventTypeOf({ ...DOC, doc_category: 'payment' }), 'new_decision');
  t.equal(eventTypeOf({ ...DOC, source: 'ted', doc_category: 'award' }), 'contract_award');
  t.equal(eventTypeOf({ ...DOC, source: 'kimdis', doc_category: 'contract' }), 'contract_award');
  t.equal(eventTypeOf({ ...DOC, source: 'kimdis', doc_category: 'payment' }), 'other');
  t.equal(eventTypeOf({ ...DOC, source: 'rae', doc_category: 'licence' }), 'permit_change');
  t.equal(eventTypeOf({ ...DOC, source: 'rae', doc_category: 'sanction' }), 'regulatory_action');
  t.equal(eventTypeOf({ ...DOC, source: 'elstat', doc_category: 'statistics' }), 'other');
});

t.test('when an email is composed, then it is in Greek and English with the title, source, amount and link, and escapes HTML', async (t) => {
  const mail = composeMail({ ...DOC, title: 'Τίτλος <b>\r\nBcc: x@y.z' }, { deliveryId: 'd1', profileName: 'IT', event: null });
  t.match(mail.text, /Νέο έγγραφο ταιριάζει με το προφίλ ειδοποιήσεων «IT»/);
  t.match(mail.text, /A new document matches your alert profile "IT"/);
  t.match(mail.text, /Πηγή \/ Source: Δι@ύγεια/);
  t.match(mail.text, /Ποσό \/ Amount: 12\.500,00\s€/);
  t.match(mail.text, /Σύνδεσμος \/ Link: https:\/\/diavgeia\.gov\.gr\/doc\/x/);
  t.notMatch(mail.subject, /[\r\n]/, 'one header line');
  t.match(mail.html, /Τίτλος &#60;b&#62;/);
  t.notMatch(mail.html, /<b>/);
});

t.test('when retries are scheduled, then the first comes within a few seconds and the delays grow to a cap', async (t) => {
  t.equal(
    retryDelayMs(1, () => 0),
    1_000,
  );
  t.equal(
    retryDelayMs(1, () => 0.999_999),
    3_000,
  );
  t.equal(
    retryDelayMs(2, () => 0.5),
    8_000,
  );
  t.equal(
    retryDelayMs(20, () => 0.5),
    RETRY.maxDelayMs,
    'capped',
  );
  t.equal(RETRY.maxAttempts, 8);
});
