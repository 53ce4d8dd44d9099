// RAE GeoJSON pages of the demo corpus (data/demo/rae, records in the repository) at the end. No
// recorded RAE GeoJSON exists (fixtures/README.md); the feature below is the documented one of
// docs/upstream-sources.md §1.7 (property names and values as captured in 2026; id and coordinates illustrative).
import t from 'tap';
import { qualityScore } from '../../ingest/quality.js';
import { diffSnapshots, hashFeature, rae, snapshotOf } from '../../ingest/sources/rae/index.js';
import type { RaeRecord } from '../../ingest/sources/rae/index.js';
import { raeDateToIso } from '../../ingest/sources/rae/normalize.js';
import { MalformedRecordError } from '../../ingest/sources/types.js';
import { demoBodies } from '../helpers/demo-records.js';

const AGHNOR = {
  type: 'Feature',
  id: 'V_SDI_R_PHOTOVOLTAICS_ALL.1',
  geometry: {
    type: 'MultiPolygon',
    coordinates: [
      [
        [
          [23.05, 38.55],
          [23.06, 38.55],
          [23.06, 38.56],
          [23.05, 38.55],
        ],
      ],
    ],
  },
  properties: {
    aa: 'Γ-07392',
    company: 'ΑΓΗΝΩΡ ΑΕ',
    thesh: 'ΜΥΛΟΒΟΥΝΙ',
    kal_dhmos: 'ΛΟΚΡΩΝ,ΟΡΧΟΜΕΝΟΥ',
    kal_perifereia: 'ΣΤΕΡΕΑΣ ΕΛΛΑΔΑΣ',
    power_mw: 19.992,
    imerominia: '2019-03-12',
    katastash_descr: 'ΑΠΟΡΡΙΠΤΙΚΗ ΑΠΟΦΑΣΗ',
  },
};

const COLLECTION = { type: 'FeatureCollection', numberMatched: 4890, numberReturned: 1, features: [AGHNOR] };

t.test('when a GeoJSON page is parsed, then each feature is a record with its layer', async (t) => {
  const parsed = rae.parse(JSON.stringify(COLLECTION), 'application/json;charset=UTF-8');
  t.equal(parsed.length, 1);
  const record = parsed[0].record as RaeRecord;
  t.equal(record.layer, 'V_SDI_R_PHOTOVOLTAICS_ALL', 'from the GeoServer feature id');
  t.equal(parsed[0].original.contentType, 'application/geo+json');
  t.same(JSON.parse(parsed[0].original.body.toString('utf8')), AGHNOR);
  const tagged = rae.parse(JSON.stringify(COLLECTION), 'application/json; layer=V_SDI_R_PHOTOVOLTAICS11');
  t.equal((tagged[0].record as RaeRecord).layer, 'V_SDI_R_PHOTOVOLTAICS11', 'the fetcher tag wins');
});

t.test('when a licence feature is normalized, then it is a licence document carrying its status', async (t) => {
  const doc = rae.normalize(rae.parse(JSON.stringify(COLLECTION))[0].record);
  const { quality_score, ...rest } = doc;
  t.strictSame(rest, {
    source_id: 'rae:V_SDI_R_PHOTOVOLTAICS_ALL:Γ-07392',
    source: 'rae',
    country: 'GR',
    title: 'ΑΓΗΝΩΡ ΑΕ — ΜΥΛΟΒΟΥΝΙ — 19.992 MW',
    doc_type: 'licence',
    doc_category: 'licence',
    published_at: '2019-03-12T00:00:00Z',
    source_url:
      'https://geo.rae.gr/geoserver/wfs?service=WFS&version=2.0.0&request=GetFeature&typeNames=rae_status%3AV_SDI_R_PHOTOVOLTAICS_ALL&outputFormat=application%2Fjson&CQL_FILTER=aa%3D%27%CE%93-07392%27',
    language: 'el',
    content: [
      'ΑΓΗΝΩΡ ΑΕ — ΜΥΛΟΒΟΥΝΙ — 19.992 MW',
      'Φωτοβολταϊκός σταθμός · Άδεια ή αίτηση',
      'Αριθμός μητρώου: Γ-07392',
      'Κατάσταση: ΑΠΟΡΡΙΠΤΙΚΗ ΑΠΟΦΑΣΗ',
      'Εταιρεία: ΑΓΗΝΩΡ ΑΕ',
      'Θέση: ΜΥΛΟΒΟΥΝΙ',
      'Δήμος: ΛΟΚΡΩΝ, ΟΡΧΟΜΕΝΟΥ',
      'Περιφέρεια: ΣΤΕΡΕΑΣ ΕΛΛΑΔΑΣ',
      'Ισχύς (MW): 19.992',
      'Ημερομηνία: 2019-03-12',
      'Επίπεδο ΡΑΑΕΥ: V_SDI_R_PHOTOVOLTAICS_ALL',
    ].join('\n'),
    summary: 'Φωτοβολταϊκός σταθμός, άδεια ή αίτηση Γ-07392 · ΑΓΗΝΩΡ ΑΕ · κατάσταση: ΑΠΟΡΡΙΠΤΙΚΗ ΑΠΟΦΑΣΗ · 19.992 MW · ΣΤΕΡΕΑΣ ΕΛΛΑΔΑΣ',
    entities: { afm: [], ada: [], names: ['ΑΓΗΝΩΡ ΑΕ'] },
    parties: [{ role: 'holder', name: 'ΑΓΗΝΩΡ ΑΕ', afm: null }],
    procedure_type: null,
    tenders_received: null,
    act_date: null,
    amount: null,
    cpv: [],
    region: 'ΣΤΕΡΕΑΣ ΕΛΛΑΔΑΣ',
    sector: 'energy',
  });
  t.equal(quality_score, qualityScore(rest));
});

t.test('when a feature comes from a stage layer, then doc_type is that licence kind and the issue date wins', async (t) => {
  const feature = {
    ...AGHNOR,
    id: 'V_SDI_R_PHOTOVOLTAICS11.77',
    properties: { ...AGHNOR.properties, imerominia_ekdosis_adeias: '2020-07-01Z', katastash_descr: 'ΕΝ ΙΣΧΥΙ', extra_field: 'x' },
  };
  const kinds = [
    ['V_SDI_R_PHOTOVOLTAICS11', 'production_licence'],
    ['V_SDI_R_PHOTOVOLTAICS12', 'installation_licence'],
    ['V_SDI_R_PHOTOVOLTAICS13', 'operation_licence'],
    ['V_SDI_R_PHOTOVOLTAICS7', 'application'],
    ['V_SDI_R_AIOLIKA_ALL', 'licence'],
    ['SOME_NEW_LAYER', 'licence'],
  ] as const;
  for (const [layer, kind] of kinds) {
    const doc = rae.normalize({ layer, feature });
    t.equal(doc.doc_type, kind, layer);
    t.equal(doc.doc_category, 'licence');
    t.equal(doc.source_id, `rae:${layer}:Γ-07392`);
  }
  const doc = rae.normalize({ layer: 'V_SDI_R_PHOTOVOLTAICS11', feature });
  t.equal(doc.published_at, '2020-07-01T00:00:00Z');
  t.match(doc.content, /\nΚατάσταση: ΕΝ ΙΣΧΥΙ\n/);
  t.match(doc.content, /\nΗμερομηνία έκδοσης άδειας: 2020-07-01\n/);
  t.match(doc.content, /\nextra_field = x\n/);
});

t.test('when only the status of a licence changes, then its content changes too', async (t) => {
  const before = rae.normalize({ layer: 'V_SDI_R_PHOTOVOLTAICS_ALL', feature: AGHNOR });
  const after = rae.normalize({ layer: 'V_SDI_R_PHOTOVOLTAICS_ALL', feature: { ...AGHNOR, properties: { ...AGHNOR.properties, katastash_descr: 'ΑΚΥΡΩΣΗ' } } });
  t.equal(after.source_id, before.source_id);
  t.not(after.content, before.content);
});

t.test('when the WFS answers an ExceptionReport or a JSON exception, then parse throws with its text', async (t) => {
  const xml = `<?xml version="1.0" encoding="UTF-8"?><ows:ExceptionReport xmlns:ows="http://www.opengis.net/ows/1.1" version="2.0.0">
  <ows:Exception exceptionCode="InvalidParameterValue" locator="typeName"><ows:ExceptionText>Feature type rae_status:NOPE unknown</ows:ExceptionText></ows:Exception></ows:ExceptionReport>`;
  t.throws(() => rae.parse(xml, 'application/xml'), /WFS exception: InvalidParameterValue: typeName: Feature type rae_status:NOPE unknown/);
  t.throws(() => rae.parse('{"exceptions":[{"code":"NoApplicableCode","text":"boom"}]}'), /WFS exception: NoApplicableCode: boom/);
  t.throws(() => rae.parse('{"type":"FeatureCollection","features":[{'), /not valid JSON/);
  t.throws(() => rae.parse('{"type":"Feature"}'), /expected a GeoJSON FeatureCollection/);
});

t.test('when a feature has no date, no layer or no key, then normalize reports it malformed', async (t) => {
  const { imerominia: _drop, ...undated } = AGHNOR.properties;
  t.throws(() => rae.normalize({ layer: 'V_SDI_R_PHOTOVOLTAICS_ALL', feature: { ...AGHNOR, properties: undated } }), MalformedRecordError);
  t.throws(() => rae.normalize({ layer: null, feature: AGHNOR }), MalformedRecordError);
  t.throws(() => rae.normalize({ layer: 'X', feature: { type: 'Feature', properties: { imerominia: '2020-01-01' } } }), MalformedRecordError);
});

t.test('when two snapshots are compared, then added, changed and removed licences are reported by key', async (t) => {
  const prev = { L1: { A: 'h1', B: 'h2', C: 'h3' }, L2: { X: 'h9' } };
  const next = { L1: { A: 'h1', B: 'h2-new', D: 'h4' }, L3: { Y: 'h5' } };
  t.strictSame(diffSnapshots(prev, next), { added: ['L1:D', 'L3:Y'], changed: ['L1:B'], removed: ['L1:C', 'L2:X'] });
  t.strictSame(diffSnapshots(prev, prev), { added: [], changed: [], removed: [] });
  t.strictSame(diffSnapshots({}, { L: { A: 'h' } }), { added: ['L:A'], changed: [], removed: [] });
});

t.test('when a feature is hashed, then only its properties count, not their order or the geometry', async (t) => {
  const reordered = { ...AGHNOR, geometry: null, properties: Object.fromEntries(Object.entries(AGHNOR.properties).reverse()) };
  t.equal(hashFeature(reordered as never), hashFeature(AGHNOR as never));
  t.match(hashFeature(AGHNOR as never), /^[0-9a-f]{16}$/);
  const changed = { ...AGHNOR, properties: { ...AGHNOR.properties, katastash_descr: 'ΑΚΥΡΩΣΗ' } };
  t.not(hashFeature(changed as never), hashFeature(AGHNOR as never));
  t.strictSame(Object.keys(snapshotOf('rae_status:V_SDI_R_PHOTOVOLTAICS_ALL', [AGHNOR as never])), ['V_SDI_R_PHOTOVOLTAICS_ALL']);
  t.strictSame(Object.keys(snapshotOf('rae_status:V_SDI_R_PHOTOVOLTAICS_ALL', [AGHNOR as never]).V_SDI_R_PHOTOVOLTAICS_ALL), ['Γ-07392']);
});

t.test('when GeoServer writes dates in its several forms, then they read as UTC days', async (t) => {
  t.equal(raeDateToIso('2019-03-12'), '2019-03-12T00:00:00Z');
  t.equal(raeDateToIso('2019-03-12Z'), '2019-03-12T00:00:00Z');
  t.equal(raeDateToIso('2019-03-12T10:00:00+02:00'), '2019-03-12T08:00:00Z');
  t.equal(raeDateToIso(1552348800000), '2019-03-12T00:00:00Z');
  t.equal(raeDateToIso('12/03/2019'), null);
});

t.test('when the demo WFS pages are replayed, then every feature normalizes to its layer and register number, holder and permit day', async (t) => {
  let features = 0;
  for (const { file, json, docs } of demoBodies('rae', rae)) {
    const layer = /^\d+-(.+)-start\d+\.json$/.exec(file)![1];
    features += docs.length;
    t.strictSame(
      docs.map((d) => [d.source_id, d.parties.map((p) => [p.role, p.name])]),
      json.features.map((f: any) => [`rae:${layer}:${f.properties.aa}`, [['holder', f.properties.company]]]),
      `${file}: a document per feature, in order`,
    );
    const day = (f: any) => f.properties.imerominia_ekdosis_adeias ?? f.properties.imerominia;
    t.same(
      json.features.filter((f: any, i: number) => day(f) && docs[i]!.published_at !== `${day(f)}T00:00:00Z`).map((f: any) => f.properties.aa),
      [],
      `${file}: published on the permit's day (its issue, else its application)`,
    );
  }
  t.ok(features >= 300, `${features} features`);
});
