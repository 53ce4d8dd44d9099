// A client that goes away (a timeout, a closed connection) must not leave engine work running for it:
// the API's reads take a signal that aborts when the response can no longer be delivered
// (api/middleware/client-gone.ts), searches and entity reads alike. The embedded engine's side is in
// embedded-read-pool.test.ts.
import { get } from 'node:http';
import { BroadcastChannel } from 'node:worker_threads';
import t from 'tap';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { startTestApp } from '../helpers/app.js';
import { deleteIndices, elasticsearchUrl, randomPrefix } from '../helpers/elasticsearch.js';
import { until } from '../helpers/alert-peers.js';
import { startHoldingApp } from '../helpers/holding-engine.js';
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

t.test('when the client of a queued entity read goes away, then the read is dropped and never reaches a reader thread', async (t) => {
  const app = await startHoldingApp(t, { PDI_MAX_IN_FLIGHT_PER_KEY: '8' });
  const key = app.key('enterprise');
  const heldTexts: string[] = [];
  const channel = new BroadcastChannel('pdi-test-holding-reader');
  channel.onmessage = ({ data }) => {
    if (typeof data === 'object' && data !== null && 'held' in data) heldTexts.push(String(data.held));
  };
  t.teardown(() => channel.close());
  const entity = (name: string) => app.request(`/v1/entity/${encodeURIComponent(name)}?type=name`, { key });
  // Seven of the eight reader threads, the most one key may hold: its eighth read waits in the queue.
  const held = Array.from({ length: 7 }, (_, i) => entity(`hold ${i}`));
  await app.held(7);
  const gone = get(`${app.url}/v1/entity/${encodeURIComponent('hold gone')}?type=name`, { headers: { Authorization: `Bearer ${key}` } });
  gone.on('error', () => {});
  // Its eighth slot in flight is taken once the server is at the read: the key is then refused.
  await until(async () => (await app.request('/v1/usage', { key })).status === 429, 'the eighth read in flight');
  gone.destroy();
  await until(async () => (await app.request('/v1/usage', { key })).status === 200, 'its slot given back');
  app.release();
  for (const res of await Promise.all(held)) t.equal(res.status, 200);
  // The key's reads are served in order: one still queued would have reached a thread before this one.
  const last = entity('hold last');
  await until(() => heldTexts.includes('hold last'), 'the next read held');
  await new Promise((r) => setTimeout(r, 200));
  app.release();
  t.equal((await last).status, 200);
  t.notOk(heldTexts.includes('hold gone'), 'the abandoned read never ran');
});
