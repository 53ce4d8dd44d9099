// An embedding service and an Elasticsearch node that accept connections and never answer (real
// loopback listeners): `pdi status` answers within its 10 s, printing everything it knows and naming
// what did not answer; the server's start fails in a bounded time naming the embedding service, and
// starts without Elasticsearch, serving every route that needs neither.
import t from 'tap';
import { request, tempDir } from '../helpers/app.js';
import { pdi } from '../helpers/cli.js';
import { startServerProcess } from '../helpers/server-process.js';
import { silentPeer } from '../helpers/silent-peer.js';

/**
 * Each test's own timeout bounds the wait: the product's bounds (10 s for status, PDI_EMBED_TIMEOUT for a
 * start) plus a CLI or server start on a busy machine; before, status waited 150 s and a start as long.
 */
const BOUND = { timeout: 30_000 };

t.test('when PDI_EMBED_URL names a service that never answers, then pdi status prints everything else, names the service and exits 1', BOUND, async (t) => {
  const service = await silentPeer(t);
  const dataDir = tempDir(t);
  const status = await pdi(dataDir, ['status'], { PDI_EMBED_URL: `${service.url}/v1`, PDI_EMBED_MODEL: 'test/model' });
  t.equal(status.code, 1, status.stderr);
  t.ok(service.accepted > 0, 'the service was asked');
  t.match(
    status.stdout,
    new RegExp(
      `^engine embedded; embedding test/model \\(UNAVAILABLE: embedding service ${service.url}/v1/embeddings: no answer within 5 s: check that the service runs at PDI_EMBED_URL.*\\); 0 documents$`,
      'm',
    ),
  );
  t.match(status.stdout, /^ {2}kimdis +0 indexed +0 stored +never ingested$/m, 'the sources are listed');

  const json = await pdi(dataDir, ['status', '--json'], { PDI_EMBED_URL: `${service.url}/v1`, PDI_EMBED_MODEL: 'test/model' });
  t.match(JSON.parse(json.stdout), {
    engine_error: null,
    total_documents: 0,
    embedding: { model: 'test/model', dimension: null, service: true, endpoint: `${service.url}/v1/embeddings`, error: /no answer within 5 s/ },
  });
});

t.test(
  'when the server starts with an embedding service that never answers, then it fails within PDI_EMBED_TIMEOUT naming the service and what to check',
  BOUND,
  async (t) => {
    const service = await silentPeer(t);
    const failed = await startServerProcess(t, {
      PDI_DATA_DIR: tempDir(t),
      PDI_EMBED_URL: `${service.url}/v1`,
      PDI_EMBED_MODEL: 'test/model',
      // Retries included: four retries of 1 s each used to follow the first.
      PDI_EMBED_TIMEOUT: '1s',
    }).catch((err: Error) => err);
    t.type(failed, Error, 'the server did not listen');
    t.match(
      (failed as Error).message,
      new RegExp(
        `exited \\(1\\) before listening: Failed to start: embedding service ${service.url}/v1/embeddings: no answer within 1 s: check that the service runs at PDI_EMBED_URL and serves PDI_EMBED_MODEL test/model`,
      ),
    );
  },
);

t.test('when ELASTICSEARCH_URL names a node that never answers, then pdi status prints everything else, names the node and exits 1', BOUND, async (t) => {
  const node = await silentPeer(t);
  const status = await pdi(tempDir(t), ['status'], { ELASTICSEARCH_URL: node.url });
  t.equal(status.code, 1);
  t.ok(node.accepted > 0, 'the node was asked');
  t.match(
    status.stdout,
    new RegExp(
      `^engine elasticsearch at ${node.url}; embedding pdi/hashing-384 \\(384-d, lexical fallback, in this process\\); UNAVAILABLE \\(The search engine \\(elasticsearch\\) is unavailable; try again shortly \\(stats: no answer within \\d+ ms\\)\\): indexed counts unknown$`,
      'm',
    ),
  );
  t.match(status.stdout, /^ {2}ted +\? indexed +0 stored +never ingested$/m, 'the sources are listed');
});

t.test(
  'when the server starts with an Elasticsearch that never answers, then it serves the routes that need no engine, and /healthz and index routes answer 503 naming it',
  BOUND,
  async (t) => {
    const node = await silentPeer(t);
    const dataDir = tempDir(t);
    const server = await startServerProcess(t, { PDI_DATA_DIR: dataDir, ELASTICSEARCH_URL: node.url });
    const warned = await server.logged(/did not answer at start/);
    t.equal(
      warned.msg,
      `Elasticsearch at ${node.url} did not answer at start: index routes answer 503 until it does; check that it runs there, that ELASTICSEARCH_URL names it and that this machine reaches it`,
    );
    const created = await pdi(dataDir, ['keys', 'create', '--org', 'Acme', '--tier', 'pro', '--json']);
    const { key } = JSON.parse(created.stdout);
    t.equal((await request(server.url, '/v1/usage', { key })).status, 200, 'a route that needs no engine answers');
    t.equal((await request(server.url, '/v1/models')).status, 200);
    const stats = await request(server.url, '/v1/stats', { key });
    t.equal(stats.status, 503);
    t.same(stats.body, { detail: 'The search engine (elasticsearch) is unavailable; try again shortly' });
    const health = await request(server.url, '/healthz');
    t.equal(health.status, 503);
    t.match(health.body, { detail: /^The search engine \(elasticsearch\) (did not answer within 2000 ms|does not answer)$/ });
    await server.kill();
  },
);
