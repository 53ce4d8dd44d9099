// TED search pages of the demo corpus (data/demo/ted, records in the repository), then the fixtures of
// ../shared/fixtures/ted where they are: a trimmed Search API v3 response (two Swedish notices) and
// the OP-TED eForms SDK example notices (made-up buyers, no publication number). Greek-buyer inputs
// that no real record covers are built here in the documented formats (docs/upstream-sources.md §1.2).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { qualityScore } from '../../ingest/quality.js';
import { ted } from '../../ingest/sources/ted/index.js';
import { MalformedRecordError } from '../../ingest/sources/types.js';
import { searchedContent, searchedSummary, searchedTitles } from '../../index-mappings/searched-text.js';
import { searchText } from '../../index-mappings/mapping.js';
import { TITLE_WEIGHT } from '../../index-mappings/ranking.js';
import { docText, TEXT_VERSION } from '../../lib/search/embedded/text.js';
import { demoBodies } from '../helpers/demo-records.js';
import { FIXTURES, NEEDS_FIXTURES } from '../helpers/paths.js';

const fixture = (name: string) => readFileSync(path.join(FIXTURES, 'ted', name), 'utf8');
const xmlDoc = (body: string) => ted.normalize(ted.parse(body, 'application/xml')[0]!.record);

t.test('when the search response is parsed, then each notice is a record with its own JSON as original', { skip: NEEDS_FIXTURES }, async (t) => {
  const records = ted.parse(fixture('search_v3_response_trimmed.json'), 'application/json');
  t.equal(records.length, 2);
  t.equal((records[0]!.record as Record<string, unknown>)['publication-number'], '449657-2026');
  t.equal(records[1]!.original.contentType, 'application/json');
  t.equal(JSON.parse(records[1]!.original.body.toString('utf8'))['publication-number'], '450106-2026');
});

t.test('when the first search notice is normalized, then it is exactly the expected document', { skip: NEEDS_FIXTURES }, async (t) => {
  const doc = ted.normalize(ted.parse(fixture('search_v3_response_trimmed.json'))[0]!.record);
  const buyers = [
    'Upphandlingscenter Falun Borlänge-regionen',
    'Falu kommun',
    'Avesta Vatten och Avfall AB',
    'Räddningstjänsten Dala Mitt',
    'Avesta kommun',
    'Falu Energi och Vatten AB inkl. dotterbolagFalu Energi &',
    'Kopparstaden AB',
    'Södra Dalarnas Räddningstjänstförbund (SDR)',
    'Avesta Industristad AB',
    'Gamla Byn AB',
  ];
  t.strictSame(doc, {
    source_id: 'ted:449657-2026',
    source: 'ted',
    country: 'EU', // the response names no buyer country
    title: 'Σουηδία – Πακέτα λογισμικού επικοινωνίας – Stöd för visselblåsarärenden',
    doc_type: 'notice', // notice-type was not among the fields of this response
    doc_category: 'notice',
    published_at: '2026-07-01T00:00:00Z',
    source_url: 'https://ted.europa.eu/en/notice/-/detail/449657-2026',
    language: 'el',
    content: [
      'Σουηδία – Πακέτα λογισμικού επικοινωνίας – Stöd för visselblåsarärenden',
      'Title (English): Sweden – Communication software package – Stöd för visselblåsarärenden',
      'Notice: Notice (notice), publication number 449657-2026',
      'Published: 2026-07-01',
      ...buyers.map((b) => `Buyer: ${b}`),
      'CPV: 48510000, 48900000, 72000000, 79400000',
    ].join('\n'),
    summary:
      'Notice 449657-2026: Σουηδία – Πακέτα λογισμικού επικοινωνίας – Stöd för visselblåsarärenden, buyer Upphandlingscenter Falun Borlänge-regionen, Falu kommun, Avesta Vatten och Avfall AB, Räddningstjänsten Dala Mitt, Avesta kommun, Falu Energi och Vat…',
    entities: { afm: [], ada: [], names: buyers },
    parties: buyers.map((name) => ({ role: 'buyer', name, afm: null })),
    procedure_type: null,
    tenders_received: null,
    act_date: null,
    amount: null,
    cpv: ['48510000', '48900000', '72000000', '79400000'],
    region: null,
    sector: 'it',
    quality_score: 0.8,
  });
});

t.test('when the second search notice is normalized, then its per-lot estimate becomes the amount', { skip: NEEDS_FIXTURES }, async (t) => {
  const doc = ted.normalize(ted.parse(fixture('search_v3_response_trimmed.json'))[1]!.record);
  t.equal(doc.source_id, 'ted:450106-2026');
  t.strictSame(doc.amount, { value: 18000000, currency: 'SEK' });
  t.strictSame(doc.cpv, ['72222300', '48517000', '72000000'], 'repeated CPVs once');
  t.strictSame(doc.entities.names, ['Stadsledningskontoret']);
  t.match(doc.content, /^Tender deadline: 2026-08-27$/m);
  t.match(doc.content, /^Value \(estimated value\): 18000000 SEK$/m);
});

t.test('when a Greek award notice comes from the search API, then country, type, parties and value are set', async (t) => {
  // The documented API-v3 shape (docs/upstream-sources.md §1.2), with a Greek title map added.
  const response = {
    notices: [
      {
        'publication-number': '00654321-2023',
        'notice-identifier': '66666666-7777-8888-9999-000000000000',
        'notice-version': 2,
        'notice-type': 'can-standard',
        'form-type': 'result',
        'publication-date': '2023-03-06Z',
        'notice-title': { eng: ['Greece – Construction work – Road maintenance'], ell: ['Ελλάδα – Κατασκευαστικές εργασίες – Συντήρηση οδών'] },
        'classification-cpv': ['45000000'],
        'contract-nature': ['works'],
        'organisation-name-buyer': { ell: ['ΔΗΜΟΣ ΠΑΡΑΔΕΙΓΜΑΤΟΣ'] },
        'organisation-name-tenderer': { ell: ['ΠΑΡΑΔΕΙΓΜΑ ΑΤΕ'] },
        'organisation-country-buyer': ['GRC'],
        'winner-selection-status': ['selec-w'],
        'total-value': 1875000.5,
        'total-value-cur': ['EUR'],
        'tender-value': [1875000.5],
        'tender-value-cur': ['EUR'],
        'place-of-performance-subdiv-lot': ['EL303'],
        links: { xml: { MUL: 'https://ted.europa.eu/en/notice/00654321-2023/xml' }, html: { ENG: 'https://ted.europa.eu/en/notice/-/detail/00654321-2023' } },
      },
    ],
    totalNoticeCount: 1,
    iterationNextToken: null,
    timedOut: false,
  };
  const doc = ted.normalize(ted.parse(JSON.stringify(response))[0]!.record);
  t.equal(doc.source_id, 'ted:654321-2023', 'leading zeros dropped from the publication number');
  t.equal(doc.country, 'GR');
  t.equal(doc.doc_type, 'can-standard');
  t.equal(doc.doc_category, 'award');
  t.equal(doc.published_at, '2023-03-06T00:00:00Z');
  t.equal(doc.title, 'Ελλάδα – Κατασκευαστικές εργασίες – Συντήρηση οδών', 'Greek preferred over English');
  t.equal(doc.language, 'el');
  t.strictSame(doc.entities.names, ['ΔΗΜΟΣ ΠΑΡΑΔΕΙΓΜΑΤΟΣ', 'ΠΑΡΑΔΕΙΓΜΑ ΑΤΕ']);
  t.strictSame(doc.amount, { value: 1875000.5, currency: 'EUR' }, 'total-value before tender-value');
  t.equal(doc.region, 'EL303');
  t.equal(doc.sector, 'construction');
  t.equal(doc.source_url, 'https://ted.europa.eu/en/notice/-/detail/00654321-2023');
  t.match(doc.content, /^Winner: ΠΑΡΑΔΕΙΓΜΑ ΑΤΕ$/m);
});

t.test('when a search notice carries buyer and winner identifiers, then their valid AFMs become entities', async (t) => {
  const response = {
    notices: [
      {
        'publication-number': '00000777-2025',
        'notice-type': 'can-standard',
        'publication-date': '2025-01-10Z',
        'notice-title': { ell: ['Προμήθεια εξοπλισμού'] },
        'buyer-country': ['GRC'],
        'buyer-name': { ell: ['ΔΗΜΟΣ Α', 'ΔΗΜΟΣ Β'] },
        'buyer-identifier': ['090252840', '123456789'],
        'winner-name': { ell: ['ΤΟΜΕΣ ΑΤΕ'] },
        'winner-identifier': ['EL094311152'],
      },
    ],
    totalNoticeCount: 1,
    iterationNextToken: null,
    timedOut: false,
  };
  const doc = ted.normalize(ted.parse(JSON.stringify(response))[0]!.record);
  t.strictSame([...doc.entities.afm].sort(), ['090252840', '094311152'], 'the EL prefix is dropped; 123456789 fails the check digit');
  t.match(doc.content, /ΤΟΜΕΣ ΑΤΕ \(ΑΦΜ 094311152\)/);
});

t.test('when notice types vary, then doc_category follows the shared vocabulary', { skip: NEEDS_FIXTURES }, async (t) => {
  const base = JSON.parse(fixture('search_v3_response_trimmed.json')).notices[1];
  const cases: [string, string][] = [
    ['cn-standard', 'tender_notice'],
    ['cn-social', 'tender_notice'],
    ['pin-cfc-standard', 'tender_notice'],
    ['pin-only', 'prior_information'],
    ['can-standard', 'award'],
    ['can-social', 'award'],
    ['veat', 'award'],
    ['can-modif', 'modification'],
    ['corr', 'correction'],
  ];
  for (const [type, category] of cases) {
    const doc = ted.normalize({ ...base, 'notice-type': type });
    t.strictSame([doc.doc_type, doc.doc_category], [type, category], type);
  }
  t.equal(ted.normalize({ ...base, 'form-type': 'result' }).doc_category, 'award', 'form type when the notice type is missing');
});

t.test('when the minimal eForms award notice is normalized, then buyer, winner, value and NUTS are read', { skip: NEEDS_FIXTURES }, async (t) => {
  const body = fixture('eforms_sdk_can_24_minimal.xml');
  const records = ted.parse(body, 'application/xml');
  t.equal(records.length, 1);
  t.equal(records[0]!.original.body.toString('utf8'), body, 'the XML is the original, byte for byte');
  t.equal(records[0]!.original.contentType, 'application/xml');
  const doc = ted.normalize(records[0]!.record);
  t.strictSame(doc, {
    source_id: 'ted:65667997-031a-4198-bd25-7225449ef479',
    source: 'ted',
    country: 'FR',
    title: "Service d'entretien de remise en état et de nettoyage des espaces verts",
    doc_type: 'can-standard',
    doc_category: 'award',
    published_at: '2019-10-23T00:00:00Z',
    source_url: '',
    language: 'fr',
    content: [
      "Service d'entretien de remise en état et de nettoyage des espaces verts",
      'Notice: Contract award notice (can-standard), notice id 65667997-031a-4198-bd25-7225449ef479',
      'Published: 2019-10-23',
      "Service d'entretien de remise en état et de nettoyage des espaces verts.",
      'Buyer: Rouen Habitat',
      'Winner: Espaces Verts Lemire',
      'Value (total value): 390697.84 EUR',
      'Procedure: open',
      'Tenders received: 3',
      'Contract nature: services',
      'CPV: 77310000',
      'Place of performance (NUTS): FRD22',
      'Lot LOT-0000: Agence centre',
    ].join('\n'),
    summary:
      "Contract award notice 65667997-031a-4198-bd25-7225449ef479: Service d'entretien de remise en état et de nettoyage des espaces verts, buyer Rouen Habitat, winner Espaces Verts Lemire, 390697.84 EUR.",
    entities: { afm: [], ada: [], names: ['Rouen Habitat', 'Espaces Verts Lemire'] },
    parties: [
      { role: 'buyer', name: 'Rouen Habitat', afm: null },
      { role: 'supplier', name: 'Espaces Verts Lemire', afm: null },
    ],
    procedure_type: 'open',
    tenders_received: 3,
    act_date: null,
    amount: { value: 390697.84, currency: 'EUR' },
    cpv: ['77310000'],
    region: 'FRD22',
    sector: 'agriculture_food',
    quality_score: 0.85,
  });
});

t.test('when the maximal eForms award notice is normalized, then every winning tenderer of the framework is named', { skip: NEEDS_FIXTURES }, async (t) => {
  const doc = xmlDoc(fixture('eforms_sdk_can_24_maximal.xml'));
  // BT-759 per lot result: 9 tenders for one lot, 1 for another; the notice reads the fewest.
  t.equal(doc.tenders_received, 1, 'a lot with a single tender');
  t.equal(doc.procedure_type, 'neg-w-call', 'BT-105');
  t.ok(doc.parties.some((p) => p.role === 'buyer') && doc.parties.some((p) => p.role === 'supplier'), 'buyers and winners are parties');
  t.equal(doc.source_id, 'ted:15377ca1-6cf7-4060-90f0-9290128957a3');
  t.equal(doc.doc_category, 'award');
  t.equal(doc.country, 'LU');
  t.strictSame(doc.entities.names, ['Financial Adinistration for ...', 'Gyro Soft SA', 'The best App Ltd.', 'Competitor']);
  t.strictSame(doc.amount, { value: 9999999.99, currency: 'EUR' });
  t.strictSame(doc.cpv, ['79710000', '79720000', '75121000', '33185200'], 'procedure and lot CPVs, main and additional');
  t.equal(doc.region, 'LU000');
  t.notMatch(doc.content, /Winner: .*(eSendCorp|Subcontractor)/, 'non-winning organisations are not winners');
});

t.test('when the eForms contract notices are normalized, then they are tender notices with estimates and deadlines', { skip: NEEDS_FIXTURES }, async (t) => {
  const min = xmlDoc(fixture('eforms_sdk_cn_24_minimal.xml'));
  t.equal(min.source_id, 'ted:f42be27e-09cf-4f0e-a745-63ec689631e6');
  t.equal(min.doc_type, 'cn-standard');
  t.equal(min.doc_category, 'tender_notice');
  t.equal(min.published_at, '2019-11-21T00:00:00Z');
  t.equal(min.country, 'LU');
  t.equal(min.region, 'FRD22', 'the place of performance, not the buyer’s address');
  t.equal(min.amount, null);
  t.strictSame(min.entities.names, ['Publications Office of the European Union']);
  t.match(min.content, /^Tender deadline: 2020-02-04$/m);

  const max = xmlDoc(fixture('eforms_sdk_cn_24_maximal.xml'));
  t.equal(max.doc_category, 'tender_notice');
  t.strictSame(max.amount, { value: 9999999.99, currency: 'EUR' }, 'the procedure’s estimated value');
  t.match(max.content, /^Value \(estimated value\): 9999999\.99 EUR$/m);
  t.match(max.content, /^Lot LOT-0002: Title Lot 2---$/m);
  t.notMatch(max.content, /^Lot GLO-0001/m, 'a group of lots is not a lot');

  // Without a procedure-level estimate, the lots' estimates are summed (the lot group is not counted).
  const lotsOnly = xmlDoc(
    fixture('eforms_sdk_cn_24_maximal.xml').replace(
      '<cbc:EstimatedOverallContractAmount currencyID="EUR">9999999.99</cbc:EstimatedOverallContractAmount>',
      '<cbc:EstimatedOverallContractAmount currencyID="EUR">0</cbc:EstimatedOverallContractAmount>',
    ),
  );
  t.strictSame(lotsOnly.amount, { value: 19999999.98, currency: 'EUR' });
});

t.test('when the modification notice is normalized, then it is a modification naming the changed notice', { skip: NEEDS_FIXTURES }, async (t) => {
  const doc = xmlDoc(fixture('eforms_sdk_can-modif_24_value.xml'));
  t.equal(doc.doc_type, 'can-modif');
  t.equal(doc.doc_category, 'modification');
  t.equal(doc.country, 'GB');
  t.strictSame(doc.amount, { value: 4500000, currency: 'EUR' });
  t.strictSame(doc.entities.names, ['London South Bank University', 'PwC UK LLP'], 'the contractor of the settled contract');
  t.match(doc.content, /^Modification: changes notice 342558-2018; Increase in framework value; /m);
});

t.test(
  'when a published Greek eForms notice is normalized, then the publication number, AFMs and Greek title are used',
  { skip: NEEDS_FIXTURES },
  async (t) => {
    // The SDK sample turned into a published Greek notice: a Publication block (as published notices carry),
    // Greek countries and company ids, and a Greek title next to the French one.
    const body = fixture('eforms_sdk_can_24_minimal.xml')
      .replace(
        '<efac:NoticeSubType>',
        '<efac:Publication><efbc:NoticePublicationID schemeName="ojs-notice-id">00123456-2024</efbc:NoticePublicationID><efbc:GazetteID schemeName="ojs-id">45/2024</efbc:GazetteID><efbc:PublicationDate>2024-03-05+01:00</efbc:PublicationDate></efac:Publication><efac:NoticeSubType>',
      )
      .replaceAll(
        '<cbc:IdentificationCode listName="country">FRA</cbc:IdentificationCode>',
        '<cbc:IdentificationCode listName="country">GRC</cbc:IdentificationCode>',
      )
      .replace('<cbc:CompanyID>123 456 789</cbc:CompanyID>', '<cbc:CompanyID>EL090252840</cbc:CompanyID>')
      .replace('<cbc:CompanyID>326 912 557</cbc:CompanyID>', '<cbc:CompanyID>094311152</cbc:CompanyID>')
      .replace(
        '<cbc:Name languageID="FRA">Service d\'entretien',
        '<cbc:Name languageID="ELL">Συντήρηση πρασίνου (ΑΔΑ ΨΘ82ΩΡΦ-7ΑΙ)</cbc:Name><cbc:Name languageID="FRA">Service d\'entretien',
      );
    const doc = xmlDoc(body);
    t.equal(doc.source_id, 'ted:123456-2024');
    t.equal(doc.source_url, 'https://ted.europa.eu/en/notice/-/detail/123456-2024');
    t.equal(doc.published_at, '2024-03-05T00:00:00Z', 'the publication date, not the dispatch date');
    t.equal(doc.country, 'GR');
    t.equal(doc.title, 'Συντήρηση πρασίνου (ΑΔΑ ΨΘ82ΩΡΦ-7ΑΙ)');
    t.equal(doc.language, 'el');
    t.strictSame(doc.entities, { afm: ['090252840', '094311152'], ada: ['ΨΘ82ΩΡΦ-7ΑΙ'], names: ['Rouen Habitat', 'Espaces Verts Lemire'] });
    const { quality_score, ...rest } = doc;
    t.equal(quality_score, qualityScore(rest));
    t.ok(quality_score > xmlDoc(fixture('eforms_sdk_can_24_minimal.xml')).quality_score, 'a URL and identifiers raise the score');
  },
);

t.test('when the same notice arrives as JSON and as XML, then both get the same source_id', { skip: NEEDS_FIXTURES }, async (t) => {
  const xml = fixture('eforms_sdk_cn_24_minimal.xml').replace(
    '<efac:NoticeSubType>',
    '<efac:Publication><efbc:NoticePublicationID schemeName="ojs-notice-id">00449657-2026</efbc:NoticePublicationID></efac:Publication><efac:NoticeSubType>',
  );
  const json = ted.normalize(ted.parse(fixture('search_v3_response_trimmed.json'))[0]!.record);
  t.equal(xmlDoc(xml).source_id, json.source_id);
});

t.test('when a body is invalid, truncated or of an unknown shape, then parse throws', { skip: NEEDS_FIXTURES }, async (t) => {
  const xml = fixture('eforms_sdk_can_24_minimal.xml');
  t.throws(() => ted.parse(xml.slice(0, 4000), 'application/xml'), /invalid XML/);
  t.throws(() => ted.parse('<TED_EXPORT><X/></TED_EXPORT>', 'application/xml'), /not an eForms notice/);
  t.throws(() => ted.parse('{"notices": [', 'application/json'), /not valid JSON/);
  t.throws(() => ted.parse('{"results": []}'), /not a search response/);
});

t.test('when a notice has neither id nor date, then normalize throws MalformedRecordError', async (t) => {
  t.throws(() => ted.normalize({ 'publication-number': 'abc', 'publication-date': '2026-07-01+02:00' }), MalformedRecordError);
  t.throws(() => ted.normalize({ 'publication-number': '449657-2026' }), MalformedRecordError);
  t.throws(() => ted.normalize({ foo: 1 }), MalformedRecordError);
  t.throws(() => ted.normalize([]), MalformedRecordError);
});

t.test('when a real notice is searched, then its labels are left out and their values kept', { skip: NEEDS_FIXTURES }, async (t) => {
  const doc = ted.normalize(ted.parse(fixture('search_v3_response_trimmed.json'))[0]!.record);
  const searched = searchedContent(doc);
  t.equal(searched.split('\n').length, doc.content.split('\n').length, 'a line for each line');
  t.notMatch(searched, /Title \(English\)|Notice|Published|Buyer|CPV:/);
  t.match(searched, /^Sweden – Communication software package – Stöd för visselblåsarärenden$/m);
  t.match(searched, /^notice 449657-2026$/m);
  t.match(searched, /^Falu kommun$/m);
  t.match(searched, /^48510000, 48900000, 72000000, 79400000$/m);
  t.equal(searchedSummary(doc), '', 'the summary repeats the title, buyers and value after a label');
  t.equal(searchedContent({ ...doc, source: 'kimdis' }), doc.content, 'other sources as they are');
  t.same(
    searchedTitles(doc),
    ['Σουηδία – Πακέτα λογισμικού επικοινωνίας – Stöd för visselblåsarärenden', 'Sweden – Communication software package – Stöd för visselblåsarärenden'],
    'the English title is searched as a title beside the Greek one',
  );
  t.same(searchedTitles({ ...doc, source: 'kimdis' }), [doc.title]);
  t.same(
    searchText(doc).slice(0, 2 * TITLE_WEIGHT),
    [...Array(TITLE_WEIGHT).fill(doc.title), ...Array(TITLE_WEIGHT).fill(searchedTitles(doc)[1])],
    'Elasticsearch weighs both as titles',
  );
  const tokens = docText(doc, TEXT_VERSION).title;
  t.ok(
    ['sweden', 'commun', 'softwar', 'packag'].every((w) => tokens.includes(w)),
    "and the embedded engine's title column holds the English words",
  );
});

t.test('when the demo search pages are replayed, then every notice normalizes to its publication number, Greek title, day, codes and parties', async (t) => {
  let notices = 0;
  for (const { file, json, docs } of demoBodies('ted', ted)) {
    notices += docs.length;
    t.strictSame(
      docs.map((d) => [d.source_id, d.title, d.doc_type, d.published_at, d.cpv]),
      json.notices.map((raw: any) => [
        `ted:${raw['publication-number'].replace(/^0+/, '')}`,
        raw['notice-title'].ell,
        raw['notice-type'],
        `${raw['publication-date'].slice(0, 10)}T00:00:00Z`,
        [...new Set(raw['classification-cpv'])],
      ]),
      `${file}: a document per notice, in order`,
    );
    // An identifier is an ΑΦΜ without its country prefix (`EL997052787`); a winner of several lots is one party.
    const afm = (id: string | undefined) => id?.replace(/^EL/, '') ?? null;
    const once = (parties: unknown[][]) => [...new Map(parties.map((p) => [JSON.stringify(p), p])).values()];
    t.strictSame(
      docs.map((d) => d.parties.map((p) => [p.role, p.name, p.afm])),
      json.notices.map((raw: any) =>
        once([
          ...raw['buyer-name'].ell.map((name: string, i: number) => ['buyer', name, afm(raw['buyer-identifier']?.[i])]),
          ...(raw['winner-name']?.ell ?? []).map((name: string, i: number) => ['supplier', name, afm(raw['winner-identifier']?.[i])]),
        ]),
      ),
      `${file}: buyers and winners with their ΑΦΜs`,
    );
    t.same(
      docs.filter((d) => !searchedTitles(d)[1]?.startsWith('Greece – ')).map((d) => d.source_id),
      [],
      `${file}: the English title is searched beside the Greek one`,
    );
  }
  t.ok(notices >= 400, `${notices} notices`);
});

t.test('when a winner of several lots is named before another winner, then each keeps its own ΑΦΜ', async (t) => {
  const doc = ted.normalize({
    'publication-number': '00012345-2024',
    'notice-type': 'can-standard',
    'publication-date': '2024-02-01+01:00',
    'notice-title': { ell: 'Ελλάδα – Καύσιμα – Προμήθεια καυσίμων' },
    'buyer-name': { ell: ['ΔΗΜΟΣ ΧΑΝΙΩΝ'] },
    'winner-name': { ell: ['ΠΕΤΡΕΛΑΙΟΕΙΔΗ ΚΡΗΤΙΚΗ ΑΕ', 'ΠΕΤΡΕΛΑΙΟΕΙΔΗ ΚΡΗΤΙΚΗ ΑΕ', 'ΕΜΠΟΡΙΑ ΚΑΥΣΙΜΩΝ ΔΕΛΤΑ ΑΕ'] },
    'winner-identifier': ['800062274', '800062274', '094914368'],
  });
  t.strictSame(
    doc.parties.filter((p) => p.role === 'supplier'),
    [
      { role: 'supplier', name: 'ΠΕΤΡΕΛΑΙΟΕΙΔΗ ΚΡΗΤΙΚΗ ΑΕ', afm: '800062274' },
      { role: 'supplier', name: 'ΕΜΠΟΡΙΑ ΚΑΥΣΙΜΩΝ ΔΕΛΤΑ ΑΕ', afm: '094914368' },
    ],
  );
});
