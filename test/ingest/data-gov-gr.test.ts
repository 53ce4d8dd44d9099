// data.gov.gr API bodies: the demo corpus's (data/demo/data_gov_gr, records in the repository) and the
// samples of ../shared/fixtures/data_gov_gr where they are.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { contentTypeForFile, data_gov_gr, datasetFromFileName } from '../../ingest/sources/data_gov_gr/index.js';
import type { DataGovGrRecord } from '../../ingest/sources/data_gov_gr/index.js';
import { qualityScore } from '../../ingest/quality.js';
import { MalformedRecordError } from '../../ingest/sources/types.js';
import { demoBodies } from '../helpers/demo-records.js';
import { FIXTURES, NEEDS_FIXTURES } from '../helpers/paths.js';

const fixture = (name: string) => readFileSync(path.join(FIXTURES, 'data_gov_gr', name), 'utf8');

t.test('when the mdg_emvolio fixture is parsed with its dataset tag, then one record holds the day and both rows', { skip: NEEDS_FIXTURES }, async (t) => {
  const parsed = data_gov_gr.parse(fixture('mdg_emvolio_sample.json'), 'application/json; dataset=mdg_emvolio');
  t.equal(parsed.length, 1);
  const record = parsed[0].record as DataGovGrRecord;
  t.equal(record.dataset, 'mdg_emvolio');
  t.equal(record.period, '2021-04-22');
  t.equal(record.granularity, 'day');
  t.same(
    record.rows.map((r) => r.areaid),
    [701, 901],
  );
  t.equal(parsed[0].original.contentType, 'application/json');
  t.same(JSON.parse(parsed[0].original.body.toString('utf8')), JSON.parse(fixture('mdg_emvolio_sample.json')), 'original holds the rows of the period');
});

t.test(
  'when the mdg_emvolio record is normalized, then the document is the day release with totals and one line per area',
  { skip: NEEDS_FIXTURES },
  async (t) => {
    const [{ record }] = data_gov_gr.parse(fixture('mdg_emvolio_sample.json'), 'application/json; dataset=mdg_emvolio');
    const doc = data_gov_gr.normalize(record);
    const { quality_score, ...rest } = doc;
    t.strictSame(rest, {
      source_id: 'data_gov_gr:mdg_emvolio:2021-04-22',
      source: 'data_gov_gr',
      country: 'GR',
      title: 'Εμβολιασμοί COVID-19 ανά περιφερειακή ενότητα — 2021-04-22',
      doc_type: 'dataset_release',
      doc_category: 'open_data',
      published_at: '2021-04-22T00:00:00Z',
      source_url: 'https://data.gov.gr/datasets/mdg_emvolio/',
      language: 'el',
      content: [
        'Εμβολιασμοί COVID-19 ανά περιφερειακή ενότητα — 2021-04-22',
        'Σύνολο δεδομένων data.gov.gr: mdg_emvolio · περίοδος αναφοράς 2021-04-22 · 2 εγγραφές',
        'Σύνολα: dailydose1 = 1719 · dailydose2 = 278 · daytotal = 1997 · totaldistinctpersons = 79065 · totaldose1 = 79065 · totaldose2 = 24642 · totalvaccinations = 103707',
        'Εγγραφές:',
        '- ΑΙΤΩΛΟΑΚΑΡΝΑΝΙΑΣ: areaid = 701 · dailydose1 = 665 · dailydose2 = 171 · daydiff = 118 · daytotal = 836 · totaldistinctpersons = 27193 · totaldose1 = 27193 · totaldose2 = 7111 · totalvaccinations = 34304',
        '- ΑΝΑΤΟΛΙΚΗΣ ΑΤΤΙΚΗΣ: areaid = 901 · dailydose1 = 1054 · dailydose2 = 107 · daydiff = -39 · daytotal = 1161 · totaldistinctpersons = 51872 · totaldose1 = 51872 · totaldose2 = 17531 · totalvaccinations = 69403',
      ].join('\n'),
      summary:
        'Εμβολιασμοί COVID-19 ανά περιφερειακή ενότητα, 2021-04-22: 2 εγγραφές; σύνολα dailydose1 = 1719 · dailydose2 = 278 · daytotal = 1997 · totaldistinctpersons = 79065 · totaldose1 = 79065 · totaldose2 = 24642 · totalvaccinations = 103707.',
      entities: { afm: [], ada: [], names: [] },
      parties: [],
      procedure_type: null,
      tenders_received: null,
      act_date: null,
      amount: null,
      cpv: [],
      region: null,
      sector: 'health',
    });
    t.equal(quality_score, qualityScore(rest));
    t.ok(quality_score > 0 && quality_score <= 1);
  },
);

t.test('when a body carries no dataset tag, then a known dataset is recognised by its fields', { skip: NEEDS_FIXTURES }, async (t) => {
  const parsed = data_gov_gr.parse(fixture('mdg_emvolio_sample.json'));
  t.equal((parsed[0].record as DataGovGrRecord).dataset, 'mdg_emvolio');
  const efet = data_gov_gr.parse(fixture('efet_inspections_sample.json'), 'application/json');
  t.same(
    efet.map((p) => (p.record as DataGovGrRecord).dataset),
    ['efet_inspections', 'efet_inspections'],
  );
});

t.test('when the efet_inspections fixture is normalized, then there is one document per year dated 1 January', { skip: NEEDS_FIXTURES }, async (t) => {
  const docs = data_gov_gr
    .parse(fixture('efet_inspections_sample.json'), 'application/json; dataset=efet_inspections')
    .map((p) => data_gov_gr.normalize(p.record));
  t.same(
    docs.map((d) => d.source_id),
    ['data_gov_gr:efet_inspections:2018', 'data_gov_gr:efet_inspections:2019'],
  );
  t.same(
    docs.map((d) => d.published_at),
    ['2018-01-01T00:00:00Z', '2019-01-01T00:00:00Z'],
  );
  t.equal(docs[0].title, 'Έλεγχοι ΕΦΕΤ σε επιχειρήσεις τροφίμων — 2018');
  t.equal(docs[1].content.split('\n')[4], '- inspections = 8586 · violations = 1296 · violating_organizations = 778 · penalties = 1964030.75');
  t.match(docs[0].content, /Σύνολα: inspections = 8987 · violations = 1092 · violating_organizations = 646 · penalties = 1482227\.75/);
  t.equal(docs[0].sector, 'health');
});

t.test('when the upstream error body or a truncated body is parsed, then parse throws', { skip: NEEDS_FIXTURES }, async (t) => {
  t.throws(() => data_gov_gr.parse(fixture('error_400_invalid_type.json'), 'application/json; dataset=mdg_emvolio'), /expected a JSON array/);
  const body = fixture('mdg_emvolio_sample.json');
  t.throws(() => data_gov_gr.parse(body.slice(0, body.length / 2), 'application/json; dataset=mdg_emvolio'), /not valid JSON/);
  t.throws(() => data_gov_gr.parse('[1, 2]', 'application/json; dataset=mdg_emvolio'), /must be an object/);
});

t.test('when an untagged body matches no known dataset, then parse refuses it; an empty array yields nothing', async (t) => {
  t.throws(() => data_gov_gr.parse('[{"foo":1,"date":"2024-01-01"}]'), /cannot tell which dataset/);
  t.same(data_gov_gr.parse('[]'), []);
});

t.test('when an unprofiled dataset is tagged, then its rows are grouped by the date field they carry', async (t) => {
  const body = JSON.stringify([
    { date: '2024-03-02T00:00:00', count: 3, organization: 'Α' },
    { date: '2024-03-01T00:00:00', count: 1, organization: 'Β' },
    { date: '2024-03-02T00:00:00', count: 5, organization: 'Γ' },
  ]);
  const parsed = data_gov_gr.parse(body, 'application/json; charset=utf-8; dataset=diavgeia-organization');
  t.same(
    parsed.map((p) => [(p.record as DataGovGrRecord).period, (p.record as DataGovGrRecord).rows.length]),
    [
      ['2024-03-01', 1],
      ['2024-03-02', 2],
    ],
  );
  const doc = data_gov_gr.normalize(parsed[1].record);
  t.equal(doc.source_id, 'data_gov_gr:diavgeia-organization:2024-03-02');
  t.equal(doc.title, 'data.gov.gr: diavgeia-organization — 2024-03-02');
  t.equal(doc.sector, null);
});

t.test('when rows carry no usable reference date, then normalize reports a malformed record', async (t) => {
  const parsed = data_gov_gr.parse('[{"referencedate":null,"areaid":1,"totalvaccinations":2}]', 'application/json; dataset=mdg_emvolio');
  t.equal((parsed[0].record as DataGovGrRecord).period, null);
  t.throws(() => data_gov_gr.normalize(parsed[0].record), MalformedRecordError);
  t.throws(() => data_gov_gr.normalize({ nope: true }), MalformedRecordError);
});

t.test('when a saved body is replayed from a file, then its file name names the dataset', { skip: NEEDS_FIXTURES }, async (t) => {
  t.equal(datasetFromFileName('/x/mdg_emvolio.json'), 'mdg_emvolio');
  t.equal(datasetFromFileName('mdg_emvolio-2021-04-22.json'), 'mdg_emvolio');
  t.equal(datasetFromFileName('sailing_traffic_2025-01-01_2025-01-30.json'), 'sailing_traffic');
  t.equal(datasetFromFileName('public-administration-evaluation-2021-04-22.json'), 'public-administration-evaluation');
  t.equal(contentTypeForFile('mdg_emvolio-2021-04-22.json'), 'application/json; dataset=mdg_emvolio');
  t.equal(data_gov_gr.replayContentType?.('dir/sailing_traffic.json'), 'application/json; dataset=sailing_traffic', 'the module hook the replay uses');
  const parsed = data_gov_gr.parse(fixture('efet_inspections_sample.json'), contentTypeForFile('efet_inspections.json'));
  t.equal(parsed.length, 2);
});

t.test(
  "when a body is tagged with an unknown dataset but its rows are a known dataset's, then parse refuses it, naming both",
  { skip: NEEDS_FIXTURES },
  async (t) => {
    // efet_inspections rows saved as foo.json filed themselves as data_gov_gr:foo:2023 and so on.
    t.throws(
      () => data_gov_gr.parse(fixture('efet_inspections_sample.json'), contentTypeForFile('foo.json')),
      /data_gov_gr: the rows are those of efet_inspections, but the body is tagged foo \(a saved file named for another dataset\?\)/,
    );
    t.equal(
      data_gov_gr.parse(fixture('efet_inspections_sample.json'), contentTypeForFile('efet_inspections-2024-01-01.json')).length,
      2,
      'the right name is read',
    );
  },
);

// Each dataset's reference date, as data.gov.gr's API names it: a release is a day's rows (a year's for EFET).
const REFERENCE: Record<string, (row: any) => string> = {
  efet_inspections: (row) => String(row.year),
  internet_traffic: (row) => row.date.slice(0, 10),
  mcp_forest_fires: (row) => row.start_time.slice(0, 10),
  mdg_emvolio: (row) => row.referencedate.slice(0, 10),
  sailing_traffic: (row) => row.date.slice(0, 10),
};

t.test('when the demo bodies are replayed, then each is one document per day (per year for EFET) of its dataset, named by the file', async (t) => {
  const bodies = demoBodies('data_gov_gr', data_gov_gr);
  t.same([...new Set(bodies.map((b) => /^[a-z_]+?(?=_\d{4}-|\.json$)/.exec(b.file)![0]))].sort(), Object.keys(REFERENCE), 'every dataset of the demo');
  for (const { file, json, docs } of bodies) {
    const dataset = /^[a-z_]+?(?=_\d{4}-|\.json$)/.exec(file)![0];
    const periods = [...new Set((json as any[]).map(REFERENCE[dataset]!))].sort();
    t.strictSame(
      docs.map((d) => [d.source_id, d.published_at]),
      periods.map((p) => [`data_gov_gr:${dataset}:${p}`, `${p.length === 4 ? `${p}-01-01` : p}T00:00:00Z`]),
      `${file}: ${periods.length} releases`,
    );
  }
});
