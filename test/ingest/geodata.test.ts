// CKAN package_search pages of the demo corpus (data/demo/geodata, records in the repository) at the
// end. No recorded geodata.gov.gr response exists (fixtures/README.md); these bodies follow the CKAN action API
// envelope of docs/upstream-sources.md §1.6 (`{help, success, result:{count, results}}`) and CKAN's dataset fields.
import t from 'tap';
import { qualityScore } from '../../ingest/quality.js';
import { geodata } from '../../ingest/sources/geodata/index.js';
import { ckanTimeToIso } from '../../ingest/sources/geodata/normalize.js';
import { MalformedRecordError } from '../../ingest/sources/types.js';
import { demoBodies } from '../helpers/demo-records.js';

const MUNICIPALITIES = {
  id: '0d2a4a6e-3c1f-4c53-9a55-6a0e8b1b7f10',
  name: 'oria-dhmwn-kallikraths',
  title: 'Όρια Δήμων (Καλλικράτης)',
  notes: 'Τα διοικητικά όρια των δήμων της χώρας\r\nσύμφωνα με το πρόγραμμα Καλλικράτης.',
  metadata_created: '2013-04-02T11:20:31.122817',
  metadata_modified: '2024-02-14T09:17:08.620345',
  license_id: 'cc-by',
  license_title: 'Creative Commons Attribution',
  organization: { id: 'b1', name: 'ypes', title: 'Υπουργείο Εσωτερικών' },
  tags: [
    { name: 'Διοικητικά όρια', display_name: 'Διοικητικά όρια' },
    { name: 'Δήμοι', display_name: 'Δήμοι' },
  ],
  groups: [{ name: 'administrative', title: 'Διοικητικές μονάδες' }],
  resources: [
    { id: 'r1', name: 'Όρια δήμων', format: 'SHP', url: 'https://geodata.gov.gr/dataset/oria/resource/r1/download/dhmoi.zip' },
    { id: 'r2', name: 'WMS', format: 'wms', url: 'https://geodata.gov.gr/geoserver/ows' },
    { id: 'r3', name: 'GeoJSON', format: 'GeoJSON', url: 'https://geodata.gov.gr/geoserver/wfs?typeName=geodata.gov.gr:r3' },
  ],
};

const ENGLISH = {
  id: '7f1e0c55-0000-4000-8000-000000000002',
  name: 'corine-2018',
  title: 'Corine Land Cover 2018',
  notes: null,
  metadata_modified: '2023-11-30T23:59:59',
  organization: null,
  tags: [],
  resources: [],
};

const SEARCH_PAGE = {
  help: 'https://geodata.gov.gr/api/3/action/help_show?name=package_search',
  success: true,
  result: { count: 2, sort: 'metadata_modified asc', facets: {}, results: [MUNICIPALITIES, ENGLISH], search_facets: {} },
};

t.test('when a package_search page is parsed, then each dataset is a record', async (t) => {
  const parsed = geodata.parse(JSON.stringify(SEARCH_PAGE), 'application/json;charset=utf-8');
  t.equal(parsed.length, 2);
  t.same(
    parsed.map((p) => (p.record as { name: string }).name),
    ['oria-dhmwn-kallikraths', 'corine-2018'],
  );
  t.same(JSON.parse(parsed[0].original.body.toString('utf8')), MUNICIPALITIES);
});

t.test('when a dataset is normalized, then it is a dataset document with publisher, tags and formats', async (t) => {
  const [first] = geodata.parse(JSON.stringify(SEARCH_PAGE));
  const doc = geodata.normalize(first.record);
  const { quality_score, ...rest } = doc;
  t.strictSame(rest, {
    source_id: 'geodata:0d2a4a6e-3c1f-4c53-9a55-6a0e8b1b7f10',
    source: 'geodata',
    country: 'GR',
    title: 'Όρια Δήμων (Καλλικράτης)',
    doc_type: 'dataset',
    doc_category: 'geospatial',
    published_at: '2024-02-14T09:17:08Z',
    source_url: 'https://geodata.gov.gr/dataset/oria-dhmwn-kallikraths',
    language: 'el',
    content: [
      'Όρια Δήμων (Καλλικράτης)',
      'Φορέας: Υπουργείο Εσωτερικών',
      '',
      'Τα διοικητικά όρια των δήμων της χώρας',
      'σύμφωνα με το πρόγραμμα Καλλικράτης.',
      '',
      'Ετικέτες: Διοικητικά όρια, Δήμοι',
      'Θεματικές ενότητες: Διοικητικές μονάδες',
      'Μορφές: SHP, WMS, GEOJSON',
      'Άδεια χρήσης: Creative Commons Attribution',
      'Πόροι:',
      '- Όρια δήμων (SHP) https://geodata.gov.gr/dataset/oria/resource/r1/download/dhmoi.zip',
      '- WMS (wms) https://geodata.gov.gr/geoserver/ows',
      '- GeoJSON (GeoJSON) https://geodata.gov.gr/geoserver/wfs?typeName=geodata.gov.gr:r3',
    ].join('\n'),
    summary: 'Τα διοικητικά όρια των δήμων της χώρας σύμφωνα με το πρόγραμμα Καλλικράτης.',
    entities: { afm: [], ada: [], names: ['Υπουργείο Εσωτερικών'] },
    parties: [{ role: 'issuer', name: 'Υπουργείο Εσωτερικών', afm: null }],
    procedure_type: null,
    tenders_received: null,
    act_date: null,
    amount: null,
    cpv: [],
    region: null,
    sector: null,
  });
  t.equal(quality_score, qualityScore(rest));
});

t.test('when a dataset has an English title and few fields, then it is still a document in English', async (t) => {
  const doc = geodata.normalize(geodata.parse(JSON.stringify(SEARCH_PAGE))[1].record);
  t.equal(doc.source_id, 'geodata:7f1e0c55-0000-4000-8000-000000000002');
  t.equal(doc.language, 'en');
  t.equal(doc.published_at, '2023-11-30T23:59:59Z');
  t.equal(doc.summary, 'Corine Land Cover 2018');
  t.strictSame(doc.entities.names, []);
  t.equal(doc.sector, null);
});

t.test('when a package_show body is parsed, then its one dataset is a record', async (t) => {
  const parsed = geodata.parse(JSON.stringify({ help: 'x', success: true, result: MUNICIPALITIES }));
  t.equal(parsed.length, 1);
  t.equal(geodata.normalize(parsed[0].record).source_id, 'geodata:0d2a4a6e-3c1f-4c53-9a55-6a0e8b1b7f10');
});

t.test('when CKAN answers success:false or the body is not JSON, then parse throws', async (t) => {
  const failure = { help: 'x', success: false, error: { __type: 'Validation Error', message: 'Invalid sort' } };
  t.throws(() => geodata.parse(JSON.stringify(failure)), /CKAN reported failure \(Validation Error: Invalid sort\)/);
  t.throws(() => geodata.parse('{"success":true,"result":{"count":'), /not valid JSON/);
  t.throws(() => geodata.parse('{"success":true}'), /no result/);
});

t.test('when a dataset lacks id, name or a modification time, then normalize reports it malformed', async (t) => {
  t.throws(() => geodata.normalize({ title: 'x', metadata_modified: '2024-01-01T00:00:00' }), MalformedRecordError);
  t.throws(() => geodata.normalize({ id: 'a', title: 'x', metadata_modified: 'yesterday' }), MalformedRecordError);
  t.throws(() => geodata.normalize(null), MalformedRecordError);
});

t.test('when CKAN timestamps carry microseconds, a zone or nothing, then they become UTC seconds', async (t) => {
  t.equal(ckanTimeToIso('2016-05-10T09:17:08.620345'), '2016-05-10T09:17:08Z');
  t.equal(ckanTimeToIso('2016-05-10T09:17:08+0200'), '2016-05-10T07:17:08Z');
  t.equal(ckanTimeToIso('2016-05-10'), '2016-05-10T00:00:00Z');
  t.equal(ckanTimeToIso(42), null);
});

t.test('when the demo package_search pages are replayed, then every dataset normalizes to its id, title, page, last change and publisher', async (t) => {
  let datasets = 0;
  for (const { file, json, docs } of demoBodies('geodata', geodata)) {
    datasets += docs.length;
    t.strictSame(
      docs.map((d) => [d.source_id, d.title, d.source_url, d.published_at, d.parties.map((p) => [p.role, p.name])]),
      json.result.results.map((r: any) => [
        `geodata:${r.id}`,
        r.title,
        `https://geodata.gov.gr/dataset/${r.name}`,
        `${r.metadata_modified.slice(0, 19)}Z`,
        [['issuer', r.organization.title]],
      ]),
      `${file}: a document per dataset, in order`,
    );
  }
  t.ok(datasets >= 150, `${datasets} datasets`);
});
