// The ingesters' HTTP client against a loopback upstream: Retry-After on every retryable status, POSTs
// never replayed as GETs by a redirect, transport failures named by their cause.
import dns from 'node:dns';
import dnsPromises from 'node:dns/promises';
import t from 'tap';
import { HttpClient, UpstreamError } from '../../ingest/http.js';
import { startUpstream } from '../helpers/loopback-upstream.js';

function client(sleeps: number[], opts: { maxRetryAfterMs?: number; maxBodyBytes?: number; trustedOrigins?: string[] } = {}) {
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
  const err = await client(sleeps, { maxRetryAfterMs: 600_000 })
    .request(`${upstream.url}/x`)
    .catch((e: unknown) => e);
  t.ok(err instanceof UpstreamError);
  t.match((err as Error).message, /answered 429 and asks to be retried after 100000 s, longer than the 600 s this client waits; run the ingest again later/);
  t.same(sleeps, [], 'no sleep of 28 hours');
  t.equal(upstream.requests.length, 1);
});

t.test('when a POST is redirected, then it is not replayed as a GET: the request fails naming the new address', async (t) => {
  for (const status of [301, 302, 303, 307, 308]) {
    const upstream = await startUpstream((req) =>
      req.path === '/search' ? { status, headers: { Location: '/moved/search' }, body: '' } : { body: { method: req.method } },
    );
    t.teardown(upstream.close);
    const err = await client([])
      .request(`${upstream.url}/search`, { method: 'POST', json: { q: 1 } })
      .catch((e: unknown) => e);
    t.match(
      (err as Error).message,
      new RegExp(
        `POST ${upstream.url}/search was redirected \\(${status}\\) to ${upstream.url}/moved/search; a redirected POST is not followed: use the new address`,
      ),
      String(status),
    );
    t.same(
      upstream.requests.map((r) => r.path),
      ['/search'],
      `${status}: nothing sent to the new address`,
    );
  }
  const upstream = await startUpstream((req) => (req.path === '/old' ? { status: 301, headers: { Location: '/new' }, body: '' } : { body: { at: req.path } }));
  t.teardown(upstream.close);
  t.same(JSON.parse((await client([], { trustedOrigins: [upstream.url] }).request(`${upstream.url}/old`)).body), { at: '/new' }, 'a GET is followed');
});

t.test('when an upstream redirects a GET to a loopback address the operator did not name, then it is not followed', async (t) => {
  const inside = await startUpstream(() => ({ body: { secret: true } }));
  t.teardown(inside.close);
  const port = new URL(inside.url).port;
  for (const target of [
    `${inside.url}/admin`,
    `http://localhost:${port}/admin`,
    `http://[::ffff:127.0.0.1]:${port}/admin`,
    `http://[::127.0.0.1]:${port}/admin`,
    `http://[::ffff:0:7f00:1]:${port}/admin`,
  ]) {
    const named = await startUpstream(() => ({ status: 302, headers: { Location: target }, body: '' }));
    t.teardown(named.close);
    // The operator named `named` (--base-url), not `inside`.
    const err = await client([], { trustedOrigins: [named.url] })
      .request(`${named.url}/page`)
      .catch((e: unknown) => e);
    t.ok(err instanceof UpstreamError, target);
    t.match(
      (err as Error).message,
      new RegExp(
        `^GET ${named.url}/page was redirected \\(302\\) to .*/admin, not followed: \\S+ does not resolve to a public address \\(name it with --base-url to ingest from it\\)$`,
      ),
      target,
    );
    t.equal(named.requests.length, 1, `${target}: not retried`);
  }
  t.equal(inside.requests.length, 0, 'nothing reached the loopback address');
});

t.test(
  'when the host of a redirect resolves to a public address at the check and to loopback afterwards, then the connection goes to the address checked',
  async (t) => {
    const inside = await startUpstream(() => ({ body: { secret: true } }));
    t.teardown(inside.close);
    const port = new URL(inside.url).port;
    const named = await startUpstream(() => ({ status: 302, headers: { Location: `http://rebind.test:${port}/admin` }, body: '' }));
    t.teardown(named.close);
    // DNS rebinding: the check's lookup answers a public address (not reachable from here),
    // any later lookup answers loopback, where the server's own network is.
    const checkLookup = dnsPromises.lookup;
    const connectLookup = dns.lookup;
    dnsPromises.lookup = (async (host: string, opts: unknown) =>
      host === 'rebind.test' ? [{ address: '198.51.99.1', family: 4 }] : checkLookup(host, opts as dns.LookupOptions)) as typeof dnsPromises.lookup;
    dns.lookup = ((host: string, opts: unknown, cb: (...a: unknown[]) => void) => {
      if (host !== 'rebind.test') return (connectLookup as (...a: unknown[]) => void)(host, opts, cb);
      const all = typeof opts === 'object' && opts !== null && (opts as { all?: boolean }).all;
      return all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4);
    }) as typeof dns.lookup;
    t.teardown(() => {
      dnsPromises.lookup = checkLookup;
      dns.lookup = connectLookup;
    });
    const http = new HttpClient({ retries: 0, timeoutMs: 2_000, trustedOrigins: [named.url], sleep: async () => {} });
    await http.request(`${named.url}/page`).catch((e: unknown) => e);
    t.equal(inside.requests.length, 0, 'nothing reached the loopback address');
  },
);

t.test('when a redirect changes the scheme other than to https, or redirects go on, then they are not followed past the bound', async (t) => {
  const upstream = await startUpstream((req) => {
    if (req.path === '/ftp') return { status: 301, headers: { Location: 'ftp://files.example/x' }, body: '' };
    const n = Number(/^\/hop(\d+)$/.exec(req.path)?.[1]);
    return { status: 307, headers: { Location: `/hop${n + 1}` }, body: '' };
  });
  t.teardown(upstream.close);
  const http = client([], { trustedOrigins: [upstream.url] });
  const scheme = await http.request(`${upstream.url}/ftp`).catch((e: unknown) => e);
  t.match(
    (scheme as Error).message,
    `GET ${upstream.url}/ftp was redirected (301) to ftp://files.example/x, not followed: a redirect may keep the scheme or move to https, not go from http: to ftp:`,
  );
  const loop = await http.request(`${upstream.url}/hop0`).catch((e: unknown) => e);
  t.match((loop as Error).message, `GET ${upstream.url}/hop0 was redirected (307) to ${upstream.url}/hop6, not followed: more than 5 redirects`);
  t.same(
    upstream.requests.slice(1).map((r) => r.path),
    ['/hop0', '/hop1', '/hop2', '/hop3', '/hop4', '/hop5'],
    'five hops followed, then none, and not retried',
  );
});

t.test('when the connection is refused, then the error names the cause', async (t) => {
  const upstream = await startUpstream(() => ({ body: '' }));
  const url = upstream.url;
  await upstream.close();
  const err = await client([])
    .request(`${url}/x`)
    .catch((e: unknown) => e);
  t.match((err as Error).message, /failed: fetch failed \(.*ECONNREFUSED.*\)/);
});

t.test('when a body is larger than the client accepts, then the request fails at once, whether its length is declared or not', async (t) => {
  const big = 'x'.repeat(5_000);
  const upstream = await startUpstream((req, _i, res) => {
    if (req.path === '/declared') return { body: big };
    // No Content-Length: chunks until the client gives up, never a whole body.
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write(big), 1);
    res.on('close', () => clearInterval(timer));
    return null;
  });
  t.teardown(upstream.close);
  const sleeps: number[] = [];
  for (const path of ['/declared', '/chunked']) {
    const err = await client(sleeps, { maxBodyBytes: 1_000 })
      .request(`${upstream.url}${path}`)
      .catch((e: unknown) => e);
    t.ok(err instanceof UpstreamError, path);
    t.match(
      (err as Error).message,
      new RegExp(`GET ${upstream.url}${path} sent a body over 1000 bytes, more than this client accepts \\(a page this large is an upstream fault\\)`),
      path,
    );
  }
  t.same(
    upstream.requests.map((r) => r.path),
    ['/declared', '/chunked'],
    'not retried',
  );
  t.same(sleeps, []);
  t.equal((await client(sleeps, { maxBodyBytes: 5_000 }).request(`${upstream.url}/declared`)).body, big, 'a body at the limit is read');
});

t.test('when the run is stopped, then a request waiting on an upstream that does not answer ends at once, and no retry follows', async (t) => {
  const upstream = await startUpstream(() => null); // never answers
  t.teardown(upstream.close);
  const stop = new AbortController();
  const sleeps: number[] = [];
  const pending = new HttpClient({ signal: stop.signal, sleep: async (ms) => void sleeps.push(ms) }).request(`${upstream.url}/x`).catch((e: unknown) => e);
  while (upstream.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
  stop.abort('SIGINT');
  const err = await pending;
  t.ok(err instanceof UpstreamError);
  t.equal((err as Error).message, `GET ${upstream.url}/x stopped: SIGINT`);
  t.same(sleeps, [], 'no retry');
  t.equal(upstream.requests.length, 1);
});

t.test('when the run is stopped while the client waits to retry, then the wait ends at once', async (t) => {
  // A test that breaks this hangs on the 600 s wait until tap's timeout fails it.
  const upstream = await startUpstream(() => ({ status: 503, headers: { 'Retry-After': '600' }, body: '' }));
  t.teardown(upstream.close);
  const stop = new AbortController();
  const pending = new HttpClient({ signal: stop.signal }).request(`${upstream.url}/x`).catch((e: unknown) => e);
  while (upstream.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 50));
  stop.abort('SIGTERM');
  t.equal(((await pending) as Error).message, `GET ${upstream.url}/x stopped: SIGTERM`);
  t.equal(upstream.requests.length, 1);
});

t.test('when the run was stopped before a request, then it is not sent', async (t) => {
  const upstream = await startUpstream(() => ({ body: {} }));
  t.teardown(upstream.close);
  const stop = new AbortController();
  stop.abort('shutdown');
  const err = await new HttpClient({ signal: stop.signal }).request(`${upstream.url}/x`).catch((e: unknown) => e);
  t.equal((err as Error).message, `GET ${upstream.url}/x stopped: shutdown`);
  t.equal(upstream.requests.length, 0);
});
