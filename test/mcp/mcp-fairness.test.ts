// MCP under the API's caps: each call of a JSON-RPC batch is in flight on its own (a batch of 100 was one
// request to the per-key and per-organization caps), answers carry the X-RateLimit headers, and the
// calls that count nothing still work once the daily quota is spent.
import t from 'tap';
import { utcDay } from '../../lib/clock.js';
import { DAILY_QUOTA } from '../../api/tiers.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startHoldingApp } from '../helpers/holding-engine.js';

const HEADERS = { Accept: 'application/json, text/event-stream' };

function post(app: TestApp, key: string, body: unknown) {
  return app.request('/mcp', { method: 'POST', key, body, headers: HEADERS });
}

const search = (id: number, query: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search_documents', arguments: { query } } });

t.test(
  'when a batch holds more calls than the key may have in flight, then those past the cap get a JSON-RPC 429 and another organization is served',
  async (t) => {
    const app = await startHoldingApp(t, { PDI_MAX_IN_FLIGHT_PER_KEY: '3', PDI_MAX_IN_FLIGHT_PER_ORG: '4' });
    const key = app.key('enterprise', 'Flood Ltd');
    const batch = post(
      app,
      key,
      Array.from({ length: 6 }, (_, i) => search(i + 1, 'hold')),
    );
    // Three calls reach the engine and stay there: the batch holds the key's three slots.
    await app.held(3);
    const same = await app.request('/v1/usage', { key });
    t.equal(same.status, 429, 'the key has no slot left');
    t.match(same.body.detail, /^Too many requests in flight for this API key \(at most 3 at once\)/);
    const sibling = app.key('enterprise', 'Flood Ltd');
    t.equal((await app.request('/v1/usage', { key: sibling })).status, 200, 'the organization has one slot left (4), taken and given back');
    const other = await app.request('/v1/search?q=%CE%BA%CE%B1%CE%B8%CE%B1%CF%81%CE%B9%CF%8C%CF%84%CE%B7%CF%84%CE%B1', {
      key: app.key('enterprise', 'Other SA'),
    });
    t.equal(other.status, 200, 'another organization is served while the batch is held');
    app.release();
    const res = await batch;
    t.equal(res.status, 200);
    const byId = new Map((res.body as { id: number }[]).map((m) => [m.id, m]));
    t.equal(byId.size, 6, 'every call is answered');
    const refused = [...byId.values()].filter((m: any) => m.error);
    t.equal(refused.length, 3, 'the calls past the cap');
    for (const m of refused) {
      t.match(m, { jsonrpc: '2.0', error: { code: -32000, message: /^Too many requests in flight for this API key/, data: { status: 429, retry_after: 1 } } });
      t.equal((m as any).error.data.detail, (m as any).error.message);
    }
    t.equal([...byId.values()].filter((m: any) => m.result).length, 3, 'the calls within it ran');
    t.equal((await app.request('/v1/usage', { key })).status, 200, 'every slot was given back');
  },
);

t.test('when MCP answers, then it carries the X-RateLimit headers: a tool call counts, ping and tools/list do not', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('enterprise');
  const quota = String(DAILY_QUOTA.enterprise);
  const called = await post(app, key, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_sources', arguments: {} } });
  t.equal(called.status, 200);
  t.equal(called.headers.get('x-ratelimit-limit'), quota);
  t.equal(called.headers.get('x-ratelimit-remaining'), String(DAILY_QUOTA.enterprise - 1));
  t.match(called.headers.get('x-ratelimit-reset'), /^\d{10}$/);
  t.equal(called.headers.get('x-tier'), 'enterprise');
  const twice = await post(
    app,
    key,
    [1, 2].map((id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_sources', arguments: {} } })),
  );
  t.equal(twice.headers.get('x-ratelimit-remaining'), String(DAILY_QUOTA.enterprise - 3), 'each call of a batch counts');
  const ping = await post(app, key, [
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  ]);
  t.equal(ping.status, 200);
  t.equal(ping.headers.get('x-ratelimit-remaining'), String(DAILY_QUOTA.enterprise - 3), 'ping and tools/list count nothing');
  const refused = await app.request('/mcp', {
    method: 'POST',
    key: `pdi_live_${'x'.repeat(32)}`,
    body: { jsonrpc: '2.0', id: 1, method: 'ping' },
    headers: HEADERS,
  });
  t.equal(refused.headers.get('x-ratelimit-limit'), null, 'a refused key has no quota to show');
});

t.test('when the daily quota is spent, then initialize, tools/list and ping still answer and a tool call is refused', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('enterprise');
  const keyId = app.app.context.keys.list().find((k) => k.tier === 'enterprise')!.id;
  const day = utcDay(app.app.context.clock());
  for (let i = 0; i < DAILY_QUOTA.enterprise; i++) app.app.context.usage.consume(keyId, day, DAILY_QUOTA.enterprise);
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  };
  // initialize goes alone (the SDK refuses it inside a batch).
  const initialized = await post(app, key, init);
  t.equal(initialized.status, 200);
  t.match(initialized.body, { id: 1, result: { serverInfo: { name: 'public-data-intelligence' } } });
  const res = await post(app, key, [
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    { jsonrpc: '2.0', id: 3, method: 'ping' },
    { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'list_sources', arguments: {} } },
  ]);
  t.equal(res.status, 200);
  const byId = new Map((res.body as { id: number }[]).map((m) => [m.id, m as any]));
  t.equal(byId.get(2).result.tools.length, 7);
  t.same(byId.get(3).result, {});
  t.match(byId.get(4), { result: { isError: true, content: [{ text: /^Daily quota exceeded/ }] } });
  t.equal(res.headers.get('x-ratelimit-remaining'), '0');
});
