// One tenant cannot stall the others: a key (and an organization) has a cap of requests in flight;
// past it the API answers 429 at once, with Retry-After, without counting it against the daily quota,
// and other keys are served meanwhile. The engine side (reader threads shared fairly) is in
// embedded-read-pool.test.ts; the effect under load in docs/benchmarks.md "Reports and tenant fairness".
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHoldingApp, type HoldingApp } from '../helpers/holding-engine.js';

const KEY_FULL = 'Too many requests in flight for this API key (at most 3 at once); retry when one has been answered';

t.test('when one key floods the embedded engine past its cap, then the excess is answered 429 and not counted, and another key is still served', async (t) => {
  const app = await startHoldingApp(t, { PDI_MAX_IN_FLIGHT_PER_KEY: '3' });
  const flooder = app.key('pro', 'Flood Ltd');
  const other = app.key('pro', 'Other SA');
  const slow = [1, 2, 3].map((i) => app.request(`/v1/search?q=hold${i}`, { key: flooder }));
  await app.held(3);

  const flood = await Promise.all(Array.from({ length: 20 }, (_, i) => app.request(`/v1/search?q=flood${i}`, { key: flooder })));
  for (const res of flood) {
    t.equal(res.status, 429);
    t.same(res.body, { detail: KEY_FULL });
    t.equal(res.headers.get('retry-after'), '1');
    t.equal(res.headers.get('x-ratelimit-remaining'), '97', 'the three in flight counted; the refused ones not');
  }
  const served = await app.request('/v1/search?q=σύμβαση', { key: other });
  t.equal(served.status, 200, 'another key is served while the flood goes on');
  t.equal((await app.request('/v1/stats', { key: other })).status, 200);

  app.release();
  t.same(
    (await Promise.all(slow)).map((r) => r.status),
    [200, 200, 200],
  );
  const usage = await app.request('/v1/usage', { key: flooder });
  t.equal(usage.status, 200, 'served again once its requests were answered');
  t.equal(usage.body.daily_used, 4, 'three searches and this; none of the twenty refused');
});

t.test('when the keys of one organization together reach its cap, then each of them is refused with 429, and other organizations are not', async (t) => {
  const app = await startHoldingApp(t, { PDI_MAX_IN_FLIGHT_PER_KEY: '3', PDI_MAX_IN_FLIGHT_PER_ORG: '4' });
  const first = app.key('pro', 'Acme');
  const second = app.key('pro', 'Acme');
  const held = [...[1, 2, 3].map((i) => app.request(`/v1/search?q=hold${i}`, { key: first })), app.request('/v1/search?q=hold4', { key: second })];
  await app.held(4);
  const refused = await app.request('/v1/search?q=x', { key: second });
  t.equal(refused.status, 429);
  t.same(refused.body, { detail: "Too many requests in flight for this organization's API keys (at most 4 at once); retry when one has been answered" });
  t.equal(refused.headers.get('retry-after'), '1');
  t.equal((await app.request('/v1/search?q=x', { key: app.key('pro', 'Other SA') })).status, 200);
  app.release();
  t.same(
    (await Promise.all(held)).map((r) => r.status),
    [200, 200, 200, 200],
  );
  t.equal((await app.request('/v1/search?q=x', { key: second })).status, 200, 'served again once the others were answered');
});

/** A raw MCP tools/list request (stateless: no session needed). */
function mcpList(app: HoldingApp, key: string) {
  return app.request('/mcp', {
    key,
    method: 'POST',
    headers: { Accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  });
}

t.test(
  'when MCP tool calls and /v1 requests of one key together reach its cap, then either is refused 429 with Retry-After and a detail, and another key is still served over MCP',
  async (t) => {
    const app = await startHoldingApp(t, { PDI_MAX_IN_FLIGHT_PER_KEY: '3' });
    const flooder = app.key('enterprise', 'Flood Ltd');
    const other = app.key('enterprise', 'Other SA');
    const client = new Client({ name: 'pdi-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${flooder}` } } }));
    t.teardown(() => client.close());
    const heldCall = client.callTool({ name: 'search_documents', arguments: { query: 'hold1' } });
    const heldSearches = [2, 3].map((i) => app.request(`/v1/search?q=hold${i}`, { key: flooder }));
    await app.held(3);

    const refused = await mcpList(app, flooder);
    t.equal(refused.status, 429, 'an MCP request past the cap');
    t.equal(refused.body.detail, KEY_FULL);
    t.equal(refused.body.jsonrpc, '2.0', 'in the JSON-RPC form MCP clients read');
    t.equal(refused.headers.get('retry-after'), '1');
    t.equal((await app.request('/v1/search?q=x', { key: flooder })).status, 429, 'a /v1 request past the cap, the MCP call counted in');

    const served = await mcpList(app, other);
    t.equal(served.status, 200, 'another key is served over MCP meanwhile');
    t.equal(served.body.result.tools.length, 7);

    app.release();
    t.same(
      (await Promise.all(heldSearches)).map((r) => r.status),
      [200, 200],
    );
    t.notOk(((await heldCall) as { isError?: boolean }).isError, 'the held tool call is answered');
    t.equal((await mcpList(app, flooder)).status, 200, 'served again once its requests were answered');
  },
);

t.test('when /mcp answers, refuses or turns a method away, then the answer carries nosniff and no-store', async (t) => {
  const app = await startHoldingApp(t);
  const cases = [
    ['a tools/list answer', await mcpList(app, app.key('enterprise')), 200],
    ['a Pro key refused', await mcpList(app, app.key('pro')), 403],
    ['no key', await mcpList(app, ''), 401],
    ['GET', await app.request('/mcp', { key: app.key('enterprise') }), 405],
  ] as const;
  for (const [what, res, status] of cases) {
    t.equal(res.status, status, what);
    t.equal(res.headers.get('x-content-type-options'), 'nosniff', `${what}: nosniff`);
    t.equal(res.headers.get('cache-control'), 'no-store', `${what}: no-store`);
  }
});
