// Diavgeia search pages of the demo corpus (data/demo/diavgeia, records in the repository), then real
// records from ../shared/fixtures/diavgeia where they are (see its README for provenance and caveats).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { qualityScore } from '../../ingest/quality.js';
import { diavgeia } from '../../ingest/sources/diavgeia/index.js';
import { normalizeDiavgeia } from '../../ingest/sources/diavgeia/normalize.js';
import { parseOrganizations } from '../../ingest/sources/diavgeia/organizations.js';
import { MalformedRecordError } from '../../ingest/sources/types.js';
import { FIXTURES, NEEDS_FIXTURES } from '../helpers/paths.js';
import { demoBodies, isoSeconds } from '../helpers/demo-records.js';

const fixture = (name: string) => readFileSync(path.join(FIXTURES, 'diavgeia', name), 'utf8');
const one = (name: string) => {
  const parsed = diavgeia.parse(fixture(name));
  if (parsed.length !== 1) throw new Error(`${name}: expected one record, got ${parsed.length}`);
  return parsed[0]!.record as Record<string, unknown>;
};

t.test('when the Δ.1 award fixture is normalized, then it is exactly the expected award document', { skip: NEEDS_FIXTURES }, async (t) => {
  const doc = diavgeia.normalize(one('decision_d1_award.json'));
  t.strictSame(doc, {
    source_id: 'diavgeia:ΩΡΡΠΩΛΞ-2ΓΔ',
    source: 'diavgeia',
    country: 'GR',
    title: 'ΑΝΑΘΕΣΗ ΠΡΟΜΗΘΕΙΑΣ ΑΝΤΑΛΛΑΚΤΙΚΩΝ',
    doc_type: 'Δ.1',
    doc_category: 'award',
    published_at: '2016-01-13T08:37:36Z',
    source_url: 'https://diavgeia.gov.gr/decision/view/ΩΡΡΠΩΛΞ-2ΓΔ',
    language: 'el',
    content: [
      'ΑΝΑΘΕΣΗ ΠΡΟΜΗΘΕΙΑΣ ΑΝΤΑΛΛΑΚΤΙΚΩΝ',
      'Είδος πράξης: ΑΝΑΘΕΣΗ ΕΡΓΩΝ / ΠΡΟΜΗΘΕΙΩΝ / ΥΠΗΡΕΣΙΩΝ / ΜΕΛΕΤΩΝ (Δ.1)',
      'ΑΔΑ: ΩΡΡΠΩΛΞ-2ΓΔ',
      'Αριθμός πρωτοκόλλου: 1158',
      'Ημερομηνία έκδοσης: 2015-12-22',
      'Ημερομηνία ανάρτησης: 2016-01-13',
      'Ανάδοχος: Α ΣΑΡΡΟΣ ΚΑΙ ΣΙΑ ΕΕ (ΑΦΜ 082000463)',
      'Ποσό: 170.97 EUR',
      'CPV: 42913300',
      'Είδος σύμβασης: Προμήθειες',
    ].join('\n'),
    summary: 'ΑΝΑΘΕΣΗ ΕΡΓΩΝ / ΠΡΟΜΗΘΕΙΩΝ / ΥΠΗΡΕΣΙΩΝ / ΜΕΛΕΤΩΝ (Δ.1) ΩΡΡΠΩΛΞ-2ΓΔ: ΑΝΑΘΕΣΗ ΠΡΟΜΗΘΕΙΑΣ ΑΝΤΑΛΛΑΚΤΙΚΩΝ, 170.97 EUR, Α ΣΑΡΡΟΣ ΚΑΙ ΣΙΑ ΕΕ.',
    entities: { afm: ['082000463'], ada: ['ΩΡΡΠΩΛΞ-2ΓΔ'], names: ['Α ΣΑΡΡΟΣ ΚΑΙ ΣΙΑ ΕΕ'] },
    parties: [{ role: 'supplier', name: 'Α ΣΑΡΡΟΣ ΚΑΙ ΣΙΑ ΕΕ', afm: '082000463' }],
    procedure_type: null,
    tenders_received: null,
    act_date: '2015-12-22',
    amount: { value: 170.97, currency: 'EUR' },
    cpv: ['42913300'],
    region: null,
    sector: 'industry',
    quality_score: 0.91,
  });
});

t.test('when the Δ.2.2 κατακύρωση fixture is normalized, then it is an award with the winner and awardAmount', { skip: NEEDS_FIXTURES }, async (t) => {
  const doc = diavgeia.normalize(one('decision_d22_award.json'));
  t.equal(doc.source_id, 'diavgeia:64Μ44691ΩΓ-5ΨΑ');
  t.equal(doc.title, 'ΑΠΟΦΑΣΗ ΚΑΤΑΚΥΡΩΣΗΣ ΕΡΓΟΥ ΣΥΝΤΗΡΗΣΗΣ ΑΝΕΛΚΥΣΤΗΡΩΝ');
  t.equal(doc.doc_type, 'Δ.2.2');
  t.equal(doc.doc_category, 'award');
  t.equal(doc.published_at, '2016-01-13T09:01:12Z');
  t.strictSame(doc.entities, { afm: ['800579607'], ada: ['64Μ44691ΩΓ-5ΨΑ'], names: ['Θ ΑΡΒΑΝΙΤΗΣ ΚΑΙ ΣΙΑ ΟΕ'] });
  t.strictSame(doc.amount, { value: 2804.4, currency: 'EUR' });
  t.strictSame(doc.cpv, []);
  t.equal(doc.sector, null, 'no CPV, no sector');
});

t.test('when the Β.2.1 expenditure approval fixture is normalized, then buyer and sponsor are both entities', { skip: NEEDS_FIXTURES }, async (t) => {
  const doc = diavgeia.normalize(one('decision_b21_expenditure_approval.json'));
  t.equal(doc.source_id, 'diavgeia:7ΧΔΛ46ΨΖ2Ν-87Ν');
  t.equal(doc.title, 'Έγκριση Δαπάνης βάσει Αρ. Πρωτ. 493692', 'double space collapsed');
  t.equal(doc.doc_type, 'Β.2.1');
  t.equal(doc.doc_category, 'expenditure_approval');
  t.equal(doc.published_at, '2016-09-08T09:44:29Z');
  t.strictSame(doc.entities, {
    afm: ['090010689', '099362767'],
    ada: ['7ΧΔΛ46ΨΖ2Ν-87Ν'],
    names: ['ΕΘΝΙΚΟ & ΚΑΠΟΔΙΣΤΡΙΑΚΟ ΠΑΝΕΠΙΣΤΗΜΙΟ ΑΘΗΝΩΝ', 'ΚΟΝΕ ΑΝΩΝΥΜΗ ΤΕΧΝΙΚΗ ΕΤΑΙΡΕΙΑ ΑΝΕΛΚΥΣΤΗΡΩΝ'],
  });
  t.strictSame(doc.amount, { value: 1123.44, currency: 'EUR' }, 'the sponsor expenseAmount');
  t.strictSame(
    doc.parties,
    [
      { role: 'buyer', name: 'ΕΘΝΙΚΟ & ΚΑΠΟΔΙΣΤΡΙΑΚΟ ΠΑΝΕΠΙΣΤΗΜΙΟ ΑΘΗΝΩΝ', afm: '090010689' },
      { role: 'supplier', name: 'ΚΟΝΕ ΑΝΩΝΥΜΗ ΤΕΧΝΙΚΗ ΕΤΑΙΡΕΙΑ ΑΝΕΛΚΥΣΤΗΡΩΝ', afm: '099362767' },
    ],
    'the sponsor is a payee',
  );
  t.strictSame(doc.cpv, ['50000000'], 'from sponsor[].cpv, without the check digit');
  t.equal(doc.sector, 'maintenance');
  t.match(doc.content, /^Αναθέτουσα αρχή: ΕΘΝΙΚΟ & ΚΑΠΟΔΙΣΤΡΙΑΚΟ ΠΑΝΕΠΙΣΤΗΜΙΟ ΑΘΗΝΩΝ \(ΑΦΜ 090010689\)$/m);
  t.match(doc.content, /^Ανάδοχος: ΚΟΝΕ ΑΝΩΝΥΜΗ ΤΕΧΝΙΚΗ ΕΤΑΙΡΕΙΑ ΑΝΕΛΚΥΣΤΗΡΩΝ \(ΑΦΜ 099362767\)$/m);
});

t.test('when the Β.2.2 payment fixtures are normalized, then the amount is the sponsors’ sum or null when none', { skip: NEEDS_FIXTURES }, async (t) => {
  const paid = diavgeia.normalize(one('decision_b22_payment_with_sponsor.json'));
  t.equal(paid.source_id, 'diavgeia:Ω97ΤΩΞΧ-8ΚΛ');
  t.equal(paid.doc_type, 'Β.2.2');
  t.equal(paid.doc_category, 'payment');
  t.equal(paid.published_at, '2016-03-07T09:27:57Z');
  t.strictSame(paid.amount, { value: 128247.69, currency: 'EUR' });
  t.strictSame(paid.entities.afm, ['997861879', '997752429']);
  t.strictSame(paid.entities.names, ['ΔΗΜΟΣ ΠΡΕΒΕΖΑΣ', 'ΚΟΙΝΟΠΡΑΞΙΑ ΘΑΛΗΣ ΠΕΡΙΒΑΛΛΟΝΤΙΚΕΣ ΥΠΗΡΕΣΙΕΣ ΑΕ ΕΓΝΩΝ ΑΤΕ']);

  const empty = diavgeia.normalize(one('decision_b22_payment_empty_sponsor.json'));
  t.equal(empty.source_id, 'diavgeia:7394ΩΞΧ-ΠΔΖ');
  t.equal(empty.amount, null);
  t.strictSame(empty.entities, { afm: ['997861879'], ada: ['7394ΩΞΧ-ΠΔΖ'], names: ['ΔΗΜΟΣ ΠΡΕΒΕΖΑΣ'] });
  t.ok(empty.quality_score < paid.quality_score, 'a payment without amount or beneficiary scores lower');
});

t.test('when the Δ.2.1 tender summary fixture is normalized, then it is a tender notice with its estimate', { skip: NEEDS_FIXTURES }, async (t) => {
  const doc = diavgeia.normalize(one('decision_d21_declaration_summary.json'));
  t.equal(doc.source_id, 'diavgeia:67ΒΘΟΡΡ2-85Ω');
  t.equal(doc.title, '« Διενέργεια του 0516 πρόχειρου διαγωνισμού » [Οδική Βοήθεια μεταφορικών μέσων ΕΛΤΑ (δικύκλων)]', 'line break collapsed');
  t.equal(doc.doc_category, 'tender_notice');
  t.strictSame(doc.amount, { value: 13008.13, currency: 'EUR' }, 'estimatedAmount');
  t.strictSame(doc.cpv, ['66000000']);
  t.equal(doc.sector, 'finance');
  t.match(doc.content, /^Διαδικασία: Πρόχειρος$/m);
});

t.test('when the Β.1.3 commitment fixture is normalized, then amountWithVAT and the budget line’s body are used', { skip: NEEDS_FIXTURES }, async (t) => {
  const doc = diavgeia.normalize(one('decision_b13_commitment_2025.json'));
  t.equal(doc.source_id, 'diavgeia:Ψ11446ΜΓΨ7-ΠΚΛ');
  t.equal(doc.doc_type, 'Β.1.3');
  t.equal(doc.doc_category, 'commitment');
  t.equal(doc.published_at, '2025-04-17T10:53:22Z');
  t.strictSame(doc.amount, { value: 4139.16, currency: 'EUR' });
  t.strictSame(doc.entities, { afm: ['996887930'], ada: ['Ψ11446ΜΓΨ7-ΠΚΛ'], names: ['ΠΡΟΕΔΡΙΑ ΤΗΣ ΚΥΒΕΡΝΗΣΗΣ'] });
  t.match(doc.content, /^ΚΑΕ 2410202001: 4139\.16 EUR$/m);
  t.strictSame(doc.parties, [{ role: 'other', name: 'ΠΡΟΕΔΡΙΑ ΤΗΣ ΚΥΒΕΡΝΗΣΗΣ', afm: '996887930' }], 'the budget line’s body, without a procurement role');
  t.match(doc.content, /^Ποσό: 4139\.16 EUR \(με ΦΠΑ\)$/m, 'the content says the amount includes VAT (KIMDIS and TED amounts exclude it)');
});

t.test('when the amount is taken from a field that says whether VAT is in it, then the content says so too', { skip: NEEDS_FIXTURES }, async (t) => {
  const base = one('decision_b13_commitment_2025.json');
  const x = base.extraFieldValues as Record<string, unknown>;
  const only = (fields: Record<string, unknown>) =>
    diavgeia.normalize({ ...base, extraFieldValues: { ...x, amountWithVAT: null, amountWithKae: null, ...fields } }).content;
  t.match(only({ amountWithoutVAT: { amount: 100, currency: 'EUR' } }), /^Ποσό: 100 EUR \(χωρίς ΦΠΑ\)$/m);
  t.match(only({ amountWithVAT: { amount: 124, currency: 'EUR' } }), /^Ποσό: 124 EUR \(με ΦΠΑ\)$/m);
  t.match(only({ estimatedAmount: { amount: 90, currency: 'EUR' } }), /^Ποσό: 90 EUR$/m, 'not said where upstream does not say');
});

t.test('when the trimmed search page is parsed, then its seven decisions normalize with ISO-string dates', { skip: NEEDS_FIXTURES }, async (t) => {
  const records = diavgeia.parse(fixture('search_page_reserialized_trimmed.json'), 'application/json');
  const docs = records.map((r) => diavgeia.normalize(r.record));
  t.strictSame(
    docs.map((d) => [d.source_id, d.doc_type, d.doc_category, d.published_at]),
    [
      ['diavgeia:6ΥΩΚΟΕΥΖ-86Ο', 'Α.2', 'regulatory_act', '2023-11-03T11:22:07Z'],
      ['diavgeia:ΩΧΜ9469ΗΖΞ-7Γ4', 'Β.1.3', 'commitment', '2023-10-16T05:54:08Z'],
      ['diavgeia:ΨΕΥΙ469ΗΖΞ-Ρ56', '2.4.7.1', 'administrative_act', '2023-10-10T11:18:22Z'],
      ['diavgeia:9ΓΤΕ469ΗΖΞ-ΩΜ1', 'Δ.2.1', 'tender_notice', '2023-10-10T09:06:00Z'],
      ['diavgeia:6ΔΨΦΟΕΥΖ-ΧΧΠ', 'Β.2.2', 'payment', '2023-10-03T09:18:37Z'],
      ['diavgeia:ΨΕΘΤΟΕΥΖ-7Κ1', 'Δ.1', 'award', '2023-09-29T09:30:54Z'],
      ['diavgeia:ΨΟΔΝ469ΗΖΞ-Σ9Λ', 'Δ.2.2', 'award', '2023-09-29T06:07:56Z'],
    ],
  );
  t.strictSame(
    docs.map((d) => d.amount),
    [
      null,
      { value: 5000, currency: 'EUR' },
      null,
      null, // estimatedAmount.amount is null upstream
      { value: 744, currency: 'EUR' },
      { value: 1240, currency: 'EUR' },
      { value: 3720, currency: 'EUR' },
    ],
  );
  t.strictSame(docs[4]!.entities.afm, ['800186744', '800805744']);
  t.strictSame(docs[5]!.entities.names, ['ΕΛΕΥΘΕΡΑΚΗΣ,,ΝΙΚΟΛ,ΔΗΜΗΤΡΙΟΣ'], 'names as written');
  t.strictSame(docs[3]!.cpv, ['70130000']);
  const original = JSON.parse(records[0]!.original.body.toString('utf8'));
  t.equal(original.ada, '6ΥΩΚΟΕΥΖ-86Ο', 'each record keeps its own JSON as the original');
  t.equal(records[0]!.original.contentType, 'application/json');
});

t.test('when the same decision comes with epoch-ms and ISO timestamps, then published_at is the same', { skip: NEEDS_FIXTURES }, async (t) => {
  const epoch = one('decision_d1_award.json');
  const iso = { ...epoch, submissionTimestamp: new Date(epoch.submissionTimestamp as number).toISOString().replace('Z', '+00:00') };
  t.equal(diavgeia.normalize(iso).published_at, diavgeia.normalize(epoch).published_at);
  const noSubmission = { ...epoch, submissionTimestamp: null };
  t.equal(diavgeia.normalize(noSubmission).published_at, '2016-01-13T08:37:36Z', 'falls back to publishTimestamp');
});

t.test(
  'when a timestamp comes in epoch seconds instead of milliseconds, then it is read as seconds, not as a day of 1970',
  { skip: NEEDS_FIXTURES },
  async (t) => {
    const epoch = { ...one('decision_d1_award.json'), submissionTimestamp: 1714557600017 };
    const seconds = { ...epoch, submissionTimestamp: 1714557600 };
    const secondsText = { ...epoch, submissionTimestamp: '1714557600' };
    t.equal(diavgeia.normalize(epoch).published_at, '2024-05-01T10:00:00Z');
    t.equal(diavgeia.normalize(seconds).published_at, '2024-05-01T10:00:00Z');
    t.equal(diavgeia.normalize(secondsText).published_at, '2024-05-01T10:00:00Z');
  },
);

t.test('when a decision links other decisions and names foreign or invalid AFMs, then ADAs are kept and bad AFMs dropped', async (t) => {
  // Built in the documented Β.2.2 shape (docs/upstream-sources.md §1.1), with links added as the API carries them.
  const decision = {
    protocolNumber: '2522',
    subject: 'ΠΛΗΡΩΜΗ ΠΟΣΟΥ 104.354,00€ ΓΙΑ ΤΟ ΕΡΓΟ 2010ΝΑ04980000 (σχετ. ΑΔΑ 4AΓΤΛ-8)',
    issueDate: 1404075600000,
    organizationId: '50022',
    decisionTypeId: 'Β.2.2',
    extraFieldValues: {
      documentType: 'ΠΡΑΞΗ',
      org: { afm: '090252840', afmType: 'EL', name: 'ΠΕΡΙΦΕΡΕΙΑΚΟ ΤΑΜΕΙΟ ΑΝΑΠΤΥΞΗΣ ΠΕΡΙΦΕΡΕΙΑΣ ΚΡΗΤΗΣ' },
      sponsor: [
        { sponsorAFMName: { afm: '094311152', afmType: 'EL', afmCountry: 'EL', name: 'ΤΟΜΕΣ ΑΤΕ' }, expenseAmount: { amount: 101022.19, currency: 'EUR' } },
        { sponsorAFMName: { afm: '123456783', afmType: 'EU', afmCountry: 'DE', name: 'MUSTER GMBH' }, expenseAmount: { amount: 1000, currency: 'EUR' } },
        { sponsorAFMName: { afm: '123456789', afmType: 'EL', name: 'ΛΑΘΟΣ ΑΦΜ ΑΕ' }, expenseAmount: { amount: 0.81, currency: 'EUR' } },
      ],
      relatedDecisions: ['ΨΘ82ΩΡΦ-7ΑΙ', { ada: '6ΨΙΞΩ1Ρ-ΑΒΓ' }],
      textRelatedADA: 'Ρ2Γ6469Β7Δ-ΤΛ4, 6E0E46Ψ842-Φ46',
      relatedEkgrisiDapanis: ['Ω6Η2ΟΡΡ9-Β9Ω'],
    },
    ada: 'Ω6Η2ΟΡΡ9-Β9Ω',
    submissionTimestamp: 1406006840017,
    status: 'PUBLISHED',
  };
  const doc = diavgeia.normalize(diavgeia.parse(JSON.stringify(decision))[0]!.record);
  t.equal(doc.source_id, 'diavgeia:Ω6Η2ΟΡΡ9-Β9Ω');
  t.equal(doc.published_at, '2014-07-22T05:27:20Z');
  t.strictSame(doc.entities.afm, ['090252840', '094311152'], 'foreign and bad-check-digit AFMs are left out');
  t.strictSame(doc.entities.ada, ['Ω6Η2ΟΡΡ9-Β9Ω', 'ΨΘ82ΩΡΦ-7ΑΙ', '6ΨΙΞΩ1Ρ-ΑΒΓ', 'Ρ2Γ6469Β7Δ-ΤΛ4', '6Ε0Ε46Ψ842-Φ46', '4ΑΓΤΛ-8']);
  t.strictSame(doc.entities.names, ['ΠΕΡΙΦΕΡΕΙΑΚΟ ΤΑΜΕΙΟ ΑΝΑΠΤΥΞΗΣ ΠΕΡΙΦΕΡΕΙΑΣ ΚΡΗΤΗΣ', 'ΤΟΜΕΣ ΑΤΕ', 'MUSTER GMBH', 'ΛΑΘΟΣ ΑΦΜ ΑΕ']);
  t.strictSame(doc.amount, { value: 102023, currency: 'EUR' }, 'the sum of all expense amounts');
  t.match(doc.content, /^Σχετικές πράξεις: ΨΘ82ΩΡΦ-7ΑΙ, 6ΨΙΞΩ1Ρ-ΑΒΓ, Ρ2Γ6469Β7Δ-ΤΛ4, 6Ε0Ε46Ψ842-Φ46, 4ΑΓΤΛ-8$/m);
});

t.test('when an award carries both awardAmount and other amounts, then awardAmount wins', { skip: NEEDS_FIXTURES }, async (t) => {
  const base = one('decision_d1_award.json');
  const x = base.extraFieldValues as Record<string, unknown>;
  const doc = diavgeia.normalize({
    ...base,
    extraFieldValues: { ...x, amountWithVAT: { amount: 212, currency: 'EUR' }, estimatedAmount: { amount: 300, currency: 'EUR' } },
  });
  t.strictSame(doc.amount, { value: 170.97, currency: 'EUR' });
  const noAward = diavgeia.normalize({
    ...base,
    extraFieldValues: { ...x, awardAmount: null, amountWithVAT: { amount: 212, currency: 'EUR' }, estimatedAmount: { amount: 300, currency: 'EUR' } },
  });
  t.strictSame(noAward.amount, { value: 212, currency: 'EUR' }, 'amountWithVAT before estimatedAmount');
});

t.test('when an unknown decision type arrives, then it is kept with doc_category decision', { skip: NEEDS_FIXTURES }, async (t) => {
  const doc = diavgeia.normalize({ ...one('decision_d1_award.json'), decisionTypeId: 'Χ.9' });
  t.equal(doc.doc_type, 'Χ.9');
  t.equal(doc.doc_category, 'decision');
});

t.test('when every document is scored, then quality_score is the shared rule applied to the document', { skip: NEEDS_FIXTURES }, async (t) => {
  for (const name of ['decision_d1_award.json', 'decision_b21_expenditure_approval.json', 'decision_b22_payment_empty_sponsor.json']) {
    const { quality_score, ...rest } = diavgeia.normalize(one(name));
    t.equal(quality_score, qualityScore(rest), name);
    t.ok(quality_score > 0 && quality_score <= 1, name);
  }
});

t.test('when a record has no usable ADA or no timestamp at all, then normalize throws MalformedRecordError', { skip: NEEDS_FIXTURES }, async (t) => {
  const base = one('decision_d1_award.json');
  t.throws(() => diavgeia.normalize({ ...base, ada: 'not-an-ada' }), MalformedRecordError);
  t.throws(() => diavgeia.normalize({ ...base, ada: undefined }), MalformedRecordError);
  t.throws(() => diavgeia.normalize({ ...base, submissionTimestamp: null, publishTimestamp: null, issueDate: 'yesterday' }), MalformedRecordError);
  t.throws(() => diavgeia.normalize('a string'), MalformedRecordError);
});

t.test('when a body is not JSON, is truncated or lacks the envelope, then parse throws', { skip: NEEDS_FIXTURES }, async (t) => {
  const page = fixture('search_page_reserialized_trimmed.json');
  t.throws(() => diavgeia.parse(page.slice(0, page.length / 2)), /not valid JSON/);
  t.throws(() => diavgeia.parse('<html>maintenance</html>'), /not valid JSON/);
  t.throws(() => diavgeia.parse(JSON.stringify({ decisions: [] })), /neither a search page/, 'info missing');
  t.throws(() => diavgeia.parse(fixture('decision_versionlog.json')), /neither a search page/);
  t.throws(() => diavgeia.parse('[]'), /neither a search page/);
});

t.test('when the organisation directory is parsed, then each uid gives its label and ΑΦΜ; another shape is refused', { skip: NEEDS_FIXTURES }, async (t) => {
  const organizations = parseOrganizations(fixture('organizations_category_ministry.json'));
  t.equal(organizations.size, 21);
  t.strictSame(organizations.get('10'), { label: 'ΥΠΟΥΡΓΕΙΟ ΕΞΩΤΕΡΙΚΩΝ', vatNumber: '090372363' });
  t.throws(() => parseOrganizations(fixture('organization_single.json')), /no "organizations" array/);
  t.throws(() => parseOrganizations('[]'), { message: 'diavgeia: expected an organizations body, a JSON object' });
  t.throws(() => parseOrganizations('{"organizations":'), /^diavgeia: body is not valid JSON/, 'a body that is no JSON names its source');
});

t.test('when a decision carries no org of its own, then the directory names its publisher by organizationId', { skip: NEEDS_FIXTURES }, async (t) => {
  // The Β.1.3 fixture's organizationId 100048574 is in the real ministry list: ΠΡΟΕΔΡΙΑ ΤΗΣ ΚΥΒΕΡΝΗΣΗΣ.
  const organizations = parseOrganizations(fixture('organizations_category_ministry.json'));
  const record = one('decision_b13_commitment_2025.json');
  t.notMatch(diavgeia.normalize(record).content, /^Αναθέτουσα αρχή:/m, 'without the directory, no publisher line');
  const doc = normalizeDiavgeia(record, organizations);
  t.match(doc.content, /^Αναθέτουσα αρχή: ΠΡΟΕΔΡΙΑ ΤΗΣ ΚΥΒΕΡΝΗΣΗΣ \(ΑΦΜ 996887930\)$/m);
  t.match(doc.parties[0], { role: 'buyer', name: 'ΠΡΟΕΔΡΙΑ ΤΗΣ ΚΥΒΕΡΝΗΣΗΣ', afm: '996887930' });
  t.ok(doc.entities.names.includes('ΠΡΟΕΔΡΙΑ ΤΗΣ ΚΥΒΕΡΝΗΣΗΣ'));
  t.ok(doc.entities.afm.includes('996887930'));
  // A decision with its own org keeps it, whatever the directory says of its uid.
  const own = one('decision_b22_payment_with_sponsor.json');
  const elsewhere = new Map([[String(own.organizationId), { label: 'ΑΛΛΟΣ ΦΟΡΕΑΣ', vatNumber: null }]]);
  t.strictSame(normalizeDiavgeia(own, elsewhere), diavgeia.normalize(own));
});

t.test(
  'when the demo search pages are replayed, then every decision normalizes to its ADA, subject, type and time of posting (submissionTimestamp)',
  async (t) => {
    let decisions = 0;
    for (const { file, json, docs } of demoBodies('diavgeia', diavgeia)) {
      decisions += docs.length;
      t.strictSame(
        docs.map((d) => [d.source_id, d.title, d.doc_type, d.published_at, d.source_url]),
        json.decisions.map((raw: any) => [
          `diavgeia:${raw.ada}`,
          raw.subject.trim(),
          raw.decisionTypeId,
          isoSeconds(raw.submissionTimestamp),
          `https://diavgeia.gov.gr/decision/view/${raw.ada}`,
        ]),
        `${file}: a document per decision, in order`,
      );
      const sponsors = (raw: any): string[] => (raw.extraFieldValues?.amountWithKae ?? []).map((k: any) => k.sponsorAFMName?.afm).filter(Boolean);
      t.same(
        json.decisions.filter(
          (raw: any, i: number) => !docs[i]!.entities.ada.includes(raw.ada) || !sponsors(raw).every((a) => docs[i]!.entities.afm.includes(a)),
        ),
        [],
        `${file}: its own ADA and its budget lines' ΑΦΜs are entities`,
      );
    }
    t.ok(decisions >= 1000, `${decisions} decisions`);
  },
);
