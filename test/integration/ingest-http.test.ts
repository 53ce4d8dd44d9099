// The ingesters' HTTP client against a loopback upstream: Retry-After on every retryable status, POSTs
// never replayed as GETs by a redirect, transport failures named by their cause.
import t from 'tap';
import { HttpClient, UpstreamError } from '../../ingest/http.js';
import { startUpstream } from '../helpers/loopback-upstream.js';

function client(sleeps: number[], opts: { maxRetryAfterMs?: number } = {}) {
  return new HttpClient({ retries: 2, baseDelayMs: 10, intervalCap: 1000, intervalMs: 1, sleep: async (ms) => void sleeps.push(ms), ...opts });
}

t.test('when a 503 says Retry-After, then the client waits that long before trying again', async (t) => {
  const upstream = await startUpstream((_req, i) => (i === 0 ? { status: 503, headers: { 'Retry-After': '7' }, body: 'maintenance' } : { body: { ok: true } }));
  t.teardown(upstream.close);
  const sleeps: number[] = [];
  const res = await client(sleeps).request(`${upstream.url}/x`);
  t.equal(res.status, 200);
  t.same(sleeps, [7_000]);
});

t.test('when Retry-After is an HTTP date, then the client waits until then', async (t) => {
  const at = new Date(Date.now() + 20_000).toUTCString();
  const upstream = await startUpstream((_req, i) => (i === 0 ? { status: 429, headers: { 'Retry-After': at }, body: '' } : { body: { ok: true } }));
  t.teardown(upstream.close);
  const sleeps: number[] = [];
  await client(sleeps).request(`${upstream.url}/x`);
  t.equal(sleeps.length, 1);
  t.ok(sleeps[0] > 15_000 && sleeps[0] <= 20_000, `waited ${sleeps[0]} ms`);
});

t.test('when Retry-After asks for longer than the client waits, then the request fails at once saying so', async (t) => {
  const upstream = await startUpstream(() => ({ status: 429, headers: { 'Retry-After': '100000' }, body: '' }));
  t.teardown(upstream.close);
  const sleeps: number[] = [];
  const err = await client(sleeps, { maxRetryAfterMs: 600_000 }).request(`${upstream.url}/x`).catch((e: unknown) => e);
  t.ok(err instanceof UpstreamError);
  t.match((err as Error).message, /answered 429 and asks to be retried after 100000 s, longer than the 600 s this client waits; run the ingest again later/);
  t.same(sleeps, [], 'no sleep of 28 hours');
  t.equal(upstream.requests.length, 1);
});

t.test('when a POST is redirected, then it is not replayed as a GET: the request fails naming the new address', async (t) => {
  for (const status of [301, 302, 303, 307, 308]) {
    const upstream = await startUpstream((req) => (req.path === '/search' ? { status, headers: { Location: '/moved/search' }, body: '' } : { body: { method: req.method } }));
    t.teardown(upstream.close);
    const err = await client([]).request(`${upstream.url}/search`, { method: 'POST', json: { q: 1 } }).catch((e: unknown) => e);
    t.match((err as Error).message, new RegExp(`POST ${upstream.url}/search was redirected \\(${status}\\) to ${upstream.url}/moved/search; a redirected POST is not followed: use the new address`), String(status));
    t.same(upstream.requests.map((r) => r.path), ['/search'], `${status}: nothing sent to the new address`);
  }
  const upstream = await startUpstream((req) => (req.path === '/old' ? { status: 301, headers: { Location: '/new' }, body: '' } : { body: { at: req.path } }));
  t.teardown(upstream.close);
  t.same(JSON.parse((await client([]).request(`${upstream.url}/old`)).body), { at: '/new' }, 'a GET is followed');
});

t.test('when the connection is refused, then the error names the cause', async (t) => {
  const upstream = await startUpstream(() => ({ body: '' }));
  const url = upstream.url;
  await upstream.close();
  const err = await client([]).request(`${url}/x`).catch((e: unknown) => e);
  t.match((err as Error).message, /failed: fetch failed \(.*ECONNREFUSED.*\)/);
});
