import net from 'node:net';
import t from 'tap';
import { CONTRACT_ROUTES } from '../../api/routes/contract-routes.js';
import { pdi } from '../helpers/cli.js';
import { startTestApp } from '../helpers/app.js';

t.test('when no Authorization header is sent, then 401 Missing API key', async (t) => {
  const app = await startTestApp(t);
  const res = await app.request('/v1/sources');
  t.equal(res.status, 401);
  t.same(res.body, { detail: 'Missing API key' });
  t.equal(res.headers.get('content-type'), 'application/json');
  t.equal(res.headers.get('www-authenticate'), 'Bearer', 'RFC 9110 11.6.1: a 401 names the scheme to use');
});

t.test('when the key is unknown or malformed, then 401 Invalid API key', async (t) => {
  const app = await startTestApp(t);
  for (const header of ['Bearer pdi_live_00000000000000000000000000000000', 'Bearer nope', 'Basic abc', 'Bearer']) {
    const res = await app.request('/v1/sources', { headers: { Authorization: header } });
    t.equal(res.status, 401, header);
    t.same(res.body, { detail: 'Invalid API key' }, header);
    t.equal(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"', header);
  }
});

t.test('when a request carries two Authorization headers, then 401 Invalid API key, whichever comes first', async (t) => {
  // Node keeps the first; a proxy in front that checked the last would see another credential.
  const app = await startTestApp(t);
  const key = app.key('enterprise');
  const { hostname, port } = new URL(app.url);
  for (const pair of [
    [key, 'bad'],
    ['bad', key],
    [key, key],
  ]) {
    const socket = net.connect(Number(port), hostname);
    socket.end(`GET /v1/usage HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${pair[0]}\r\nauthorization: Bearer ${pair[1]}\r\nConnection: close\r\n\r\n`);
    const chunks: Buffer[] = [];
    for await (const chunk of socket) chunks.push(chunk as Buffer);
    const [head, body] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
    t.match(head, /^HTTP\/1\.1 401 /, pair.join(' + '));
    t.same(JSON.parse(body!), { detail: 'Invalid API key' });
  }
  t.equal((await app.request('/v1/usage', { key })).status, 200, 'one header is fine');
});

t.test('when requests carry large or malformed credentials, then 401 and the key cache holds none of them', async (t) => {
  const app = await startTestApp(t);
  const keys = app.app.context.keys;
  const known = app.key('pro');
  t.equal((await app.request('/v1/usage', { key: known })).status, 200);
  const before = keys.cachedCredentials;
  const headers = [
    ...Array.from({ length: 50 }, (_, i) => `Bearer pdi_live_${'x'.repeat(10_000)}${i}`),
    ...Array.from({ length: 50 }, (_, i) => `Bearer ${String(i).repeat(2_000)}`),
    // A well-formed key padded with spaces: refused or accepted like the plain form, never memoized.
    `Bearer${' '.repeat(5_000)}${known}`,
  ];
  for (const header of headers) {
    const res = await app.request('/v1/sources', { headers: { Authorization: header } });
    t.equal(res.status, header.includes(known) ? 200 : 401);
  }
  // At most `before`: the cache is also dropped whenever accounts.db changes (the quota writer commits).
  t.ok(keys.cachedCredentials <= before, `nothing memoized for them (${keys.cachedCredentials} of ${before})`);
  await app.request('/v1/sources', { headers: { Authorization: 'Bearer pdi_live_00000000000000000000000000000000' } });
  t.ok(keys.cachedCredentials >= 1, 'a well-formed unknown key is memoized (a SELECT saved per repeat)');
});

t.test('when a valid key calls, then the response carries the rate-limit and tier headers', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('pro');
  const res = await app.request('/v1/sources', { key });
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-ratelimit-limit'), '100');
  t.equal(res.headers.get('x-ratelimit-remaining'), '99');
  t.match(res.headers.get('x-ratelimit-reset'), /^\d{10}$/);
  t.equal(res.headers.get('x-tier'), 'pro');
});

t.test('when a key is revoked by the CLI, then its very next request fails with 401', async (t) => {
  const app = await startTestApp(t);
  const created = app.app.context.keys.create('Revoked Org', 'enterprise');
  t.equal((await app.request('/v1/usage', { key: created.key })).status, 200);
  const revoked = await pdi(app.dataDir, ['keys', 'revoke', created.id]);
  t.equal(revoked.code, 0, revoked.stderr);
  const res = await app.request('/v1/usage', { key: created.key });
  t.equal(res.status, 401);
  t.same(res.body, { detail: 'Invalid API key' });
});

t.test('when GET /v1/models is called without a key, then it lists the models with one default', async (t) => {
  const app = await startTestApp(t, { env: { PDI_ASK_MODELS: 'acme/small, acme/large' } });
  const res = await app.request('/v1/models');
  t.equal(res.status, 200);
  t.same(res.body, {
    models: [
      { id: 'acme/small', default: true },
      { id: 'acme/large', default: false },
    ],
    default: 'acme/small',
    embedding: { model: 'pdi/hashing-384', dimension: 384, fallback: true, service: false },
  });
  t.notOk(res.headers.get('x-ratelimit-limit'), 'no quota headers: models is not counted');
});

t.test(
  'when each tier calls each route, then a request without a key gets 401, the tier gate follows the contract table, and every answer to a key carries its quota headers',
  async (t) => {
    const app = await startTestApp(t);
    const keys = { free: app.key('free'), pro: app.key('pro'), enterprise: app.key('enterprise') };
    const rank = { free: 0, pro: 1, enterprise: 2 } as const;
    const samples: Record<string, string> = {
      ':source': 'ted',
      ':source_id': 'ted:1-2024',
      ':identifier': '090252840',
      ':id': '00000000-0000-0000-0000-000000000000',
    };
    let calls = 0;
    for (const [method, route, need] of CONTRACT_ROUTES) {
      const path = route.replace(/:\w+/g, (m) => encodeURIComponent(samples[m]));
      const httpMethod = method === 'del' ? 'DELETE' : method.toUpperCase();
      const body = method === 'get' || method === 'del' ? undefined : {};
      const anonymous = await app.request(path, { method: httpMethod, body });
      t.equal(anonymous.status, 401, `no key: ${method} ${route}`);
      for (const tier of ['free', 'pro', 'enterprise'] as const) {
        // Each Free key allows 5 calls a day: use a fresh key whenever one would run out.
        if (tier === 'free' && ++calls % 5 === 0) keys.free = app.key('free');
        const res = await app.request(path, { key: keys[tier], method: httpMethod, body });
        if (rank[tier] < rank[need]) {
          t.equal(res.status, 403, `${tier} ${method} ${route}`);
          t.same(res.body, { detail: `This feature requires ${need === 'pro' ? 'a Pro' : 'an Enterprise'} subscription` });
        } else {
          t.not(res.status, 403, `${tier} ${method} ${route}`);
          t.not(res.status, 401, `${tier} ${method} ${route}`);
        }
        // Whatever the route answered (200, 403, 404, 422, 501), it was counted and says so.
        t.equal(res.headers.get('x-tier'), tier, `quota headers: ${tier} ${method} ${route}`);
        t.match(res.headers.get('x-ratelimit-remaining'), /^\d+$/, `quota headers: ${tier} ${method} ${route}`);
      }
    }
  },
);
