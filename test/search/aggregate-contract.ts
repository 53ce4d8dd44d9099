// GET /v1/aggregate against a recomputation from the stored documents (test/helpers/analysis-corpus.ts),
// run against each engine by aggregate-embedded.test.ts and aggregate-elasticsearch.test.ts.
import type { Test } from 'tap';
import { mulberry32 } from '../../data/generator/prng.js';
import { GROUPINGS, MULTI_VALUED, type Grouping } from '../../index-mappings/analysis.js';
import type { IndexedDocument } from '../../index-mappings/document.js';
import type { Filters } from '../../lib/search/filters.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import {
  analysisCorpus,
  countedValues,
  EVERY_WORD,
  FILTER_EXAMPLES,
  filterQuery,
  keysFor,
  metricsOf,
  type OracleMetrics,
  passes,
  SOME_WORDS,
  SUPPLIERS,
} from '../helpers/analysis-corpus.js';
import { startTestApp } from '../helpers/app.js';
import { storeDocs } from '../helpers/report-docs.js';

interface Case {
  q?: string;
  filters: Filters;
  groupBy: Grouping;
  thenBy?: Grouping;
  orderBy: 'value' | 'documents';
  limit: number;
}

type OracleBucket = OracleMetrics & { key: string; buckets?: OracleBucket[]; other?: OracleMetrics };

/** By value then documents, or by documents, then by key: as the API orders buckets. */
function order(by: Case['orderBy']) {
  return (a: OracleBucket, b: OracleBucket) =>
    (by === 'value' ? b.value_sum - a.value_sum || b.documents - a.documents : b.documents - a.documents) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/** What GET /v1/aggregate must answer, recomputed from the documents. */
export function oracle(docs: IndexedDocument[], c: Case) {
  const matched = docs.filter((d) => passes(d, c.filters) && (c.q === undefined || d.content.includes(c.q)));
  const counted = countedValues(matched);
  const bucketsOf = (of: IndexedDocument[], g: Grouping): OracleBucket[] => {
    const keys = [...new Set(of.flatMap((d) => keysFor(d, g)))];
    return keys
      .map((key) => ({
        key,
        ...metricsOf(
          of.filter((d) => keysFor(d, g).includes(key)),
          counted,
        ),
      }))
      .sort(order(c.orderBy))
      .slice(0, c.limit);
  };
  const outside = (of: IndexedDocument[], g: Grouping, listed: OracleBucket[]) =>
    metricsOf(
      of.filter((d) => !keysFor(d, g).some((k) => listed.some((b) => b.key === k))),
      counted,
    );
  const buckets = bucketsOf(matched, c.groupBy);
  if (c.thenBy) {
    for (const b of buckets) {
      const within = matched.filter((d) => keysFor(d, c.groupBy).includes(b.key));
      b.buckets = bucketsOf(within, c.thenBy);
      b.other = outside(within, c.thenBy, b.buckets);
    }
  }
  return { totals: metricsOf(matched, counted), buckets, other: outside(matched, c.groupBy, buckets) };
}

/** The answer without labels, to compare with the oracle's. */
function unlabelled(body: { totals: unknown; buckets: Record<string, unknown>[]; other: unknown }) {
  const strip = (b: Record<string, unknown>): Record<string, unknown> => {
    const { label: _label, label_el: _labelEl, buckets, ...rest } = b;
    return buckets ? { ...rest, buckets: (buckets as Record<string, unknown>[]).map(strip) } : rest;
  };
  return { totals: body.totals, buckets: body.buckets.map(strip), other: body.other };
}

function queryOf(c: Case): string {
  const parts = [`group_by=${c.groupBy}`, `order_by=${c.orderBy}`, `limit=${c.limit}`];
  if (c.thenBy) parts.push(`then_by=${c.thenBy}`);
  if (c.q) parts.push(`q=${encodeURIComponent(c.q)}`);
  if (Object.keys(c.filters).length) parts.push(filterQuery(c.filters));
  return parts.join('&');
}

/** Bounded for CI: every grouping at least once, as first and as second, over the filter examples. */
const RUNS = 30;

export function aggregateContract(t: Test, engine: string, open: (t: Test) => Promise<SearchProvider>): void {
  t.test(`${engine}: aggregates across the corpus`, async (t) => {
    const search = await open(t);
    const app = await startTestApp(t, { search });
    const docs = analysisCorpus();
    t.equal((await search.upsert(docs)).failed.length, 0);
    await search.refresh();
    // The document store and its entity index hold them too, as after ingest: GET /v1/entity and reports read there.
    storeDocs(app.documents, docs);
    const key = app.key('enterprise');
    const get = (path: string) => app.request(path, { key });

    t.test('when random filters and groupings are aggregated, then every bucket, the totals and other equal a recomputation from the documents', async (t) => {
      const rnd = mulberry32(2026);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
      for (let run = 0; run < RUNS; run++) {
        const groupBy = GROUPINGS[run % GROUPINGS.length]!;
        const thenBy = rnd() < 0.4 ? pick(GROUPINGS.filter((g) => g !== groupBy)) : undefined;
        const c: Case = {
          q: rnd() < 0.3 ? pick(SOME_WORDS) : undefined,
          filters: rnd() < 0.25 ? {} : { ...pick(FILTER_EXAMPLES), ...(rnd() < 0.3 ? pick(FILTER_EXAMPLES) : {}) },
          groupBy,
          thenBy,
          orderBy: rnd() < 0.5 ? 'value' : 'documents',
          limit: pick([1, 3, 5, 100]),
        };
        // Two filters that contradict each other (amount bounds, dates) are a 422, not a case.
        const res = await get(`/v1/aggregate?${queryOf(c)}`);
        if (res.status === 422) {
          t.match(res.body.detail, /must not be (before|below)/, queryOf(c));
          continue;
        }
        t.equal(res.status, 200, queryOf(c));
        t.same(unlabelled(res.body), oracle(docs, c), queryOf(c));
        t.same(
          [res.body.group_by, res.body.then_by, res.body.order_by, res.body.limit, res.body.query],
          [c.groupBy, c.thenBy ?? null, c.orderBy, c.limit, c.q ?? null],
          'the request echoed',
        );
      }
    });

    t.test('when a search asks for facets, then each is the aggregate of its grouping by documents, over the whole match', async (t) => {
      const facets = ['source', 'year', 'cpv_division', 'buyer', 'supplier', 'procedure_type'];
      for (const [q, f, limit] of [
        [EVERY_WORD, {}, 10],
        [SOME_WORDS[0]!, FILTER_EXAMPLES[5]!, 3],
        [EVERY_WORD, { doc_category: 'contract', since: '2023-01-01' }, 2],
      ] as const) {
        const filters = Object.keys(f).length ? `&${filterQuery(f)}` : '';
        const res = await get(`/v1/search?q=${encodeURIComponent(q)}${filters}&facets=${facets.join(',')}&facet_limit=${limit}&limit=1`);
        t.equal(res.status, 200);
        t.same(Object.keys(res.body.facets), facets, 'every facet asked, in order');
        for (const g of facets) {
          const agg = (await get(`/v1/aggregate?q=${encodeURIComponent(q)}${filters}&group_by=${g}&order_by=documents&limit=${limit}`)).body;
          const want = agg.buckets.map((b: Record<string, unknown>) => ({ key: b.key, label: b.label, label_el: b.label_el, documents: b.documents }));
          t.same(res.body.facets[g], want, `${q} ${filters} ${g}`);
          const oracleKeys = oracle(docs, { q: q === EVERY_WORD ? undefined : q, filters: f, groupBy: g as Grouping, orderBy: 'documents', limit }).buckets;
          t.same(
            res.body.facets[g].map((b: { key: string; documents: number }) => [b.key, b.documents]),
            oracleKeys.map((b) => [b.key, b.documents]),
            `${g} as recomputed`,
          );
        }
        t.equal(res.body.results.length, 1, 'the page is as asked');
      }
      for (const bad of ['facets=', 'facets=source,source', 'facets=vendor', 'facets=year&facet_limit=0']) {
        const res = await get(`/v1/search?q=${EVERY_WORD}&${bad}`);
        t.equal(res.status, 422, bad);
        t.match(res.body.detail, /^facet/, bad);
      }
      t.notOk('facets' in (await get(`/v1/search?q=${EVERY_WORD}`)).body, 'no facets unless asked');
    });

    t.test('when a grouping has one key per document, then the buckets and other add up to the totals', async (t) => {
      for (const groupBy of GROUPINGS.filter((g) => !MULTI_VALUED.has(g))) {
        const res = await get(`/v1/aggregate?group_by=${groupBy}&limit=2`);
        const parts = [...res.body.buckets, res.body.other];
        for (const m of ['documents', 'contracts', 'value_sum', 'tenders_stated'] as const) {
          const sum = parts.reduce((s: number, b: Record<string, number>) => s + Math.round(b[m]! * 100), 0) / 100;
          t.equal(sum, res.body.totals[m], `${groupBy}: ${m}`);
        }
      }
    });

    t.test("when a supplier's aggregate is asked, then its totals are GET /v1/entity's and its report's, year by year", async (t) => {
      for (const afm of [SUPPLIERS[0]!, SUPPLIERS[2]!]) {
        const agg = (await get(`/v1/aggregate?supplier=${afm}&group_by=year&limit=100`)).body;
        const entity = (await get(`/v1/entity/${afm}`)).body;
        t.ok(entity.total > 3 && entity.total_contract_value > 0, `${afm}: ${entity.total} documents, €${entity.total_contract_value}`);
        t.same(
          [agg.totals.documents, agg.totals.value_sum, agg.totals.first_published, agg.totals.last_published],
          [entity.total, entity.total_contract_value, entity.first_seen, entity.last_seen],
          `${afm}: documents, value, first and last as /v1/entity`,
        );
        const created = await app.request('/v1/reports', { key, method: 'POST', body: { entity_identifier: afm, identifier_type: 'afm' } });
        await app.app.jobs.idle();
        const report = JSON.parse((await get(`/v1/reports/${created.body.id}`)).body.report_json);
        t.equal(report.sections.procurement.total_value, agg.totals.value_sum, `${afm}: the report's total value`);
        // Years of awards or contracts without a counted value the report lists at 0.
        const byYear = Object.fromEntries(
          report.sections.procurement.totals_by_year
            .filter((y: { value: number }) => y.value > 0)
            .map((y: { year: number; value: number }) => [String(y.year), y.value]),
        );
        t.same(
          Object.fromEntries(
            agg.buckets.filter((b: { value_sum: number }) => b.value_sum > 0).map((b: { key: string; value_sum: number }) => [b.key, b.value_sum]),
          ),
          byYear,
          `${afm}: the report's values by year`,
        );
      }
      const party = (await get(`/v1/aggregate?party=${SUPPLIERS[5]}&group_by=source`)).body;
      const entity = (await get(`/v1/entity/${SUPPLIERS[5]}`)).body;
      t.same([party.totals.documents, party.totals.value_sum], [entity.total, entity.total_contract_value], 'a party in any role, as /v1/entity');
    });

    t.test('when buckets are ΑΦΜs or sources, then they carry the name or the source title', async (t) => {
      const res = await get('/v1/aggregate?group_by=supplier&then_by=source&limit=2');
      for (const b of res.body.buckets) {
        const name = docs.flatMap((d) => d.parties).find((p) => p.afm === b.key)!.name;
        t.same([b.label, b.label_el], [name, null], b.key);
        for (const s of b.buckets) t.match(s.label, /TED|Δι@ύγεια|ΚΗΜΔΗΣ|KIMDIS/, s.key);
      }
    });

    t.test('when buckets are CPV codes or divisions, then they carry the official English and Greek labels', async (t) => {
      const res = await get('/v1/aggregate?group_by=cpv_division&limit=50');
      const works = res.body.buckets.find((b: { key: string }) => b.key === '45');
      t.same([works?.label, works?.label_el], ['Construction work', 'Κατασκευαστικές εργασίες'], 'division 45 by the label of 45000000');
    });

    t.test('when a parameter is missing, malformed or unknown, then 422 names it', async (t) => {
      for (const [query, detail] of [
        ['', 'group_by is required'],
        ['group_by=vendor', `group_by must be one of ${GROUPINGS.join(', ')}`],
        ['group_by=year&then_by=year', 'then_by must differ from group_by'],
        ['group_by=year&then_by=', 'then_by must not be empty'],
        ['group_by=year&order_by=size', 'order_by must be one of value, documents'],
        ['group_by=year&limit=0', 'limit must be an integer from 1 to 100'],
        ['group_by=year&limit=101', 'limit must be an integer from 1 to 100'],
        ['group_by=year&q=', 'q must not be empty'],
        ['group_by=year&cpv=1', 'cpv must be a CPV code of 8 digits or its first 2 to 7 digits (e.g. 45 or 45233120)'],
        ['group_by=year&offset=10', /^Unknown parameter: offset \(this route takes q, source/],
      ] as const) {
        const res = await get(`/v1/aggregate?${query}`);
        t.equal(res.status, 422, query);
        if (typeof detail === 'string') t.same(res.body, { detail }, query);
        else t.match(res.body.detail, detail, query);
      }
    });

    t.test('when a Free key asks, then 403; a Pro key is answered', async (t) => {
      t.same((await app.request('/v1/aggregate?group_by=year', { key: app.key('free') })).body, { detail: 'This feature requires a Pro subscription' });
      t.equal((await app.request('/v1/aggregate?group_by=year', { key: app.key('pro') })).status, 200);
    });
  });
}
