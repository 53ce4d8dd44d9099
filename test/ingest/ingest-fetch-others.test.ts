// The fetchers of data_gov_gr, mitos, geodata, rae and elstat against a loopback HTTP server that answers
// in each upstream's own format: paging (mitos next_page, CKAN start/rows, WFS startIndex, data.gov.gr date
// windows), checkpoints, and the retry rules (429 and 5xx retried, 4xx fatal). Sleeps are injected.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { HttpClient, UpstreamError } from '../../ingest/http.js';
import { createDataGovGrSource } from '../../ingest/sources/data_gov_gr/index.js';
import { createElstatSource } from '../../ingest/sources/elstat/index.js';
import { createGeodataSource } from '../../ingest/sources/geodata/index.js';
import { createMitosSource } from '../../ingest/sources/mitos/index.js';
import { createRaeSource, hashFeature } from '../../ingest/sources/rae/index.js';
import type { Checkpoint, FetchedPage, SourceModule } from '../../ingest/sources/types.js';
import { createLogger } from '../../lib/logger.js';
import { startUpstream } from '../helpers/loopback-upstream.js';
import { FIXTURES, skipWithoutFixtures } from '../helpers/paths.js';

skipWithoutFixtures();

interface Reply {
  status?: number;
  body: string;
  contentType?: string;
  headers?: Record<string, string>;
}
interface Hit {
  path: string;
  query: URLSearchParams;
}
type Handler = (hit: Hit, n: number) => Reply;

/** The shared loopback upstream; `handler` sees each request (and its 0-based number) and says what to answer. */
async function replay(t: Test, handler: Handler): Promise<{ baseUrl: string; hits: Hit[] }> {
  const upstream = await startUpstream((req, n) => {
    const reply = handler(req, n);
    return { status: reply.status, body: reply.body, headers: { 'content-type': reply.contentType ?? 'application/json; charset=utf-8', ...reply.headers } };
  });
  t.teardown(upstream.close);
  return { baseUrl: upstream.url, hits: upstream.requests };
}

function context(baseUrl: string, opts: { checkpoint?: Checkpoint | null; since?: string | null; now?: string } = {}) {
  const sleeps: number[] = [];
  const client = new HttpClient({ retries: 3, baseDelayMs: 10, intervalCap: 1000, intervalMs: 1, sleep: async (ms) => void sleeps.push(ms) });
  return {
    sleeps,
    ctx: {
      http: client,
      baseUrl,
      since: opts.since ?? null,
      checkpoint: opts.checkpoint ?? null,
      now: new Date(opts.now ?? '2024-03-10T12:00:00Z'),
      log: createLogger('silent'),
    },
  };
}

async function collect(source: SourceModule, ctx: ReturnType<typeof context>['ctx']): Promise<FetchedPage[]> {
  const pages: FetchedPage[] = [];
  for await (const page of source.fetch(ctx)) pages.push(page);
  return pages;
}

const fixture = (dir: string, name: string) => readFileSync(path.join(FIXTURES, dir, name), 'utf8');

// ---------------------------------------------------------------- data.gov.gr

const dataGovGr = createDataGovGrSource({ datasets: ['mdg_emvolio', 'efet_inspections'], windowDays: 5, initialLookbackDays: 3 });
const dataGovGrHandler: Handler = (hit) => {
  if (hit.path === '/api/v1/query/mdg_emvolio') {
    return { body: hit.query.get('date_from') === '2024-03-01' ? fixture('data_gov_gr', 'mdg_emvolio_sample.json') : '[]' };
  }
  if (hit.path === '/api/v1/query/efet_inspections') return { body: fixture('data_gov_gr', 'efet_inspections_sample.json') };
  return { status: 404, body: '{"detail":"Not found."}' };
};

t.test('when data.gov.gr is walked from a checkpoint, then each date window is one request and each dataset keeps its own checkpoint', async (t) => {
  const { baseUrl, hits } = await replay(t, dataGovGrHandler);
  const { ctx, sleeps } = context(baseUrl, { checkpoint: { datasets: { mdg_emvolio: '2024-03-01' } } });
  const pages = await collect(dataGovGr, ctx);
  t.same(
    hits.map((h) => `${h.path}?${h.query}`),
    [
      '/api/v1/query/mdg_emvolio?date_from=2024-03-01&date_to=2024-03-05',
      '/api/v1/query/mdg_emvolio?date_from=2024-03-06&date_to=2024-03-10',
      '/api/v1/query/efet_inspections?',
    ],
  );
  t.same(
    pages.map((p) => p.checkpoint),
    [
      { datasets: { mdg_emvolio: '2024-03-05' } },
      { datasets: { mdg_emvolio: '2024-03-10' } },
      { datasets: { mdg_emvolio: '2024-03-10', efet_inspections: '2024-03-10' } },
    ],
  );
  t.same(
    pages.map((p) => p.contentType),
    [
      'application/json; charset=utf-8; dataset=mdg_emvolio',
      'application/json; charset=utf-8; dataset=mdg_emvolio',
      'application/json; charset=utf-8; dataset=efet_inspections',
    ],
  );
  t.equal(pages[0].body, fixture('data_gov_gr', 'mdg_emvolio_sample.json'), 'the body exactly as received');
  const docs = pages.flatMap((p) => dataGovGr.parse(p.body, p.contentType)).map((r) => dataGovGr.normalize(r.record));
  t.same(
    docs.map((d) => d.source_id),
    ['data_gov_gr:mdg_emvolio:2021-04-22', 'data_gov_gr:efet_inspections:2018', 'data_gov_gr:efet_inspections:2019'],
  );
  t.same(sleeps, []);
});

t.test('when data.gov.gr has no checkpoint, then the first run looks back; --since overrides the checkpoint', async (t) => {
  const { baseUrl, hits } = await replay(t, dataGovGrHandler);
  await collect(dataGovGr, context(baseUrl).ctx);
  t.same(
    hits.slice(0, 1).map((h) => [h.query.get('date_from'), h.query.get('date_to')]),
    [['2024-03-07', '2024-03-10']],
  );
  hits.length = 0;
  await collect(dataGovGr, context(baseUrl, { checkpoint: { datasets: { mdg_emvolio: '2024-03-09' } }, since: '2024-03-08' }).ctx);
  t.same(hits[0].query.get('date_from'), '2024-03-08');
});

// ---------------------------------------------------------------- mitos

const mitos = createMitosSource({ pageSize: 2 });
const MITOS_LIST = [
  { id: '101', title: { el: 'Α' }, last_updated: '2024-01-01T10:00:00Z' },
  { id: '102', title: { el: 'Β' }, last_updated: '2024-02-01T10:00:00Z' },
  { id: '103', title: { el: 'Γ' }, last_updated: '2024-03-01T10:00:00Z' },
  { id: '104', title: { el: 'Δ' }, last_updated: '2024-03-02T10:00:00Z' },
  { id: '105', title: { el: 'Ε' }, last_updated: '2024-03-03T10:00:00Z' },
];
const mitosHandler: Handler = (hit) => {
  if (hit.path === '/v1/services') {
    const page = Number(hit.query.get('page'));
    const limit = Number(hit.query.get('limit'));
    const data = MITOS_LIST.slice((page - 1) * limit, page * limit);
    const next = page * limit < MITOS_LIST.length ? page + 1 : null;
    return { body: JSON.stringify({ data, success: true, total: MITOS_LIST.length, next_page: next, current_page: page, limit }) };
  }
  const m = /^\/v1\/services-extended\/(\d+)$/.exec(hit.path);
  if (m && m[1] !== '104') {
    const s = MITOS_LIST.find((x) => x.id === m[1])!;
    return {
      body: JSON.stringify({
        data: { ...s, metadata: { process: { description: { el: `Περιγραφή ${s.id}` }, org_owner: { title: 'ΦΟΡΕΑΣ' } } } },
        success: true,
      }),
    };
  }
  return { status: 404, body: '{"success":false,"message":"Not found"}' };
};

t.test('when Mitos is paged through next_page, then only services changed since the checkpoint are fetched in detail', async (t) => {
  const { baseUrl, hits } = await replay(t, mitosHandler);
  const checkpoint = { seen: { '101': '2024-01-01T10:00:00Z', '102': '2023-12-31T00:00:00Z' } };
  const pages = await collect(mitos, context(`${baseUrl}/v1`, { checkpoint }).ctx);
  t.same(
    hits.map((h) => `${h.path}${h.query.size ? `?${h.query}` : ''}`),
    [
      '/v1/services?page=1&limit=2',
      '/v1/services-extended/102',
      '/v1/services?page=2&limit=2',
      '/v1/services-extended/103',
      '/v1/services-extended/104',
      '/v1/services?page=3&limit=2',
      '/v1/services-extended/105',
    ],
  );
  t.same(
    pages.map((p) => mitos.normalize(mitos.parse(p.body, p.contentType)[0].record).source_id),
    ['mitos:102', 'mitos:103', 'mitos:105'],
  );
  t.same(
    pages.at(-1)!.checkpoint,
    {
      seen: { '101': '2024-01-01T10:00:00Z', '102': '2024-02-01T10:00:00Z', '103': '2024-03-01T10:00:00Z', '105': '2024-03-03T10:00:00Z' },
    },
    'the withdrawn service (404) is left out so the next run tries again',
  );
  t.same(pages[0].checkpoint, { seen: { '101': '2024-01-01T10:00:00Z', '102': '2024-02-01T10:00:00Z' } });

  hits.length = 0;
  const again = await collect(mitos, context(`${baseUrl}/v1`, { checkpoint: pages.at(-1)!.checkpoint }).ctx);
  t.same(again, [], 'nothing changed, nothing yielded');
  t.same(
    hits.filter((h) => h.path.includes('extended')).map((h) => h.path),
    ['/v1/services-extended/104'],
  );
});

t.test('when Mitos runs with --since, then services updated on or after that day are fetched whatever the checkpoint', async (t) => {
  const { baseUrl, hits } = await replay(t, mitosHandler);
  const pages = await collect(mitos, context(`${baseUrl}/v1`, { since: '2024-03-01', checkpoint: { seen: { '103': '2024-03-01T10:00:00Z' } } }).ctx);
  t.same(
    hits.filter((h) => h.path.includes('extended')).map((h) => h.path.split('/').pop()),
    ['103', '104', '105'],
  );
  t.equal(pages.length, 2);
});

// ---------------------------------------------------------------- geodata

const geodata = createGeodataSource({ rows: 2 });
const CKAN_DATASETS = [1, 2, 3, 4, 5].map((i) => ({
  id: `00000000-0000-4000-8000-00000000000${i}`,
  name: `dataset-${i}`,
  title: `Σύνολο ${i}`,
  notes: null,
  metadata_modified: `2024-03-0${i}T10:00:00.123456`,
  organization: { title: 'ΟΚΧΕ' },
  resources: [],
  tags: [],
}));
const geodataHandler: Handler = (hit) => {
  if (hit.path !== '/api/3/action/package_search') return { status: 404, body: '{"success":false,"error":{"message":"Not found"}}' };
  const start = Number(hit.query.get('start'));
  const rows = Number(hit.query.get('rows'));
  return {
    body: JSON.stringify({
      help: 'h',
      success: true,
      result: { count: CKAN_DATASETS.length, sort: hit.query.get('sort'), results: CKAN_DATASETS.slice(start, start + rows) },
    }),
  };
};

t.test('when geodata is paged with start/rows, then every page is yielded and the checkpoint is the newest modification', async (t) => {
  const { baseUrl, hits } = await replay(t, geodataHandler);
  const pages = await collect(geodata, context(baseUrl, { checkpoint: { modified_since: '2024-02-01T00:00:00Z' } }).ctx);
  t.same(
    hits.map((h) => h.query.get('start')),
    ['0', '2', '4'],
  );
  t.same(
    hits.map((h) => h.query.get('rows')),
    ['2', '2', '2'],
  );
  t.equal(hits[0].query.get('fq'), 'metadata_modified:[2024-02-01T00:00:00Z TO NOW]');
  t.equal(hits[0].query.get('sort'), 'metadata_modified asc');
  t.equal(hits[0].query.get('q'), '*:*');
  t.same(
    pages.map((p) => p.checkpoint),
    [{ modified_since: '2024-03-02T10:00:00Z' }, { modified_since: '2024-03-04T10:00:00Z' }, { modified_since: '2024-03-05T10:00:00Z' }],
  );
  t.same(
    pages
      .flatMap((p) => geodata.parse(p.body))
      .map((r) => geodata.normalize(r.record).source_url)
      .slice(0, 2),
    ['https://geodata.gov.gr/dataset/dataset-1', 'https://geodata.gov.gr/dataset/dataset-2'],
  );
});

t.test('when geodata runs with --since or no checkpoint, then the window starts there or at the beginning', async (t) => {
  const { baseUrl, hits } = await replay(t, geodataHandler);
  await collect(geodata, context(baseUrl, { since: '2024-03-04', checkpoint: { modified_since: '2024-02-01T00:00:00Z' } }).ctx);
  t.equal(hits[0].query.get('fq'), 'metadata_modified:[2024-03-04T00:00:00Z TO NOW]');
  hits.length = 0;
  await collect(geodata, context(baseUrl).ctx);
  t.equal(hits[0].query.get('fq'), 'metadata_modified:[* TO NOW]');
});

t.test('when a geodata page holds entries that are no dataset, then paging counts them and they reach normalize, to be counted as malformed', async (t) => {
  // Entry 2 of 5 is a bare string, entry 3 an object without id or name.
  const results = [CKAN_DATASETS[0], 'oops', { title: 'χωρίς ταυτότητα' }, CKAN_DATASETS[3], CKAN_DATASETS[4]];
  const { baseUrl, hits } = await replay(t, (hit) => {
    const start = Number(hit.query.get('start'));
    return { body: JSON.stringify({ help: 'h', success: true, result: { count: results.length, results: results.slice(start, start + 2) } }) };
  });
  const pages = await collect(geodata, context(baseUrl).ctx);
  t.same(
    hits.map((h) => h.query.get('start')),
    ['0', '2', '4'],
    'the offset moves by what the page held, not by what was usable',
  );
  const records = pages.flatMap((p) => geodata.parse(p.body));
  t.equal(records.length, 5, 'every entry is a record');
  const names = records.map((r) => {
    try {
      return geodata.normalize(r.record).source_id;
    } catch (err) {
      return (err as Error).name;
    }
  });
  t.same(names, [
    'geodata:00000000-0000-4000-8000-000000000001',
    'MalformedRecordError',
    'MalformedRecordError',
    'geodata:00000000-0000-4000-8000-000000000004',
    'geodata:00000000-0000-4000-8000-000000000005',
  ]);
});

t.test('when CKAN answers success:false with HTTP 200, then the fetch fails as an upstream error', async (t) => {
  const { baseUrl } = await replay(t, () => ({ body: '{"help":"h","success":false,"error":{"__type":"Search Query Error","message":"bad fq"}}' }));
  await t.rejects(collect(geodata, context(baseUrl).ctx), UpstreamError);
});

// ---------------------------------------------------------------- rae

const rae = createRaeSource({ layers: ['rae_status:LAYER_A', 'rae_status:LAYER_B'], count: 2 });
const feature = (layer: string, n: number, status = 'ΕΝ ΙΣΧΥΙ') => ({
  type: 'Feature',
  id: `${layer}.${n}`,
  geometry: {
    type: 'MultiPolygon',
    coordinates: [
      [
        [
          [23, 38],
          [23.1, 38],
          [23.1, 38.1],
          [23, 38],
        ],
      ],
    ],
  },
  properties: {
    aa: `Γ-0${n}`,
    company: `ΕΤΑΙΡΕΙΑ ${n} ΑΕ`,
    thesh: 'ΘΕΣΗ',
    kal_perifereia: 'ΑΤΤΙΚΗΣ',
    power_mw: n,
    imerominia: '2020-01-0' + n,
    katastash_descr: status,
  },
});
const LAYER_A = [feature('LAYER_A', 1), feature('LAYER_A', 2, 'ΑΚΥΡΩΣΗ'), feature('LAYER_A', 3)];
const LAYER_B = [feature('LAYER_B', 4), feature('LAYER_B', 5)];
const raeHandler: Handler = (hit) => {
  const all = hit.query.get('typeNames') === 'rae_status:LAYER_A' ? LAYER_A : LAYER_B;
  const start = Number(hit.query.get('startIndex'));
  const features = all.slice(start, start + Number(hit.query.get('count')));
  return {
    body: JSON.stringify({
      type: 'FeatureCollection',
      features,
      totalFeatures: all.length,
      numberMatched: all.length,
      numberReturned: features.length,
      timeStamp: '2024-03-10T12:00:00.000Z',
      crs: null,
    }),
  };
};

t.test('when RAE layers are paged with startIndex, then each page is yielded and the snapshot diff reports the changes', async (t) => {
  const { baseUrl, hits } = await replay(t, raeHandler);
  const previous = {
    snapshots: {
      LAYER_A: { 'Γ-01': hashFeature(LAYER_A[0] as never), 'Γ-02': 'stale-hash', 'Γ-09': 'gone' },
      LAYER_B: { 'Γ-04': hashFeature(LAYER_B[0] as never), 'Γ-05': hashFeature(LAYER_B[1] as never) },
    },
  };
  const pages = await collect(rae, context(`${baseUrl}/geoserver/wfs`, { checkpoint: previous }).ctx);
  t.same(
    hits.map((h) => [h.path, h.query.get('typeNames'), h.query.get('startIndex'), h.query.get('count')]),
    [
      ['/geoserver/wfs', 'rae_status:LAYER_A', '0', '2'],
      ['/geoserver/wfs', 'rae_status:LAYER_A', '2', '2'],
      ['/geoserver/wfs', 'rae_status:LAYER_B', '0', '2'],
    ],
    'numberMatched ends each layer without an empty extra request',
  );
  for (const h of hits) {
    t.same(
      [h.query.get('service'), h.query.get('version'), h.query.get('request'), h.query.get('outputFormat'), h.query.get('srsName')],
      ['WFS', '2.0.0', 'GetFeature', 'application/json', 'EPSG:4326'],
    );
  }
  t.same(
    pages.map((p) => p.contentType),
    ['application/json; charset=utf-8; layer=LAYER_A', 'application/json; charset=utf-8; layer=LAYER_A', 'application/json; charset=utf-8; layer=LAYER_B'],
  );
  t.same(pages[0].checkpoint, { snapshots: previous.snapshots, changes: {} }, 'mid-layer, the old snapshot stands');
  const last = pages.at(-1)!.checkpoint as { snapshots: Record<string, Record<string, string>>; changes: unknown };
  t.same(last.changes, {
    LAYER_A: { added: 1, changed: 1, removed: ['rae:LAYER_A:Γ-09'] },
    LAYER_B: { added: 0, changed: 0, removed: [] },
  });
  t.same(Object.keys(last.snapshots.LAYER_A).sort(), ['Γ-01', 'Γ-02', 'Γ-03']);
  t.equal(last.snapshots.LAYER_A['Γ-02'], hashFeature(LAYER_A[1] as never));
  const ids = pages.flatMap((p) => rae.parse(p.body, p.contentType)).map((r) => rae.normalize(r.record).source_id);
  t.same(ids, ['rae:LAYER_A:Γ-01', 'rae:LAYER_A:Γ-02', 'rae:LAYER_A:Γ-03', 'rae:LAYER_B:Γ-04', 'rae:LAYER_B:Γ-05']);
});

t.test('when the WFS caps its pages below count, then numberMatched keeps the paging going to the end', async (t) => {
  const { baseUrl, hits } = await replay(t, (hit) => {
    const start = Number(hit.query.get('startIndex'));
    return { body: JSON.stringify({ type: 'FeatureCollection', numberMatched: LAYER_A.length, features: LAYER_A.slice(start, start + 1) }) };
  });
  const single = createRaeSource({ layers: ['rae_status:LAYER_A'], count: 2 });
  const pages = await collect(single, context(`${baseUrl}/geoserver/wfs`).ctx);
  t.same(
    hits.map((h) => h.query.get('startIndex')),
    ['0', '1', '2'],
  );
  t.same(Object.keys((pages.at(-1)!.checkpoint as { snapshots: Record<string, object> }).snapshots.LAYER_A), ['Γ-01', 'Γ-02', 'Γ-03']);
});

t.test('when the WFS does not say numberMatched, then a short page is the last', async (t) => {
  const { baseUrl, hits } = await replay(t, (hit) => {
    const start = Number(hit.query.get('startIndex'));
    return { body: JSON.stringify({ type: 'FeatureCollection', numberMatched: 'unknown', features: LAYER_A.slice(start, start + 2) }) };
  });
  await collect(createRaeSource({ layers: ['rae_status:LAYER_A'], count: 2 }), context(`${baseUrl}/geoserver/wfs`).ctx);
  t.same(
    hits.map((h) => h.query.get('startIndex')),
    ['0', '2'],
  );
});

t.test('when the WFS answers an ExceptionReport with HTTP 200, then the fetch fails as an upstream error', async (t) => {
  const xml =
    '<?xml version="1.0"?><ows:ExceptionReport xmlns:ows="http://www.opengis.net/ows/1.1"><ows:Exception exceptionCode="InvalidParameterValue"><ows:ExceptionText>Unknown type</ows:ExceptionText></ows:Exception></ows:ExceptionReport>';
  const { baseUrl } = await replay(t, () => ({ body: xml, contentType: 'application/xml' }));
  await t.rejects(collect(rae, context(`${baseUrl}/geoserver/wfs`).ctx), { name: 'UpstreamError', message: /Unknown type/ });
});

// ---------------------------------------------------------------- elstat

const elstatSource = createElstatSource({
  indicators: [
    { dataset: 'nama_10_gdp', filters: { na_item: 'B1GQ', unit: ['CP_MEUR', 'CLV_PCH_PRE'] }, lastTimePeriod: 3 },
    { dataset: 'une_rt_m', filters: { sex: 'T', age: 'TOTAL', s_adj: 'SA', unit: 'PC_ACT' }, lastTimePeriod: 2 },
  ],
});
const jsonStat = (dataset: string, updated: string) =>
  JSON.stringify({
    version: '2.0',
    class: 'dataset',
    label: dataset,
    source: 'ESTAT',
    updated,
    value: { '0': 1.5, '1': 2.5 },
    id: ['freq', 'geo', 'time'],
    size: [1, 1, 2],
    dimension: {
      freq: { label: 'Time frequency', category: { index: { A: 0 }, label: { A: 'Annual' } } },
      geo: { label: 'Geopolitical entity (reporting)', category: { index: { EL: 0 }, label: { EL: 'Greece' } } },
      time: { label: 'Time', category: { index: { '2022': 0, '2023': 1 } } },
    },
    extension: { id: dataset.toUpperCase(), status: { label: {} } },
  });
const elstatHandler: Handler = (hit) => {
  const dataset = hit.path.split('/').pop()!;
  if (!hit.path.startsWith('/eurostat/api/dissemination/statistics/1.0/data/')) return { status: 404, body: '{"error":{"status":404}}' };
  return { body: jsonStat(dataset, dataset === 'nama_10_gdp' ? '2024-04-19T23:00:00+0200' : '2024-03-01T11:00:00+0100') };
};

t.test('when Eurostat indicators are fetched, then releases already ingested are skipped unless --since forces them', async (t) => {
  const { baseUrl, hits } = await replay(t, elstatHandler);
  const first = await collect(elstatSource, context(baseUrl).ctx);
  t.same(
    hits.map((h) => h.path),
    ['/eurostat/api/dissemination/statistics/1.0/data/nama_10_gdp', '/eurostat/api/dissemination/statistics/1.0/data/une_rt_m'],
  );
  t.same(hits[0].query.getAll('unit'), ['CP_MEUR', 'CLV_PCH_PRE']);
  t.same([hits[0].query.get('geo'), hits[0].query.get('format'), hits[0].query.get('lang'), hits[0].query.get('lastTimePeriod')], ['EL', 'JSON', 'EN', '3']);
  t.same(
    first.map((p) => p.contentType),
    ['application/json; charset=utf-8; dataset=nama_10_gdp', 'application/json; charset=utf-8; dataset=une_rt_m'],
  );
  const cp = first.at(-1)!.checkpoint;
  t.same(cp, {
    updated: {
      'nama_10_gdp?na_item=B1GQ&unit=CP_MEUR+CLV_PCH_PRE&last=3': '2024-04-19T21:00:00Z',
      'une_rt_m?age=TOTAL&s_adj=SA&sex=T&unit=PC_ACT&last=2': '2024-03-01T10:00:00Z',
    },
  });
  t.same(
    first.flatMap((p) => elstatSource.parse(p.body, p.contentType)).map((r) => elstatSource.normalize(r.record).source_id),
    ['elstat:nama_10_gdp:A.EL', 'elstat:une_rt_m:A.EL'],
  );

  const stale = { updated: { ...(cp.updated as Record<string, string>), 'une_rt_m?age=TOTAL&s_adj=SA&sex=T&unit=PC_ACT&last=2': '2024-02-01T10:00:00Z' } };
  const second = await collect(elstatSource, context(baseUrl, { checkpoint: stale }).ctx);
  t.same(
    second.map((p) => p.contentType.split('dataset=')[1]),
    ['une_rt_m'],
    'only the indicator with a new release',
  );
  const forced = await collect(elstatSource, context(baseUrl, { checkpoint: cp, since: '2024-01-01' }).ctx);
  t.equal(forced.length, 2);
});

// ---------------------------------------------------------------- retries, for every fetcher

const SCENARIOS: Array<{ name: string; source: SourceModule; handler: Handler; base: string; pages: number }> = [
  { name: 'data_gov_gr', source: dataGovGr, handler: dataGovGrHandler, base: '', pages: 2 },
  { name: 'mitos', source: mitos, handler: mitosHandler, base: '/v1', pages: 4 },
  { name: 'geodata', source: geodata, handler: geodataHandler, base: '', pages: 3 },
  { name: 'rae', source: rae, handler: raeHandler, base: '/geoserver/wfs', pages: 3 },
  { name: 'elstat', source: elstatSource, handler: elstatHandler, base: '', pages: 2 },
];

for (const s of SCENARIOS) {
  t.test(`when ${s.name} first answers 429 with Retry-After, then the client waits that long and the run completes`, async (t) => {
    const { baseUrl, hits } = await replay(t, (hit, n) =>
      n === 0 ? { status: 429, body: '{"detail":"Too many requests"}', headers: { 'retry-after': '2' } } : s.handler(hit, n),
    );
    const { ctx, sleeps } = context(`${baseUrl}${s.base}`);
    const pages = await collect(s.source, ctx);
    t.equal(pages.length, s.pages);
    t.same(sleeps, [2000]);
    t.equal(`${hits[0].path}?${hits[0].query}`, `${hits[1].path}?${hits[1].query}`, 'the same request again');
  });

  t.test(`when ${s.name} first answers 503, then the client backs off and the run completes`, async (t) => {
    const { baseUrl } = await replay(t, (hit, n) => (n === 0 ? { status: 503, body: 'Service Unavailable', contentType: 'text/plain' } : s.handler(hit, n)));
    const { ctx, sleeps } = context(`${baseUrl}${s.base}`);
    const pages = await collect(s.source, ctx);
    t.equal(pages.length, s.pages);
    t.equal(sleeps.length, 1);
    t.ok(sleeps[0] >= 5 && sleeps[0] <= 10, `backoff within base delay bounds (${sleeps[0]})`);
  });

  t.test(`when ${s.name} answers 400, then the fetch fails at once without retrying`, async (t) => {
    const { baseUrl, hits } = await replay(t, () => ({ status: 400, body: '{"type":["Το xml δεν είναι έγκυρη επιλογή."]}' }));
    const { ctx, sleeps } = context(`${baseUrl}${s.base}`);
    await t.rejects(collect(s.source, ctx), { name: 'UpstreamError', status: 400 });
    t.equal(hits.length, 1);
    t.same(sleeps, []);
  });
}

t.test('when an upstream body is in another charset or starts with a byte-order mark, then it is read as the upstream wrote it', async (t) => {
  const text = '{"title":"Απόφαση Δήμου Αθηναίων — ΑΔΑ Ω6Η2"}';
  // ISO-8859-7 and windows-1253 put the Greek block U+0384–U+03CE at 0xB4–0xFE (Ά differs: 0xB6 / 0xA2).
  const greek8 = (s: string, alphaTonos: number) =>
    Buffer.from(
      [...s].map((ch) => {
        const cp = ch.codePointAt(0)!;
        if (cp < 0x80) return cp;
        if (ch === 'Ά') return alphaTonos;
        if (cp >= 0x384 && cp <= 0x3ce) return cp - 0x2d0;
        if (ch === '—') return 0x2d; // no em dash in ISO-8859-7's Greek block: a plain hyphen
        throw new Error(`no byte for ${ch}`);
      }),
    );
  const expected = text.replace('—', '-');
  const bodies: Record<string, [string, Buffer]> = {
    '/iso': ['application/json; charset=ISO-8859-7', greek8(text, 0xb6)],
    '/win': ['application/json;charset="windows-1253"', greek8(text, 0xa2)],
    '/bom': ['application/json', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])],
    '/xml': ['application/xml', Buffer.concat([Buffer.from('<?xml version="1.0" encoding="ISO-8859-7"?>\n<t>'), greek8('Απόφαση', 0xb6), Buffer.from('</t>')])],
    '/unknown': ['application/json; charset=x-nonsense', Buffer.from(text)],
  };
  const upstream = await startUpstream((req, _i, res) => {
    const [type, bytes] = bodies[req.path];
    res.writeHead(200, { 'content-type': type, 'content-length': String(bytes.length) });
    res.end(bytes);
    return null;
  });
  t.teardown(upstream.close);
  const client = new HttpClient({ retries: 0 });
  t.same(JSON.parse((await client.request(`${upstream.url}/iso`)).body), JSON.parse(expected), 'charset=ISO-8859-7');
  t.same(JSON.parse((await client.request(`${upstream.url}/win`)).body), JSON.parse(expected), 'charset="windows-1253"');
  t.same(JSON.parse((await client.request(`${upstream.url}/bom`)).body), JSON.parse(text), 'a UTF-8 byte-order mark is dropped');
  t.equal((await client.request(`${upstream.url}/xml`)).body.split('\n')[1], '<t>Απόφαση</t>', 'the XML declaration names the charset');
  t.same(JSON.parse((await client.request(`${upstream.url}/unknown`)).body), JSON.parse(text), 'an unknown charset: UTF-8');
});
