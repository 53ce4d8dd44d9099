// The Diavgeia fetcher against a loopback server that answers in the /search/advanced format:
// windows of at most 180 days, paging, the stray-record check, retries and checkpoints.
import t from 'tap';
import { UpstreamError } from '../../ingest/http.js';
import { createDiavgeiaSource, diavgeia } from '../../ingest/sources/diavgeia/index.js';
import { collect, harness, startUpstream, type UpstreamRequest } from '../helpers/loopback-upstream.js';

const NOW = new Date('2026-03-10T12:00:00Z');
const W1 = ['2025-02-03T00:00:00+00:00', '2025-08-02T00:00:00+00:00'];
const W2 = ['2025-08-02T00:00:00+00:00', '2026-01-29T00:00:00+00:00'];
const W3 = ['2026-01-29T00:00:00+00:00', '2026-03-10T12:00:00+00:00'];

function decision(ada: string, submitted: string) {
  return { ada, subject: `Απόφαση ${ada}`, decisionTypeId: 'Δ.1', submissionTimestamp: Date.parse(submitted), status: 'PUBLISHED' };
}

function page(decisions: unknown[], page: number, size: number, total: number) {
  return { decisions, info: { query: 'q', page, size, actualSize: decisions.length, total, order: 'recent' } };
}

/** [from, to] of the submissionTimestamp filter in a request. */
function windowOf(req: UpstreamRequest): string[] {
  const m = /^submissionTimestamp:\[DT\(([^)]+)\) TO DT\(([^)]+)\)\]$/.exec(req.query.get('q') ?? '');
  if (!m) throw new Error(`unexpected q: ${req.query.get('q')}`);
  return [m[1]!, m[2]!];
}

const PAGES: Record<string, unknown[]> = {
  [`${W1[0]}#0`]: [page([decision('ΨΘ82ΩΡΦ-7ΑΙ', '2025-02-10T10:00:00Z'), decision('6ΨΙΞΩ1Ρ-ΑΒΓ', '2025-03-01T08:30:00Z')], 0, 2, 3)],
  [`${W1[0]}#1`]: [page([decision('Ω6Η2ΟΡΡ9-Β9Ω', '2025-07-30T23:59:59Z')], 1, 2, 3)],
  // The second record lies outside its window: the server "ignored" part of the filter.
  [`${W2[0]}#0`]: [page([decision('Ρ2Γ6469Β7Δ-ΤΛ4', '2025-12-24T12:00:00Z'), decision('6Ε0Ε46Ψ842-Φ46', '2024-01-01T00:00:00Z')], 0, 2, 2)],
  [`${W3[0]}#0`]: [page([], 0, 2, 0)],
};

function replay(req: UpstreamRequest) {
  const [from] = windowOf(req);
  const body = PAGES[`${from}#${req.query.get('page')}`]?.[0];
  return body ? { body } : { status: 404, body: { detail: 'no such page' } };
}

/** One decision an hour into whatever window was asked. */
function oneInWindow(req: UpstreamRequest) {
  const [from] = windowOf(req);
  return { body: page([decision('ΨΘ82ΩΡΦ-7ΑΙ', new Date(Date.parse(from!) + 3_600_000).toISOString())], 0, 2, 1) };
}

t.test('when asked for 400 days, then three windows of at most 180 days are paged and strays are dropped', async (t) => {
  const upstream = await startUpstream(replay);
  t.teardown(upstream.close);
  const { ctx, sleeps, logs } = harness(upstream.url, { since: '2025-02-03', now: NOW });
  const source = createDiavgeiaSource({ pageSize: 2 });
  const pages = await collect(source.fetch(ctx));

  t.strictSame(
    upstream.requests.map((r) => [r.method, r.path, windowOf(r), r.query.get('page'), r.query.get('size')]),
    [
      ['GET', '/search/advanced', W1, '0', '2'],
      ['GET', '/search/advanced', W1, '1', '2'],
      ['GET', '/search/advanced', W2, '0', '2'],
      ['GET', '/search/advanced', W3, '0', '2'],
    ],
  );
  for (const [from, to] of [W1, W2, W3]) t.ok(Date.parse(to!) - Date.parse(from!) <= 180 * 86_400_000, `${from} → ${to} is at most 180 days`);

  t.strictSame(
    pages.map((p) => p.checkpoint),
    [
      { from: '2025-02-03T00:00:00Z', to: '2025-08-02T00:00:00Z', page: 1 },
      { from: '2025-08-02T00:00:00Z', to: null, page: 0 },
      { from: '2026-01-29T00:00:00Z', to: null, page: 0 },
      { from: '2026-03-10T11:00:00Z', to: null, page: 0 }, // now − 1 h, for decisions indexed late
    ],
  );
  const adas = pages.map((p) => source.parse(p.body, p.contentType).map((r) => (r.record as { ada: string }).ada));
  t.strictSame(adas, [['ΨΘ82ΩΡΦ-7ΑΙ', '6ΨΙΞΩ1Ρ-ΑΒΓ'], ['Ω6Η2ΟΡΡ9-Β9Ω'], ['Ρ2Γ6469Β7Δ-ΤΛ4'], []]);
  t.equal(logs.length, 1, 'one warning, for the stray');
  t.strictSame(
    logs[0]!.dropped.map((d: { ada: string }) => d.ada),
    ['6Ε0Ε46Ψ842-Φ46'],
  );
  t.strictSame(sleeps, [], 'no retries were needed');
  t.equal(pages[0]!.body, JSON.stringify(PAGES[`${W1[0]}#0`]![0]), 'a clean page is passed on as received');
});

t.test('when the checkpoint points into a window, then the walk resumes at that page with the same bounds', async (t) => {
  const upstream = await startUpstream(replay);
  t.teardown(upstream.close);
  const checkpoint = { from: '2025-02-03T00:00:00Z', to: '2025-08-02T00:00:00Z', page: 1 };
  const { ctx } = harness(upstream.url, { checkpoint, now: NOW });
  const pages = await collect(createDiavgeiaSource({ pageSize: 2 }).fetch(ctx));
  t.strictSame(
    upstream.requests.map((r) => [windowOf(r)[0], r.query.get('page')]),
    [
      [W1[0], '1'],
      [W2[0], '0'],
      [W3[0], '0'],
    ],
  );
  t.equal(pages.length, 3);
});

t.test('when there is neither since nor checkpoint, then the walk starts 7 days back, in one window', async (t) => {
  const upstream = await startUpstream(() => ({ body: page([], 0, 500, 0) }));
  t.teardown(upstream.close);
  const { ctx } = harness(upstream.url, { now: NOW });
  await collect(diavgeia.fetch(ctx));
  t.strictSame(upstream.requests.map(windowOf), [['2026-03-03T12:00:00+00:00', '2026-03-10T12:00:00+00:00']]);
  t.equal(upstream.requests[0]!.query.get('size'), '500');
});

t.test('when --since lies before Diavgeia existed, then the walk starts at 2010-01-01, not in empty windows before it', async (t) => {
  const upstream = await startUpstream(() => ({ body: page([], 0, 500, 0) }));
  t.teardown(upstream.close);
  const { ctx, logs } = harness(upstream.url, { since: '1600-01-01', now: new Date('2011-03-01T00:00:00Z') });
  await collect(diavgeia.fetch(ctx));
  t.strictSame(upstream.requests.map(windowOf), [
    ['2010-01-01T00:00:00+00:00', '2010-06-30T00:00:00+00:00'],
    ['2010-06-30T00:00:00+00:00', '2010-12-27T00:00:00+00:00'],
    ['2010-12-27T00:00:00+00:00', '2011-03-01T00:00:00+00:00'],
  ]);
  t.ok(
    logs.some((l) => /starts at 2010-01-01/.test(l.msg)),
    'the operator is told',
  );
});

t.test('when the server answers 429 with Retry-After, then the client waits that long and gets the page', async (t) => {
  let calls = 0;
  const upstream = await startUpstream((req) =>
    calls++ === 0 ? { status: 429, headers: { 'Retry-After': '7' }, body: { detail: 'slow down' } } : oneInWindow(req),
  );
  t.teardown(upstream.close);
  const { ctx, sleeps } = harness(upstream.url, { since: '2026-02-01', now: NOW });
  const pages = await collect(createDiavgeiaSource({ pageSize: 2 }).fetch(ctx));
  t.strictSame(sleeps, [7_000]);
  t.equal(upstream.requests.length, 2, 'the same request twice');
  t.equal(upstream.requests[0]!.query.get('q'), upstream.requests[1]!.query.get('q'));
  t.equal(pages.length, 1);
});

t.test('when the server answers 503 once, then the request is retried after a backoff', async (t) => {
  let calls = 0;
  const upstream = await startUpstream((req) => (calls++ === 0 ? { status: 503, body: 'unavailable' } : oneInWindow(req)));
  t.teardown(upstream.close);
  const { ctx, sleeps } = harness(upstream.url, { since: '2026-02-01', now: NOW });
  const pages = await collect(createDiavgeiaSource({ pageSize: 2 }).fetch(ctx));
  t.equal(sleeps.length, 1);
  t.ok(sleeps[0]! >= 250 && sleeps[0]! <= 500, `backoff ${sleeps[0]} ms is half to all of the 500 ms base`);
  t.equal(pages.length, 1);
});

t.test('when the server answers 400, then the fetch fails at once with an UpstreamError', async (t) => {
  const upstream = await startUpstream(() => ({ status: 400, body: { error: 'bad query' } }));
  t.teardown(upstream.close);
  const { ctx, sleeps } = harness(upstream.url, { since: '2026-02-01', now: NOW });
  const err = await collect(diavgeia.fetch(ctx)).then(
    () => null,
    (e: unknown) => e,
  );
  t.type(err, UpstreamError);
  t.equal((err as UpstreamError).status, 400);
  t.equal(upstream.requests.length, 1, 'a 4xx is not retried');
  t.strictSame(sleeps, []);
});

t.test('when every record of a page lies outside the window, then the fetch stops: the filter was ignored', async (t) => {
  const upstream = await startUpstream(() => ({ body: page([decision('ΨΘ82ΩΡΦ-7ΑΙ', '2014-03-01T00:00:00Z')], 0, 500, 3_100_000) }));
  t.teardown(upstream.close);
  const { ctx } = harness(upstream.url, { since: '2026-02-01', now: NOW });
  await t.rejects(collect(diavgeia.fetch(ctx)), /filter was ignored/);
  t.equal(upstream.requests.length, 1);
});

t.test('when a page is not the search envelope, then the fetch fails with an UpstreamError', async (t) => {
  const upstream = await startUpstream(() => ({ body: '<html>maintenance</html>', headers: { 'Content-Type': 'text/html' } }));
  t.teardown(upstream.close);
  const { ctx } = harness(upstream.url, { since: '2026-02-01', now: NOW });
  await t.rejects(collect(diavgeia.fetch(ctx)), UpstreamError);
});

t.test('when info.total says fewer records than full pages already brought, then the walk goes on to a short page instead of trusting it', async (t) => {
  // Three pages of 2, 2 and 1 decisions, each claiming total 1 (an under-count): 5 records, not 2.
  const upstream = await startUpstream((req) => {
    const n = Number(req.query.get('page'));
    const [from] = windowOf(req);
    const at = (i: number) => new Date(Date.parse(from!) + (n * 2 + i + 1) * 3_600_000).toISOString();
    const decisions = Array.from({ length: n < 2 ? 2 : 1 }, (_, i) => decision(`ΑΔΑ-${n}-${i}`, at(i)));
    return { body: page(decisions, n, 2, 1) };
  });
  t.teardown(upstream.close);
  const { ctx } = harness(upstream.url, { now: NOW });
  const source = createDiavgeiaSource({ pageSize: 2 });
  const pages = await collect(source.fetch(ctx));
  t.strictSame(
    upstream.requests.map((r) => r.query.get('page')),
    ['0', '1', '2'],
  );
  t.equal(pages.flatMap((p) => source.parse(p.body, p.contentType)).length, 5);
});

t.test('when info.total is a multiple of the page size, then the walk stops on its last full page without asking for an empty one', async (t) => {
  const upstream = await startUpstream((req) => {
    const n = Number(req.query.get('page'));
    const [from] = windowOf(req);
    const decisions = [0, 1].map((i) => decision(`ΑΔΑ-${n}-${i}`, new Date(Date.parse(from!) + (n * 2 + i + 1) * 3_600_000).toISOString()));
    return { body: page(decisions, n, 2, 4) };
  });
  t.teardown(upstream.close);
  const { ctx } = harness(upstream.url, { now: NOW });
  await collect(createDiavgeiaSource({ pageSize: 2 }).fetch(ctx));
  t.strictSame(
    upstream.requests.map((r) => r.query.get('page')),
    ['0', '1'],
  );
});

t.test('when a page comes back empty once although info.total says more follow, then it is asked again and the walk goes on', async (t) => {
  let calls = 0;
  const upstream = await startUpstream((req) => {
    const n = Number(req.query.get('page'));
    const [from] = windowOf(req);
    const at = (i: number) => new Date(Date.parse(from!) + (n * 2 + i + 1) * 3_600_000).toISOString();
    if (n === 1 && calls++ === 0) return { body: page([], 1, 2, 3) }; // a passing fault
    return { body: page(n === 0 ? [decision('ΑΔΑ-0-0', at(0)), decision('ΑΔΑ-0-1', at(1))] : [decision('ΑΔΑ-1-0', at(0))], n, 2, 3) };
  });
  t.teardown(upstream.close);
  const { ctx, sleeps } = harness(upstream.url, { now: NOW });
  const source = createDiavgeiaSource({ pageSize: 2 });
  const pages = await collect(source.fetch(ctx));
  t.strictSame(
    upstream.requests.map((r) => r.query.get('page')),
    ['0', '1', '1'],
  );
  t.same(sleeps, [2_000]);
  t.equal(pages.flatMap((p) => source.parse(p.body, p.contentType)).length, 3);
});
