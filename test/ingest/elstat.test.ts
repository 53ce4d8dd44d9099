// Eurostat JSON-stat bodies: the demo corpus's (data/demo/elstat, records in the repository), a JSON-stat
// 2.0 body written here, and the legacy 1.x bundle of ../shared/fixtures/elstat where it is.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { qualityScore } from '../../ingest/quality.js';
import { elstat } from '../../ingest/sources/elstat/index.js';
import type { ElstatSeries } from '../../ingest/sources/elstat/index.js';
import { periodStart } from '../../ingest/sources/elstat/normalize.js';
import { toIsoUtc } from '../../ingest/sources/elstat/parse.js';
import { MalformedRecordError } from '../../ingest/sources/types.js';
import { demoBodies } from '../helpers/demo-records.js';
import { FIXTURES, NEEDS_FIXTURES } from '../helpers/paths.js';

const legacy = () => readFileSync(path.join(FIXTURES, 'elstat', 'eurostat_legacy_nama_gdp_c_all_geo.json'), 'utf8');

// JSON-stat 2.0 as the Eurostat dissemination API sends it (sparse value/status keyed by flat index,
// `extension.id` in upper case, status labels under `extension.status`); figures illustrative.
// size [1,2,1,2,3] over [freq,unit,na_item,geo,time]: index = unit*6 + geo*3 + time.
const V2 = {
  version: '2.0',
  class: 'dataset',
  label: 'Gross domestic product (GDP) and main components (output, expenditure and income)',
  source: 'ESTAT',
  updated: '2024-04-19T23:00:00+0200',
  value: {
    '0': 3617450,
    '1': 3876810,
    '2': 4121160,
    '3': 181500.0,
    '4': 206620.4,
    '5': 220264.9,
    '6': 3.2,
    '7': 1.8,
    '8': -0.3,
    '9': 8.4,
    '10': 5.6,
    '11': 2.3,
  },
  status: { '5': 'p', '11': 'p' },
  id: ['freq', 'unit', 'na_item', 'geo', 'time'],
  size: [1, 2, 1, 2, 3],
  dimension: {
    freq: { label: 'Time frequency', category: { index: { A: 0 }, label: { A: 'Annual' } } },
    unit: {
      label: 'Unit of measure',
      category: {
        index: { CP_MEUR: 0, CLV_PCH_PRE: 1 },
        label: { CP_MEUR: 'Current prices, million euro', CLV_PCH_PRE: 'Chain linked volumes, percentage change on previous period' },
      },
    },
    na_item: { label: 'National accounts indicator (ESA 2010)', category: { index: { B1GQ: 0 }, label: { B1GQ: 'Gross domestic product at market prices' } } },
    geo: { label: 'Geopolitical entity (reporting)', category: { index: { DE: 0, EL: 1 }, label: { DE: 'Germany', EL: 'Greece' } } },
    time: { label: 'Time', category: { index: { '2021': 0, '2022': 1, '2023': 2 }, label: { '2021': '2021', '2022': '2022', '2023': '2023' } } },
  },
  extension: {
    lang: 'EN',
    agencyId: 'ESTAT',
    id: 'NAMA_10_GDP',
    version: '1.0',
    status: { label: { p: 'provisional', e: 'estimated' } },
    'positions-with-no-data': { freq: [], unit: [], na_item: [], geo: [], time: [] },
  },
};

t.test('when the legacy JSON-stat 1.x bundle is parsed, then only the series for Greece is kept', { skip: NEEDS_FIXTURES }, async (t) => {
  const parsed = elstat.parse(legacy(), 'application/json');
  t.equal(parsed.length, 1);
  const s = parsed[0].record as ElstatSeries;
  t.equal(s.dataset, 'nama_gdp_c');
  t.equal(s.format, 'json-stat-1.x');
  t.same(
    s.dimensions.map((d) => `${d.id}=${d.code}`),
    ['unit=EUR_HAB', 'indic_na=B1GM', 'geo=EL'],
  );
  t.equal(s.observations.length, 69);
  t.same(
    s.observations.find((o) => o.period === '2012'),
    { period: '2012', value: 17400, status: null },
  );
  t.same(
    s.observations.find((o) => o.period === '2014'),
    { period: '2014', value: null, status: ':' },
  );
  t.equal(s.statusLabels[':'], 'not available');
});

t.test(
  "when a body is parsed, then the original of each series is the upstream body as it came, not pdi's reading of it",
  { skip: NEEDS_FIXTURES },
  async (t) => {
    for (const body of [legacy(), JSON.stringify(V2)]) {
      const parsed = elstat.parse(body, 'application/json');
      t.ok(parsed.length >= 1);
      for (const p of parsed) {
        t.equal(p.original.body.toString('utf8'), body);
        t.equal(p.original.contentType, 'application/json');
      }
    }
  },
);

t.test('when the legacy series is normalized, then the document holds the latest periods as a table', { skip: NEEDS_FIXTURES }, async (t) => {
  const doc = elstat.normalize(elstat.parse(legacy())[0].record);
  const { quality_score, content, ...rest } = doc;
  t.strictSame(rest, {
    source_id: 'elstat:nama_gdp_c:EUR_HAB.B1GM.EL',
    source: 'elstat',
    country: 'GR',
    title: 'GDP and main components - Current prices: Euro per inhabitant, Gross domestic product at market prices — Greece',
    doc_type: 'statistical_series',
    doc_category: 'statistics',
    // The bundle's lastUpdateDate (1455058800000 ms), the legacy counterpart of JSON-stat 2.0 `updated`.
    published_at: '2016-02-09T23:00:00Z',
    source_url: 'https://ec.europa.eu/eurostat/databrowser/view/nama_gdp_c/default/table?lang=en',
    language: 'en',
    summary: 'Greece, Euro per inhabitant, Gross domestic product at market prices: 17400 Euro per inhabitant in 2012 (Eurostat nama_gdp_c).',
    entities: { afm: [], ada: [], names: [] },
    parties: [],
    procedure_type: null,
    tenders_received: null,
    act_date: null,
    amount: null,
    cpv: [],
    region: null,
    sector: 'economy',
  });
  const lines = content.split('\n');
  t.equal(
    lines[1],
    'Source: Eurostat dissemination API (legacy JSON-stat 1.x), dataset nama_gdp_c, series EUR_HAB.B1GM.EL; official statistics for Greece compiled by ELSTAT.',
  );
  t.same(lines.slice(2, 6), [
    'Dimensions:',
    '- unit: EUR_HAB — Euro per inhabitant',
    '- indic_na: B1GM — Gross domestic product at market prices',
    '- geo: EL — Greece',
  ]);
  t.equal(lines[6], 'Latest value: 2012 = 17400 (Euro per inhabitant)');
  const table = lines.slice(lines.indexOf('Period | Value | Status') + 1);
  t.equal(table.length, 24, 'the latest 24 periods');
  t.equal(table[0], '1991 | : | : (not available)');
  t.ok(table.includes('2008 | 20800 |'));
  t.equal(table[table.length - 1], '2014 | : | : (not available)');
  t.equal(quality_score, qualityScore({ ...rest, content }));
});

t.test('when a JSON-stat 2.0 body is parsed, then there is one record per Greek series with its statuses', async (t) => {
  const parsed = elstat.parse(JSON.stringify(V2), 'application/json; charset=UTF-8');
  const series = parsed.map((p) => p.record as ElstatSeries);
  t.same(
    series.map((s) => s.dimensions.map((d) => d.code).join('.')),
    ['A.CP_MEUR.B1GQ.EL', 'A.CLV_PCH_PRE.B1GQ.EL'],
  );
  t.equal(series[0].dataset, 'nama_10_gdp');
  t.equal(series[0].updated, '2024-04-19T21:00:00Z');
  t.same(series[0].observations, [
    { period: '2021', value: 181500, status: null },
    { period: '2022', value: 206620.4, status: null },
    { period: '2023', value: 220264.9, status: 'p' },
  ]);
  t.same(
    series[1].observations.map((o) => o.value),
    [8.4, 5.6, 2.3],
  );
});

t.test('when a JSON-stat 2.0 series is normalized, then source_id, title, date and table are exact', async (t) => {
  const doc = elstat.normalize(elstat.parse(JSON.stringify(V2))[0].record);
  t.equal(doc.source_id, 'elstat:nama_10_gdp:A.CP_MEUR.B1GQ.EL');
  t.equal(
    doc.title,
    'Gross domestic product (GDP) and main components (output, expenditure and income): Current prices, million euro, Gross domestic product at market prices — Greece',
  );
  t.equal(doc.published_at, '2024-04-19T21:00:00Z');
  t.equal(doc.language, 'en');
  t.equal(doc.doc_type, 'statistical_series');
  t.equal(doc.source_url, 'https://ec.europa.eu/eurostat/databrowser/view/nama_10_gdp/default/table?lang=en');
  t.equal(
    doc.summary,
    'Greece, Current prices, million euro, Gross domestic product at market prices: 220264.9 Current prices, million euro in 2023 (Eurostat nama_10_gdp).',
  );
  t.equal(
    doc.content,
    [
      'Gross domestic product (GDP) and main components (output, expenditure and income): Current prices, million euro, Gross domestic product at market prices — Greece',
      'Source: Eurostat dissemination API (JSON-stat 2.0), dataset nama_10_gdp, series A.CP_MEUR.B1GQ.EL; official statistics for Greece compiled by ELSTAT.',
      'Dimensions:',
      '- Time frequency (freq): A — Annual',
      '- Unit of measure (unit): CP_MEUR — Current prices, million euro',
      '- National accounts indicator (ESA 2010) (na_item): B1GQ — Gross domestic product at market prices',
      '- Geopolitical entity (reporting) (geo): EL — Greece',
      'Latest value: 2023 = 220264.9 (Current prices, million euro)',
      '',
      'Period | Value | Status',
      '2021 | 181500 |',
      '2022 | 206620.4 |',
      '2023 | 220264.9 | p (provisional)',
    ].join('\n'),
  );
});

t.test('when values come as a dense array and the dataset only in the content type, then the series still decodes', async (t) => {
  const { extension: _e, ...noExt } = V2;
  const dense = { ...noExt, value: [3617450, 3876810, 4121160, 181500, 206620.4, 220264.9, 3.2, 1.8, -0.3, 8.4, 5.6, null], status: {} };
  t.throws(() => elstat.parse(JSON.stringify(dense)), /cannot tell the dataset code/);
  const parsed = elstat.parse(JSON.stringify(dense), 'application/json; dataset=nama_10_gdp');
  const s = parsed.map((p) => p.record as ElstatSeries);
  t.same(
    s[1].observations.map((o) => o.value),
    [8.4, 5.6, null],
  );
  const doc = elstat.normalize(s[1]);
  t.match(doc.content, /Latest value: 2022 = 5\.6 /, 'trailing empty period dropped; latest is the last value');
  t.notMatch(doc.content, /\n2023 \|/);
});

t.test('when a body has no Greek series, then it yields nothing; an error body throws', async (t) => {
  const noGreece = {
    ...V2,
    size: [1, 2, 1, 1, 3],
    dimension: { ...V2.dimension, geo: { label: 'geo', category: { index: { DE: 0 }, label: { DE: 'Germany' } } } },
  };
  t.same(elstat.parse(JSON.stringify(noGreece)), []);
  t.throws(() => elstat.parse('{"error":[{"status":400,"id":100,"label":"Invalid dimension"}]}'), /Eurostat error/);
  t.throws(() => elstat.parse('{"version":"2.0","class":"data'), /not valid JSON/);
  t.throws(() => elstat.parse('{"hello":"world"}'), /not a JSON-stat dataset/);
});

t.test('when a record is not a series or has nothing to show, then normalize reports it malformed', async (t) => {
  t.throws(() => elstat.normalize({ dataset: 'x' }), MalformedRecordError);
  const empty: ElstatSeries = {
    dataset: 'une_rt_m',
    label: 'U',
    format: 'json-stat-2.0',
    updated: null,
    dimensions: [],
    observations: [{ period: '2024-01', value: null, status: null }],
    statusLabels: {},
  };
  t.throws(() => elstat.normalize(empty), MalformedRecordError);
});

t.test('when Eurostat restamps a release without changing its figures, then only published_at changes', async (t) => {
  const [series] = elstat.parse(JSON.stringify(V2)).map((p) => p.record as ElstatSeries);
  const before = elstat.normalize(series);
  const after = elstat.normalize({ ...series, updated: '2024-05-01T09:00:00Z' });
  t.equal(after.content, before.content);
  t.equal(after.published_at, '2024-05-01T09:00:00Z');
  t.not(before.published_at, after.published_at);
});

t.test('when no update time is given, then published_at is the start of the last period shown', async (t) => {
  const s: ElstatSeries = {
    dataset: 'une_rt_m',
    label: 'Unemployment by sex and age – monthly data',
    format: 'json-stat-2.0',
    updated: null,
    dimensions: [{ id: 'geo', label: 'geo', code: 'EL', codeLabel: 'Greece' }],
    observations: [
      { period: '2024-02', value: 11.2, status: null },
      { period: '2024-03', value: 10.9, status: null },
    ],
    statusLabels: {},
  };
  const doc = elstat.normalize(s);
  t.equal(doc.published_at, '2024-03-01T00:00:00Z');
  t.equal(doc.sector, 'labour');
  t.equal(doc.source_id, 'elstat:une_rt_m:EL');
});

t.test('when periods and update stamps come in Eurostat forms, then they convert to UTC', async (t) => {
  t.equal(periodStart('2012'), '2012-01-01T00:00:00Z');
  t.equal(periodStart('2024-03'), '2024-03-01T00:00:00Z');
  t.equal(periodStart('2024M11'), '2024-11-01T00:00:00Z');
  t.equal(periodStart('2024-Q3'), '2024-07-01T00:00:00Z');
  t.equal(periodStart('2024S2'), '2024-07-01T00:00:00Z');
  t.equal(periodStart('2024-13'), null);
  t.equal(toIsoUtc('2026-02-06T23:00:00+0100'), '2026-02-06T22:00:00Z');
  t.equal(toIsoUtc(1455058800000), '2016-02-09T23:00:00Z');
});

t.test('when the demo JSON-stat bodies are replayed, then each is one series of Greece with its label, update time and latest value', async (t) => {
  const bodies = demoBodies('elstat', elstat);
  t.ok(bodies.length >= 8, `${bodies.length} bodies`);
  for (const { file, json, docs } of bodies) {
    const dataset = /^\d+-([a-z0-9_]+?)-/.exec(file)![1]!;
    const values = Object.entries(json.value as Record<string, number>).sort(([a], [b]) => Number(a) - Number(b));
    const latest = values[values.length - 1]![1];
    t.equal(docs.length, 1, `${file}: one series`);
    const [doc] = docs;
    t.match(doc!.source_id, new RegExp(`^elstat:${dataset}:.*\\bEL$`), `${file}: the dataset and Greece name it`);
    t.ok(doc!.title.startsWith(`${json.label}:`), `${file}: titled by the dataset's label`);
    t.equal(Date.parse(doc!.published_at), Date.parse(json.updated.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')), `${file}: published when Eurostat updated it`);
    t.ok(doc!.summary.includes(String(latest)), `${file}: the summary gives the latest value, ${latest}`);
  }
});
