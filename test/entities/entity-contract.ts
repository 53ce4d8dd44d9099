// GET /v1/entity over the demo corpus loaded through the real pipeline, run against each engine by
// entity-embedded.test.ts and entity-elasticsearch.test.ts: the entity index is written at ingest
// beside the document store, whichever engine the pipeline feeds.
import type { Test } from 'tap';
import { METADATA_FIELDS, type NormalizedDocument } from '../../index-mappings/document.js';
import { loadDemo } from '../../ingest/demo.js';
import { pipelineOn } from '../../ingest/runtime.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { startTestApp } from '../helpers/app.js';

const MATCH_KEYS = [...METADATA_FIELDS, 'relevance'].sort();
/** Latin capitals drawn like Greek ones, the other way round: how an ADA is typed on a Latin keyboard. */
const LATIN: Record<string, string> = { Α: 'A', Β: 'B', Ε: 'E', Ζ: 'Z', Η: 'H', Ι: 'I', Κ: 'K', Μ: 'M', Ν: 'N', Ο: 'O', Ρ: 'P', Τ: 'T', Υ: 'Y', Χ: 'X' };

export function entityContract(t: Test, engine: string, open: (t: Test) => Promise<SearchProvider>): void {
  t.test(`${engine}: entity API contract`, async (t) => {
    const search = await open(t);
    const app = await startTestApp(t, { search });
    const deps = pipelineOn(loadConfig({ PDI_DATA_DIR: app.dataDir, LOG_LEVEL: 'silent' }), app.search, app.embedder, app.ingestState, createLogger('silent'));
    t.teardown(() => deps.close());
    const load = await loadDemo(deps, { sources: ['diavgeia', 'kimdis', 'ted', 'mitos'] });
    t.same(
      load.runs.map((r) => r.status),
      ['succeeded', 'succeeded', 'succeeded', 'succeeded'],
    );

    // The oracle: the stored documents, read whole (what the entity index spares the API from doing).
    const docs = (app.documents.db.prepare('SELECT doc FROM documents').pluck().all() as string[]).map((d) => JSON.parse(d) as NormalizedDocument);
    const bySource = new Map<string, Map<string, number>>();
    for (const d of docs) {
      for (const afm of d.entities.afm) {
        const m = bySource.get(afm) ?? new Map<string, number>();
        m.set(d.source, (m.get(d.source) ?? 0) + 1);
        bySource.set(afm, m);
      }
    }
    const [afm, counts] = [...bySource].filter(([, m]) => m.size >= 3).sort((a, b) => b[1].size - a[1].size || (a[0] < b[0] ? -1 : 1))[0]!;
    const ent = app.key('enterprise');
    const get = (path: string) => app.request(path, { key: ent });

    t.test('when a recurring ΑΦΜ of the demo corpus is resolved, then its documents of every source are counted and aggregated', async (t) => {
      const res = await get(`/v1/entity/${afm}`);
      t.equal(res.status, 200);
      const body = res.body;
      t.same(body.sources, Object.fromEntries(counts), `sources of ${afm}`);
      t.ok(Object.keys(body.sources).length >= 3, 'at least three sources');
      t.equal(
        body.total,
        [...counts.values()].reduce((a, b) => a + b, 0),
      );
      t.equal(body.type, 'afm');
      t.equal(body.identifier, afm);
      t.equal(body.valid, true);
      t.same(body.afm, [afm]);
      t.ok(body.names.length >= 1, `names ${body.names}`);
      const dates = docs
        .filter((d) => d.entities.afm.includes(afm))
        .map((d) => d.published_at)
        .sort();
      t.equal(body.first_seen, dates[0]);
      t.equal(body.last_seen, dates[dates.length - 1]);
      t.ok(body.total_contract_value > 0, `contract value ${body.total_contract_value}`);
      t.ok(body.counterparties.length > 0, 'counterparties');
      for (const c of body.counterparties) t.ok(['buyer', 'supplier'].includes(c.role) && c.documents >= 1, JSON.stringify(c));
      t.equal(body.matches.length, Math.min(20, body.total), 'the default page is 20');
      for (const m of body.matches) {
        t.same(Object.keys(m).sort(), MATCH_KEYS);
        t.ok(m.relevance > 0 && m.relevance <= 1, `relevance ${m.relevance}`);
      }
      const page = await get(`/v1/entity/${afm}?type=afm&limit=5&offset=5`);
      const whole = await get(`/v1/entity/${afm}?limit=10`);
      t.same(page.body.matches, whole.body.matches.slice(5, 10), 'pages are slices of one order');
      t.equal(page.body.limit, 5);
      t.equal(page.body.offset, 5);
      t.same({ ...page.body, matches: [], limit: 0, offset: 0 }, { ...whole.body, matches: [], limit: 0, offset: 0 }, 'aggregates do not depend on the page');
    });

    t.test("when an entity's report is generated, then its counts, dates and contract value are those GET /v1/entity states", async (t) => {
      // The AFM of most contract value, and the name of the body most documents name.
      const valued = docs.filter((d) => ['award', 'contract'].includes(d.doc_category) && d.amount?.currency === 'EUR');
      const sums = new Map<string, number>();
      for (const d of valued) for (const a of d.entities.afm) sums.set(a, (sums.get(a) ?? 0) + d.amount!.value);
      const richest = [...sums].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
      for (const [identifier, type] of [
        [richest, 'afm'],
        [afm, 'afm'],
        ['ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', 'name'],
      ]) {
        const entity = (await get(`/v1/entity/${encodeURIComponent(identifier!)}?type=${type}`)).body;
        const created = await app.request('/v1/reports', { key: ent, method: 'POST', body: { entity_identifier: identifier, identifier_type: type } });
        t.equal(created.status, 201);
        await app.app.jobs.idle();
        const done = await get(`/v1/reports/${created.body.id}`);
        t.equal(done.body.status, 'completed', identifier);
        const report = JSON.parse(done.body.report_json);
        t.ok(entity.total > 0 && entity.total_contract_value > 0, `${identifier}: ${entity.total} documents, €${entity.total_contract_value}`);
        t.equal(report.documents.total, entity.total, `${identifier}: documents`);
        t.same(
          Object.fromEntries(report.sections.sources.map((s: { source: string; documents: number }) => [s.source, s.documents])),
          entity.sources,
          `${identifier}: per source`,
        );
        t.same([report.documents.first_seen, report.documents.last_seen], [entity.first_seen, entity.last_seen], `${identifier}: first and last seen`);
        t.equal(report.sections.procurement.total_value, entity.total_contract_value, `${identifier}: contract value`);
        const byYear = report.sections.procurement.totals_by_year.reduce((cents: number, y: { value: number }) => cents + Math.round(y.value * 100), 0);
        t.equal(byYear / 100, entity.total_contract_value, `${identifier}: the years add up to it`);
      }
    });

    t.test('when a name is written in Greek, capitals or Greeklish, then the same documents are found in three sources', async (t) => {
      const results = [];
      for (const name of ['ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', 'Δήμος Αθηναίων', 'dimos athinaion', 'DHMOS A8HNAIWN']) {
        const res = await get(`/v1/entity/${encodeURIComponent(name)}?type=name&limit=100`);
        t.equal(res.status, 200, name);
        t.equal(res.body.valid, null, name);
        t.equal(res.body.identifier, name, 'the identifier as sent');
        results.push(res.body);
      }
      t.ok(results[0].total >= 3 && Object.keys(results[0].sources).length >= 3, JSON.stringify(results[0].sources));
      t.ok(results[0].names.includes('ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ'));
      t.ok(results[0].afm.length >= 1, 'the ΑΦΜ the name goes with');
      for (const r of results.slice(1)) t.same(r.matches, results[0].matches);
    });

    t.test('when an ΑΔΑ is typed with Latin look-alike letters, then it resolves as the Greek one', async (t) => {
      const linked = docs.find(
        (d) => d.source === 'kimdis' && d.entities.ada.some((a) => docs.some((x) => x.source_id === `diavgeia:${a}` && /[ΑΒΕΚΜΡΤ]/.test(a))),
      )!;
      const ada = linked.entities.ada.find((a) => docs.some((x) => x.source_id === `diavgeia:${a}`))!;
      const latin = [...ada].map((c) => LATIN[c] ?? c).join('');
      t.not(latin, ada);
      const greek = await get(`/v1/entity/${encodeURIComponent(ada)}?type=ada`);
      const typed = await get(`/v1/entity/${encodeURIComponent(latin.toLowerCase())}?type=ada`);
      t.equal(typed.status, 200);
      t.same(typed.body.matches, greek.body.matches);
      t.equal(greek.body.matches[0].source_id, `diavgeia:${ada}`, 'the decision first');
      t.equal(greek.body.matches[0].relevance, 1);
      t.ok(
        greek.body.matches.some((m: { source_id: string }) => m.source_id === linked.source_id),
        'the contract naming it',
      );
    });

    t.test('when a name or an ΑΔΑ is sent without type, then the 422 says which type to add', async (t) => {
      for (const [path, detail] of [
        [
          `/v1/entity/${encodeURIComponent('ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ')}`,
          'identifier must be an AFM of 9 digits when type is afm (the default): for a name add type=name',
        ],
        [
          `/v1/entity/${encodeURIComponent('dimos athinaion')}?limit=5`,
          'identifier must be an AFM of 9 digits when type is afm (the default): for a name add type=name',
        ],
        [
          `/v1/entity/${encodeURIComponent('Ω6Η2ΟΡΡ9-Β9Ω')}`,
          'identifier must be an AFM of 9 digits when type is afm (the default): for a decision id (ΑΔΑ) add type=ada',
        ],
        ['/v1/entity/12345678', 'identifier must be an AFM of 9 digits when type is afm (the default)'],
        [`/v1/entity/${encodeURIComponent('ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ')}?type=afm`, 'identifier must be an AFM of 9 digits when type is afm'],
      ] as const) {
        const res = await get(path);
        t.same([res.status, res.body], [422, { detail }], path);
      }
    });

    t.test('when nothing matches, then 200 with total 0 and empty arrays', async (t) => {
      for (const path of [
        '/v1/entity/123456789',
        '/v1/entity/999999993',
        `/v1/entity/${encodeURIComponent('Ζζζ Ξξξ')}?type=name`,
        `/v1/entity/${encodeURIComponent('ΩΩΩΩ999-ΩΩΩ')}?type=ada`,
      ]) {
        const res = await get(path);
        t.equal(res.status, 200, path);
        t.match(
          res.body,
          { total: 0, names: [], sources: {}, first_seen: null, last_seen: null, total_contract_value: 0, counterparties: [], matches: [] },
          path,
        );
      }
      t.equal((await get('/v1/entity/123456789')).body.valid, false, 'a bad check digit is searched and said invalid');
    });

    t.test('when a parameter is malformed, then 422 naming it', async (t) => {
      for (const [path, detail] of [
        ['/v1/entity/12345678', /^identifier must be an AFM of 9 digits/],
        ['/v1/entity/09025284A', /^identifier must be an AFM of 9 digits/],
        ['/v1/entity/090252840?type=vat', /^type must be one of afm, name, ada$/],
        ['/v1/entity/090252840?type=', /^type must not be empty$/],
        ['/v1/entity/090252840?type=afm&type=name', /^type must be given once$/],
        ['/v1/entity/ABC?type=ada', /^identifier must be an ADA/],
        [`/v1/entity/${encodeURIComponent('— …')}?type=name`, /^identifier must hold a letter or a digit/],
        [`/v1/entity/${'x'.repeat(501)}?type=name`, /^identifier must be at most 500 characters$/],
        ['/v1/entity/090252840?limit=0', /^limit must be an integer from 1 to 100$/],
        ['/v1/entity/090252840?limit=101', /^limit must be an integer from 1 to 100$/],
        ['/v1/entity/090252840?offset=-1', /^offset must be an integer/],
        [`/v1/entity/${encodeURIComponent(' ')}`, /^identifier must not be empty$/],
      ] as const) {
        const res = await get(path);
        t.equal(res.status, 422, path);
        t.match(res.body.detail, detail, path);
      }
    });

    t.test('when a key below Enterprise asks, then 403; without a key, 401', async (t) => {
      for (const tier of ['free', 'pro'] as const) {
        const res = await app.request(`/v1/entity/${afm}`, { key: app.key(tier) });
        t.equal(res.status, 403, tier);
        t.same(res.body, { detail: 'This feature requires an Enterprise subscription' });
      }
      t.equal((await app.request(`/v1/entity/${afm}`)).status, 401);
    });
  });
}
