// A client that goes away (a timeout, a closed connection) must not leave engine work running for it:
// the API's reads take a signal that aborts when the response can no longer be delivered
// (api/middleware/client-gone.ts). The embedded engine's side is in embedded-read-pool.test.ts.
import { get } from 'node:http';
import t from 'tap';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { startTestApp } from '../helpers/app.js';
import { deleteIndices, elasticsearchUrl, randomPrefix } from '../helpers/elasticsearch.js';
import { holdingProxy } from '../helpers/holding-proxy.js';

t.test('when the client goes away during a search on Elasticsearch, then the API abandons the engine request and keeps serving', async (t) => {
  const url = await elasticsearchUrl(t);
  // Everything reaches Elasticsearch except searches, which hang as a very slow one would.
  const proxy = await holdingProxy(t, url, (req) => (req.url ?? '').includes('/_search'));
  const prefix = randomPrefix();
  // A request timeout far beyond the wait below: only abandoning the request closes it in time.
  const search = new ElasticsearchProvider({ url: proxy.url, prefix, dimension: 384, embeddingModel: 'pdi/hashing-384', requestTimeoutMs: 60_000 });
  t.teardown(async () => {
    await search.close();
    await deleteIndices(url, prefix);
  });
  const app = await startTestApp(t, { search });
  const key = app.key('pro');

  const client = get(`${app.url}/v1/search?q=${encodeURIComponent('σύμβαση')}`, { headers: { Authorization: `Bearer ${key}` } });
  client.on('error', () => {});
  const held = await proxy.nextHeld();
  t.match(held.path, /\/_search/, 'the search reached the engine');
  client.destroy();
  const closed = await Promise.race([held.closed.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 20_000).unref())]);
  t.ok(closed, 'the engine request was closed once its client had gone');

  const usage = await app.request('/v1/usage', { key });
  t.equal(usage.status, 200, 'the API answers the next request');
  t.equal(usage.body.daily_used, 2, 'the abandoned search counted against the quota, as any answered request');
});
