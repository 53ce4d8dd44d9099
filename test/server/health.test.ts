// GET /healthz: 200 when the engine answers, 503 with a detail when it refuses or stays silent.
import t from 'tap';
import { HEALTH_DEADLINE_MS } from '../../api/routes/health.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { startTestApp } from '../helpers/app.js';
import { silentPeer } from '../helpers/silent-peer.js';

const engineAt = (url: string, prefix: string, requestTimeoutMs: number) =>
  new ElasticsearchProvider({ url, prefix, dimension: 384, embeddingModel: 'pdi/hashing-384', requestTimeoutMs });

t.test('when the engine answers, then /healthz is 200 with status ok and the engine, with no key and no quota', async (t) => {
  const app = await startTestApp(t);
  for (let i = 0; i < 3; i++) {
    const res = await app.request('/healthz');
    t.equal(res.status, 200);
    t.same(res.body, { status: 'ok', engine: 'embedded' });
    t.equal(res.headers.get('x-ratelimit-limit'), null, 'no quota headers');
  }
  const head = await app.request('/healthz', { method: 'HEAD' });
  t.equal(head.status, 200);
});

t.test('when the engine refuses connections, then /healthz is 503 with a detail naming the engine', async (t) => {
  // A port nothing listens on.
  const search = engineAt('http://127.0.0.1:9', 'health-down', 2_000);
  t.teardown(() => search.close());
  const app = await startTestApp(t, { search });
  const res = await app.request('/healthz');
  t.equal(res.status, 503);
  t.same(res.body, { detail: 'The search engine (elasticsearch) does not answer' });
});

t.test('when the engine accepts but never answers, then /healthz is 503 once the deadline passes', async (t) => {
  const silent = await silentPeer(t);
  // The client's own timeout is longer than the health deadline: the deadline must be what ends it.
  const search = engineAt(silent.url, 'health-silent', HEALTH_DEADLINE_MS * 3);
  t.teardown(() => search.close());
  const app = await startTestApp(t, { search });
  const res = await app.request('/healthz');
  t.equal(res.status, 503);
  t.same(res.body, { detail: `The search engine (elasticsearch) did not answer within ${HEALTH_DEADLINE_MS} ms` });
});
