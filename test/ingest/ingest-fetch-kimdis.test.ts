// The ΚΗΜΔΗΣ fetcher against a loopback server that answers `POST /{resource}?page=N` with Spring pages:
// windows of at most 175 days, paging until `last`, resources in order, retries and checkpoints.
import t from 'tap';
import { UpstreamError } from '../../ingest/http.js';
import { createKimdisSource, kimdis } from '../../ingest/sources/kimdis/index.js';
import { collect, harness, startUpstream, type UpstreamRequest } from '../helpers/loopback-upstream.js';

const NOW = new Date('2026-03-10T12:00:00Z');

function contract(referenceNumber: string) {
  return { title: `Σύμβαση ${referenceNumber}`, referenceNumber, submissionDate: '2026-02-26T15:09:14.662' };
}

function springPage(content: unknown[], number: number, last: boolean) {
  return {
    content,
    totalElements: 99,
    totalPages: last ? number + 1 : number + 2,
    first: number === 0,
    last,
    numberOfElements: content.length,
    size: 2,
    number,
    empty: content.length === 0,
  };
}

const PAGES: Record<string, unknown> = {
  'contract 2025-02-03 0': springPage([contract('25SYMV000000001'), contract('25SYMV000000002')], 0, false),
  'contract 2025-02-03 1': springPage([contract('25SYMV000000003')], 1, true),
  'contract 2025-07-28 0': springPage([], 0, true),
  'contract 2026-01-19 0': springPage([contract('26SYMV000000004')], 0, true),
};

function replay(req: UpstreamRequest) {
  const resource = req.path.slice(1);
  const body = PAGES[`${resource} ${req.json?.dateFrom} ${req.query.get('page')}`];
  return body ? { body } : { status: 404, body: { detail: `no page for ${resource} ${req.body}` } };
}

const refs = (source: typeof kimdis, body: string) => source.parse(body).map((r) => (r.record as { referenceNumber: string }).referenceNumber);

t.test('when asked for 400 days, then three windows of at most 175 days are paged until last', async (t) => {
  const upstream = await startUpstream(replay);
  t.teardown(upstream.close);
  const { ctx, sleeps } = harness(upstream.url, { since: '2025-02-03', now: NOW });
  const pages = await collect(kimdis.fetch(ctx));

  t.strictSame(
    upstream.requests.map((r) => [r.method, r.path, r.query.get('page'), r.json]),
    [
      ['POST', '/contract', '0', { dateFrom: '2025-02-03', dateTo: '2025-07-27' }],
      ['POST', '/contract', '1', { dateFrom: '2025-02-03', dateTo: '2025-07-27' }],
      ['POST', '/contract', '0', { dateFrom: '2025-07-28', dateTo: '2026-01-18' }],
      ['POST', '/contract', '0', { dateFrom: '2026-01-19', dateTo: '2026-03-10' }],
    ],
  );
  t.strictSame(
    pages.map((p) => p.checkpoint),
    [
      { dateFrom: '2025-02-03', dateTo: '2025-07-27', resource: 'contract', page: 1 },
      { dateFrom: '2025-07-28', dateTo: null, resource: 'contract', page: 0 },
      { dateFrom: '2026-01-19', dateTo: null, resource: 'contract', page: 0 },
      { dateFrom: '2026-03-09', dateTo: null, resource: 'contract', page: 0 }, // one day of overlap
    ],
  );
  t.strictSame(
    pages.map((p) => refs(kimdis, p.body)),
    [['25SYMV000000001', '25SYMV000000002'], ['25SYMV000000003'], [], ['26SYMV000000004']],
  );
  t.equal(pages[0]!.body, JSON.stringify(PAGES['contract 2025-02-03 0']), 'bodies are passed on as received');
  t.strictSame(sleeps, []);
});

t.test('when several resources are configured, then each window walks them in order and the checkpoint names the next', async (t) => {
  const upstream = await startUpstream((req) => ({
    body:
      req.path === '/auction' && req.query.get('page') === '0'
        ? springPage([contract('26AWRD000000001')], 0, false)
        : springPage([contract(req.path === '/auction' ? '26AWRD000000002' : '26SYMV000000001')], 1, true),
  }));
  t.teardown(upstream.close);
  const { ctx } = harness(upstream.url, { since: '2026-03-01', now: NOW });
  const pages = await collect(createKimdisSource({ resources: ['auction', 'contract'] }).fetch(ctx));
  t.strictSame(
    upstream.requests.map((r) => `${r.path}?page=${r.query.get('page')}`),
    ['/auction?page=0', '/auction?page=1', '/contract?page=0'],
  );
  t.strictSame(
    pages.map((p) => p.checkpoint),
    [
      { dateFrom: '2026-03-01', dateTo: '2026-03-10', resource: 'auction', page: 1 },
      { dateFrom: '2026-03-01', dateTo: '2026-03-10', resource: 'contract', page: 0 },
      { dateFrom: '2026-03-09', dateTo: null, resource: 'auction', page: 0 },
    ],
  );
});

t.test('when the checkpoint points into a window, then the walk resumes there and continues with new windows', async (t) => {
  const upstream = await startUpstream(replay);
  t.teardown(upstream.close);
  const checkpoint = { dateFrom: '2025-02-03', dateTo: '2025-07-27', resource: 'contract', page: 1 };
  const { ctx } = harness(upstream.url, { checkpoint, now: NOW });
  const pages = await collect(kimdis.fetch(ctx));
  t.strictSame(
    upstream.requests.map((r) => [r.json.dateFrom, r.json.dateTo, r.query.get('page')]),
    [
      ['2025-02-03', '2025-07-27', '1'],
      ['2025-07-28', '2026-01-18', '0'],
      ['2026-01-19', '2026-03-10', '0'],
    ],
  );
  t.equal(pages.length, 3);
});

t.test('when there is neither since nor checkpoint, then the walk covers the last 30 days', async (t) => {
  const upstream = await startUpstream(() => ({ body: springPage([], 0, true) }));
  t.teardown(upstream.close);
  const { ctx } = harness(upstream.url, { now: NOW });
  await collect(kimdis.fetch(ctx));
  t.strictSame(
    upstream.requests.map((r) => r.json),
    [{ dateFrom: '2026-02-08', dateTo: '2026-03-10' }],
  );
});

t.test('when `last` stays false on an empty page, then the page is asked twice more and the walk still stops', async (t) => {
  const upstream = await startUpstream(() => ({ body: springPage([], 0, false) }));
  t.teardown(upstream.close);
  const { ctx, sleeps } = harness(upstream.url, { since: '2026-03-01', now: NOW });
  const pages = await collect(kimdis.fetch(ctx));
  t.same(
    upstream.requests.map((r) => r.query.get('page')),
    ['0', '0', '0'],
  );
  t.same(sleeps, [2_000, 4_000]);
  t.strictSame(pages[0]!.checkpoint, { dateFrom: '2026-03-09', dateTo: null, resource: 'contract', page: 0 });
});

t.test('when a page comes back empty once although `last` is false, then it is asked again and the walk goes on', async (t) => {
  let calls = 0;
  const upstream = await startUpstream((req) => {
    const page = Number(req.query.get('page'));
    if (page === 0) return { body: springPage([contract('26SYMV000000001')], 0, false) };
    if (calls++ === 0) return { body: springPage([], 1, false) }; // a passing fault
    return { body: springPage([contract('26SYMV000000002')], 1, true) };
  });
  t.teardown(upstream.close);
  const { ctx } = harness(upstream.url, { since: '2026-03-01', now: NOW });
  const pages = await collect(kimdis.fetch(ctx));
  t.same(
    upstream.requests.map((r) => r.query.get('page')),
    ['0', '1', '1'],
  );
  t.same(
    pages.flatMap((p) => kimdis.parse(p.body).map((r) => (r.record as { referenceNumber: string }).referenceNumber)),
    ['26SYMV000000001', '26SYMV000000002'],
  );
});

t.test('when the server answers 429 with Retry-After, then the client waits that long and gets the page', async (t) => {
  let calls = 0;
  const upstream = await startUpstream(() =>
    calls++ === 0
      ? { status: 429, headers: { 'Retry-After': '61' }, body: { message: 'Too Many Requests' } }
      : { body: springPage([contract('26SYMV000000001')], 0, true) },
  );
  t.teardown(upstream.close);
  const { ctx, sleeps } = harness(upstream.url, { since: '2026-03-01', now: NOW });
  const pages = await collect(kimdis.fetch(ctx));
  t.strictSame(sleeps, [61_000]);
  t.strictSame(
    upstream.requests.map((r) => r.json),
    [
      { dateFrom: '2026-03-01', dateTo: '2026-03-10' },
      { dateFrom: '2026-03-01', dateTo: '2026-03-10' },
    ],
    'the same body re-sent',
  );
  t.strictSame(refs(kimdis, pages[0]!.body), ['26SYMV000000001']);
});

t.test('when the server answers 502 once, then the request is retried after a backoff', async (t) => {
  let calls = 0;
  const upstream = await startUpstream(() =>
    calls++ === 0 ? { status: 502, body: 'Bad Gateway' } : { body: springPage([contract('26SYMV000000001')], 0, true) },
  );
  t.teardown(upstream.close);
  const { ctx, sleeps } = harness(upstream.url, { since: '2026-03-01', now: NOW });
  const pages = await collect(kimdis.fetch(ctx));
  t.equal(sleeps.length, 1);
  t.ok(sleeps[0]! >= 250 && sleeps[0]! <= 500);
  t.equal(pages.length, 1);
});

t.test('when the server answers 404, then the fetch fails at once with an UpstreamError', async (t) => {
  const upstream = await startUpstream(() => ({ status: 404, body: { error: 'Not Found' } }));
  t.teardown(upstream.close);
  const { ctx, sleeps } = harness(upstream.url, { since: '2026-03-01', now: NOW });
  const err = await collect(kimdis.fetch(ctx)).then(
    () => null,
    (e: unknown) => e,
  );
  t.type(err, UpstreamError);
  t.equal((err as UpstreamError).status, 404);
  t.equal(upstream.requests.length, 1);
  t.strictSame(sleeps, []);
});

t.test('when a page lacks the Spring envelope, then the fetch fails with an UpstreamError', async (t) => {
  const upstream = await startUpstream(() => ({ body: [contract('26SYMV000000001')] }));
  t.teardown(upstream.close);
  const { ctx } = harness(upstream.url, { since: '2026-03-01', now: NOW });
  await t.rejects(collect(kimdis.fetch(ctx)), /not a page/);
});
