// Every engine read of a request has a server-side deadline (PDI_ENGINE_DEADLINE): a read past it is
// abandoned and the client gets a 504 that says so, on either engine, and the API keeps serving. Ask's
// question embedding has it too: a silent embeddings service is a 503 that names the service.
import t from 'tap';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { startTestApp } from '../helpers/app.js';
import { deleteIndices, elasticsearchUrl, randomPrefix } from '../helpers/elasticsearch.js';
import { connectToPeer, startEmbeddingPeer } from '../helpers/embedding-service.js';
import { startHoldingApp } from '../helpers/holding-engine.js';
import { holdingProxy } from '../helpers/holding-proxy.js';

const TIMED_OUT = { detail: 'The search engine did not answer within 1 s; try again, or narrow the query' };

t.test('when an embedded read runs past the deadline, then 504 with a detail, and the key is served again at once', async (t) => {
  const app = await startHoldingApp(t, { PDI_ENGINE_DEADLINE: '1s', PDI_MAX_IN_FLIGHT_PER_KEY: '1' });
  const key = app.key('pro');
  const res = await app.request('/v1/search?q=hold', { key });
  t.equal(res.status, 504);
  t.same(res.body, TIMED_OUT);
  t.equal(res.headers.get('x-ratelimit-remaining'), '99', 'counted, as any answered request');
  // /v1/usage reads no engine: it shows the request's one slot in flight (PDI_MAX_IN_FLIGHT_PER_KEY) given back.
  t.equal((await app.request('/v1/usage', { key })).status, 200, 'its slot in flight was given back');
});

t.test('when an entity read runs past the deadline, then /v1/entity and the MCP tool answer 504 with a detail, and the key is served again', async (t) => {
  const app = await startHoldingApp(t, { PDI_ENGINE_DEADLINE: '1s', PDI_MAX_IN_FLIGHT_PER_KEY: '1' });
  const key = app.key('enterprise');
  const res = await app.request('/v1/entity/hold?type=name', { key });
  t.equal(res.status, 504);
  t.same(res.body, TIMED_OUT);
  t.equal((await app.request('/v1/usage', { key })).status, 200, 'its slot in flight was given back');
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'resolve_entity', arguments: { identifier: 'hold on', type: 'name' } } };
  const mcp = await app.request('/mcp', { method: 'POST', key, body: call, headers: { Accept: 'application/json, text/event-stream' } });
  t.match(mcp.body, { id: 1, result: { isError: true, content: [{ type: 'text', text: TIMED_OUT.detail }] } });
});

t.test('when an Elasticsearch read runs past the deadline, then 504 with a detail, and the engine request is closed', async (t) => {
  const url = await elasticsearchUrl(t);
  // Everything reaches Elasticsearch except searches, which hang as a very slow one would.
  const proxy = await holdingProxy(t, url, (req) => (req.url ?? '').includes('/_search'));
  const prefix = randomPrefix();
  // A request timeout far beyond the deadline: only the deadline ends the request in time.
  const search = new ElasticsearchProvider({ url: proxy.url, prefix, dimension: 384, embeddingModel: 'pdi/hashing-384', requestTimeoutMs: 60_000 });
  t.teardown(async () => {
    await search.close();
    await deleteIndices(url, prefix);
  });
  const app = await startTestApp(t, { search, env: { PDI_ENGINE_DEADLINE: '1s' } });
  const key = app.key('pro');
  const answer = app.request(`/v1/search?q=${encodeURIComponent('σύμβαση')}`, { key });
  const held = await proxy.nextHeld();
  const res = await answer;
  t.equal(res.status, 504);
  t.same(res.body, TIMED_OUT);
  await held.closed;
  t.pass('the engine request was closed by the deadline');
  t.equal((await app.request('/v1/usage', { key })).status, 200);
});

t.test("when ask's engine read runs past the deadline, then 504 with a detail, as any other read", async (t) => {
  const app = await startHoldingApp(t, { PDI_ENGINE_DEADLINE: '1s' });
  const res = await app.request('/v1/ask', { key: app.key('enterprise'), method: 'POST', body: { question: 'hold the harbour works' } });
  t.equal(res.status, 504);
  t.same(res.body, TIMED_OUT);
});

t.test(
  'when the embedding service never answers a question, then ask and the MCP tool answer 503 naming the service at the deadline, not after its retries',
  async (t) => {
    const peer = await startEmbeddingPeer();
    t.teardown(() => peer.close());
    // The service's own bounds as configured by default: 30 s a request, 4 retries (about 2.6 minutes).
    const embedder = await connectToPeer(peer);
    const app = await startTestApp(t, { embedder, env: { PDI_ENGINE_DEADLINE: '1s' } });
    const key = app.key('enterprise');
    const arrived = peer.arrivals;
    peer.holdNext(10);
    const res = await app.request('/v1/ask', { key, method: 'POST', body: { question: 'school meals' } });
    t.equal(res.status, 503);
    t.same(res.body, { detail: 'The embedding service did not answer within 1 s; try again shortly' });
    t.notMatch(res.text, new URL(peer.url).host, "the service's address is the operator's");
    t.equal(peer.arrivals - arrived, 1, 'one request reached the service, and no retry followed');
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask_question', arguments: { question: 'school buses' } } };
    const mcp = await app.request('/mcp', { method: 'POST', key, body: call, headers: { Accept: 'application/json, text/event-stream' } });
    t.match(mcp.body, {
      id: 1,
      result: { isError: true, content: [{ type: 'text', text: 'The embedding service did not answer within 1 s; try again shortly' }] },
    });
  },
);
