// The TED fetcher against a loopback server that answers `POST /v3/notices/search` in ITERATION mode:
// token following, the three stop rules (count reached, empty page, null token), retries, checkpoints.
import t from 'tap';
import { UpstreamError } from '../../ingest/http.js';
import { TED_FIELDS } from '../../ingest/sources/ted/fetch.js';
import { createTedSource, ted } from '../../ingest/sources/ted/index.js';
import { collect, harness, startUpstream } from '../helpers/loopback-upstream.js';

const NOW = new Date('2026-03-10T12:00:00Z');

function notice(n: number) {
  return {
    'publication-number': `${150000 + n}-2026`,
    'notice-type': 'cn-standard',
    'publication-date': '2026-03-02+01:00',
    'notice-title': { eng: `Notice ${n}` },
  };
}

function response(numbers: number[], total: number, token: string | null) {
  return { notices: numbers.map(notice), totalNoticeCount: total, iterationNextToken: token, timedOut: false };
}

const numbersOf = (body: string) => ted.parse(body).map((r) => (r.record as { 'publication-number': string })['publication-number']);

t.test('when the last page still carries a token, then the walk stops once the total is reached', async (t) => {
  const script = [response([1, 2], 5, 't1'), response([3, 4], 5, 't2'), response([5], 5, 't3')];
  const upstream = await startUpstream((_req, i) => (i < script.length ? { body: script[i] } : { status: 500, body: 'asked one page too many' }));
  t.teardown(upstream.close);
  const { ctx, sleeps } = harness(upstream.url, { since: '2026-03-01', now: NOW });
  const pages = await collect(ted.fetch(ctx));

  t.equal(upstream.requests.length, 3, 'no fourth request although t3 was given');
  t.strictSame(
    upstream.requests.map((r) => [r.method, r.path, r.json.iterationNextToken]),
    [
      ['POST', '/v3/notices/search', undefined],
      ['POST', '/v3/notices/search', 't1'],
      ['POST', '/v3/notices/search', 't2'],
    ],
  );
  const first = upstream.requests[0]!.json;
  t.equal(first.query, 'buyer-country=GRC AND publication-date>=20260301');
  t.strictSame(first.fields, [...TED_FIELDS]);
  t.equal(first.limit, 250);
  t.equal(first.paginationMode, 'ITERATION');
  t.equal(first.scope, 'ALL');
  t.ok(
    upstream.requests.every((r) => r.json.query === first.query),
    'the same query on every page',
  );

  t.strictSame(
    pages.map((p) => numbersOf(p.body)),
    [['150001-2026', '150002-2026'], ['150003-2026', '150004-2026'], ['150005-2026']],
  );
  t.strictSame(
    pages.map((p) => p.checkpoint),
    [{ from: '2026-03-01' }, { from: '2026-03-01' }, { from: '2026-03-10' }],
  );
  t.strictSame(sleeps, []);
});

t.test(
  'when a page stays empty with a token, then it is asked twice more with the same token, and the walk stops although the total is not reached',
  async (t) => {
    const script = [response([1, 2], 10, 't1'), response([], 10, 't2'), response([], 10, 't2'), response([], 10, 't2')];
    const upstream = await startUpstream((_req, i) => (i < script.length ? { body: script[i] } : { status: 500, body: 'too many' }));
    t.teardown(upstream.close);
    const { ctx, sleeps, logs } = harness(upstream.url, { since: '2026-03-01', now: NOW });
    const pages = await collect(ted.fetch(ctx));
    t.equal(upstream.requests.length, 4);
    t.same(
      upstream.requests.slice(1).map((r) => r.json.iterationNextToken),
      ['t1', 't1', 't1'],
      'the same page asked again',
    );
    t.same(sleeps, [2_000, 4_000]);
    t.match(logs.at(-1), { msg: 'a page stayed empty although its envelope says more follow; taken as the end', source: 'ted' });
    t.strictSame(
      pages.map((p) => p.checkpoint),
      [{ from: '2026-03-01' }, { from: '2026-03-10' }],
      'the empty page carries the final checkpoint',
    );
  },
);

t.test('when a page comes back empty once before the total is reached, then it is asked again and the walk goes on', async (t) => {
  const script = [response([1, 2], 3, 't1'), response([], 3, 't2'), response([3], 3, 't2')];
  const upstream = await startUpstream((_req, i) => (i < script.length ? { body: script[i] } : { status: 500, body: 'too many' }));
  t.teardown(upstream.close);
  const { ctx } = harness(upstream.url, { since: '2026-03-01', now: NOW });
  const pages = await collect(ted.fetch(ctx));
  t.same(
    pages.flatMap((p) => numbersOf(p.body)),
    ['150001-2026', '150002-2026', '150003-2026'],
  );
  t.equal(upstream.requests.length, 3);
});

t.test('when the token is null before the total is reached, then the walk stops', async (t) => {
  const upstream = await startUpstream((_req, i) => (i === 0 ? { body: response([1], 4, null) } : { status: 500, body: 'too many' }));
  t.teardown(upstream.close);
  const { ctx } = harness(upstream.url, { since: '2026-03-01', now: NOW });
  const pages = await collect(ted.fetch(ctx));
  t.equal(upstream.requests.length, 1);
  t.strictSame(pages[0]!.checkpoint, { from: '2026-03-10' });
});

t.test('when resuming from a checkpoint or starting fresh, then the query date follows it', async (t) => {
  const upstream = await startUpstream(() => ({ body: response([], 0, null) }));
  t.teardown(upstream.close);
  await collect(ted.fetch(harness(upstream.url, { checkpoint: { from: '2026-02-14' }, now: NOW }).ctx));
  await collect(ted.fetch(harness(upstream.url, { now: NOW }).ctx));
  await collect(createTedSource({ buyerCountry: 'CYP', limit: 100 }).fetch(harness(upstream.url, { since: '2026-03-01', now: NOW }).ctx));
  t.strictSame(
    upstream.requests.map((r) => [r.json.query, r.json.limit]),
    [
      ['buyer-country=GRC AND publication-date>=20260214', 250],
      ['buyer-country=GRC AND publication-date>=20260208', 250], // 30 days back
      ['buyer-country=CYP AND publication-date>=20260301', 100],
    ],
  );
});

t.test('when the server answers 429 with Retry-After, then the client waits that long and re-sends the same body', async (t) => {
  let calls = 0;
  const upstream = await startUpstream(() =>
    calls++ === 0 ? { status: 429, headers: { 'Retry-After': '35' }, body: { message: 'rate limited' } } : { body: response([1], 1, null) },
  );
  t.teardown(upstream.close);
  const { ctx, sleeps } = harness(upstream.url, { since: '2026-03-01', now: NOW });
  const pages = await collect(ted.fetch(ctx));
  t.strictSame(sleeps, [35_000]);
  t.equal(upstream.requests.length, 2);
  t.equal(upstream.requests[0]!.body, upstream.requests[1]!.body);
  t.strictSame(numbersOf(pages[0]!.body), ['150001-2026']);
});

t.test('when the server answers 500 once, then the request is retried after a backoff', async (t) => {
  let calls = 0;
  const upstream = await startUpstream(() => (calls++ === 0 ? { status: 500, body: 'oops' } : { body: response([1], 1, null) }));
  t.teardown(upstream.close);
  const { ctx, sleeps } = harness(upstream.url, { since: '2026-03-01', now: NOW });
  const pages = await collect(ted.fetch(ctx));
  t.equal(sleeps.length, 1);
  t.ok(sleeps[0]! >= 250 && sleeps[0]! <= 500);
  t.equal(pages.length, 1);
});

t.test('when the server answers 400 (a query TED rejects), then the fetch fails at once', async (t) => {
  const upstream = await startUpstream(() => ({ status: 400, body: { message: 'Unknown field' } }));
  t.teardown(upstream.close);
  const { ctx, sleeps } = harness(upstream.url, { since: '2026-03-01', now: NOW });
  const err = await collect(ted.fetch(ctx)).then(
    () => null,
    (e: unknown) => e,
  );
  t.type(err, UpstreamError);
  t.equal((err as UpstreamError).status, 400);
  t.equal(upstream.requests.length, 1);
  t.strictSame(sleeps, []);
});

t.test('when a page is not a search response, then the fetch fails with an UpstreamError', async (t) => {
  const upstream = await startUpstream(() => ({ body: { results: [] } }));
  t.teardown(upstream.close);
  const { ctx } = harness(upstream.url, { since: '2026-03-01', now: NOW });
  await t.rejects(collect(ted.fetch(ctx)), /not a search response/);
});
