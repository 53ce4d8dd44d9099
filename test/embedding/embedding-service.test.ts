// Embeddings from an OpenAI-compatible service (lib/embedding/service-embedder.ts) against a real
// loopback peer speaking the protocol (test/helpers/embedding-service.ts), and the server and CLI
// that use it on both engines.
import t, { type Test } from 'tap';
import { startServer } from '../../api/server.js';
import { loadConfig, type EmbedService } from '../../lib/config.js';
import { HashingEmbedder } from '../../lib/embedding/hashing-embedder.js';
import { EmbeddingServiceError, ServiceEmbedder } from '../../lib/embedding/service-embedder.js';
import { createLogger } from '../../lib/logger.js';
import { request, tempDir } from '../helpers/app.js';
import { pdi } from '../helpers/cli.js';
import { deleteIndices, elasticsearchUrl, randomPrefix } from '../helpers/elasticsearch.js';
import { startEmbeddingPeer, type EmbeddingPeer } from '../helpers/embedding-service.js';
import { startUpstream, type Responder, type Upstream } from '../helpers/loopback-upstream.js';

t.setTimeout(240_000);

async function peerFor(t: Test, opts: Parameters<typeof startEmbeddingPeer>[0] = {}): Promise<EmbeddingPeer> {
  const peer = await startEmbeddingPeer(opts);
  t.teardown(() => peer.close());
  return peer;
}

function service(peer: EmbeddingPeer, over: Partial<EmbedService> = {}): EmbedService {
  return {
    url: peer.url,
    key: null,
    model: 'test/hashing',
    batchSize: 4,
    concurrency: 2,
    timeoutMs: 5_000,
    retries: 2,
    queryPrefix: '',
    passagePrefix: '',
    ...over,
  };
}

const texts = Array.from({ length: 10 }, (_, i) => `Σύμβαση ${i}: προμήθεια ηλεκτρονικών υπολογιστών για το σχολείο ${i}`);

t.test(
  'when more texts than the batch size are embedded, then the service receives input arrays of that size and the vectors come back in order',
  async (t) => {
    const peer = await peerFor(t);
    const e = await ServiceEmbedder.connect({ ...service(peer), backoffMs: 1 });
    t.equal(e.dimension, 384, 'the length comes from the probe');
    t.equal(e.id, 'test/hashing');
    peer.requests.length = 0;
    const vectors = await e.embed(texts);
    t.same(
      peer.requests.map((r) => r.input.length),
      [4, 4, 2],
    );
    t.ok(
      peer.requests.every((r) => r.model === 'test/hashing' && r.authorization === undefined),
      'the model member; no key, no header',
    );
    const direct = await new HashingEmbedder().embed(texts);
    t.equal(vectors.length, texts.length);
    vectors.forEach((v, i) => t.ok(Math.abs(v.reduce((s, x, k) => s + x * direct[i][k], 0) - 1) < 1e-9, `vector ${i} is the peer's vector for text ${i}`));
  },
);

t.test('when concurrency is 2 and many batches wait, then at most 2 requests are in flight', async (t) => {
  const peer = await peerFor(t);
  const e = await ServiceEmbedder.connect({ ...service(peer, { batchSize: 1, concurrency: 2 }) });
  peer.delayMs = 30;
  await Promise.all([e.embed(texts.slice(0, 5)), e.embed(texts.slice(5))]);
  t.equal(peer.maxInFlight, 2);
});

t.test('when prefixes are set, then queries and passages carry theirs, and the id names them', async (t) => {
  const peer = await peerFor(t);
  const e = await ServiceEmbedder.connect(service(peer, { queryPrefix: 'query: ', passagePrefix: 'passage: ' }));
  t.equal(e.id, 'test/hashing|query="query: "|passage="passage: "');
  peer.requests.length = 0;
  await e.embed(['roads in Attica'], 'query');
  await e.embed(['Road works in Attica']);
  t.same(
    peer.requests.map((r) => r.input),
    [['query: roads in Attica'], ['passage: Road works in Attica']],
  );
});

t.test('when a key is configured, then every request carries it as a Bearer token; a wrong key fails naming the endpoint and 401, never the key', async (t) => {
  const peer = await peerFor(t, { key: 'sk-right-one' });
  const e = await ServiceEmbedder.connect(service(peer, { key: 'sk-right-one' }));
  await e.embed(texts);
  t.ok(peer.requests.length > 1 && peer.requests.every((r) => r.authorization === 'Bearer sk-right-one'));
  const err = await ServiceEmbedder.connect(service(peer, { key: 'sk-wrong-secret' })).catch((e: Error) => e);
  t.type(err, EmbeddingServiceError);
  t.match((err as Error).message, `embedding service ${peer.url}/embeddings: answered 401`);
  t.notMatch((err as Error).message, 'sk-wrong-secret');
});

t.test(
  'when the service answers 503, then the request is tried again after Retry-After and succeeds; past the retries it fails naming the status',
  async (t) => {
    const peer = await peerFor(t);
    const e = await ServiceEmbedder.connect({ ...service(peer, { retries: 2 }), backoffMs: 1 });
    peer.requests.length = 0;
    peer.arrivals = 0;
    peer.failNext(2, 503, '0');
    const vectors = await e.embed(texts.slice(0, 2));
    t.equal(vectors.length, 2);
    t.equal(peer.arrivals, 3, 'two 503s, then the answer');
    peer.failNext(3, 503);
    const err = await e.embed(texts.slice(0, 2)).catch((e: Error) => e);
    t.match((err as Error).message, new RegExp(`^embedding service ${peer.url}/embeddings: answered 503: .*failing on purpose`));
    peer.failNext(1, 429, '120');
    const tooLong = await e.embed(texts.slice(0, 2)).catch((e: Error) => e);
    t.match((tooLong as Error).message, /answered 429.*Retry-After 120 s is too long to wait/, 'a Retry-After past a minute is not waited for');
    peer.failNext(1, 400);
    peer.arrivals = 0;
    const refused = await e.embed(texts.slice(0, 2)).catch((e: Error) => e);
    t.match((refused as Error).message, /answered 400/);
    t.equal(peer.arrivals, 1, 'a 400 is not tried again');
  },
);

t.test('when the service answers 429 or drops the connection, then the request is tried again after a backoff that doubles, and succeeds', async (t) => {
  const peer = await peerFor(t);
  const e = await ServiceEmbedder.connect({ ...service(peer, { retries: 3 }), backoffMs: 200 });
  peer.arrivedAt.length = 0;
  peer.failNext(1, 429);
  peer.dropNext(1);
  const vectors = await e.embed(texts.slice(0, 2));
  t.equal(vectors.length, 2);
  t.equal(peer.arrivedAt.length, 3, 'a 429, a dropped connection, then the answer');
  const waits = peer.arrivedAt.slice(1).map((at, i) => at - peer.arrivedAt[i]);
  // The n-th retry waits backoffMs * 2^(n-1), times 0.5-1 (jitter).
  t.ok(waits[0] >= 100 && waits[1] >= 200, `waited ${waits.map((w) => Math.round(w))} ms`);
});

t.test('when the service does not answer within the timeout, then the call fails saying so', async (t) => {
  const peer = await peerFor(t);
  const e = await ServiceEmbedder.connect(service(peer, { timeoutMs: 300, retries: 1 }));
  peer.arrivals = 0;
  peer.holdNext(2);
  const err = await e.embed(['held']).catch((e: Error) => e);
  t.equal((err as Error).message, `embedding service ${peer.url}/embeddings: no answer within 0.3 s`);
  t.equal(peer.arrivals, 2, 'tried once more');
});

t.test('when nothing listens at the URL, then connecting fails naming the endpoint', async (t) => {
  const gone = await startEmbeddingPeer();
  await gone.close();
  const err = await ServiceEmbedder.connect({
    url: gone.url,
    key: 'k',
    model: 'm',
    batchSize: 1,
    concurrency: 1,
    timeoutMs: 1000,
    retries: 1,
    queryPrefix: '',
    passagePrefix: '',
    backoffMs: 1,
  }).catch((e: Error) => e);
  t.equal(
    (err as Error).message,
    `embedding service ${gone.url}/embeddings: unreachable (ECONNREFUSED): check that the service runs at PDI_EMBED_URL and serves PDI_EMBED_MODEL m for PDI_EMBED_KEY`,
  );
});

/** A peer that answers the probe with a vector, then answers every later request with `then`. */
async function probeThen(t: Test, then: Responder): Promise<Upstream> {
  const peer = await startUpstream(async (req, i, res) => {
    if (i > 0) return then(req, i, res);
    const [embedding] = await new HashingEmbedder().embed(req.json.input);
    return { body: { data: [{ index: 0, embedding }] } };
  });
  t.teardown(() => peer.close());
  return peer;
}

const connectTo = (peer: Upstream) =>
  ServiceEmbedder.connect({
    url: `${peer.url}/v1`,
    key: 'sk-test',
    model: 'm',
    batchSize: 8,
    concurrency: 1,
    timeoutMs: 5_000,
    retries: 2,
    queryPrefix: '',
    passagePrefix: '',
    backoffMs: 1,
  });

t.test('when the service redirects, then the call fails naming the redirect, is not tried again, and nothing reaches the target', async (t) => {
  const target = await startEmbeddingPeer();
  t.teardown(() => target.close());
  const peer = await probeThen(t, () => ({ status: 307, headers: { location: `${target.url}/embeddings` } }));
  const e = await connectTo(peer);
  const err = await e.embed(['Σύμβαση καθαριότητας']).catch((e: Error) => e);
  t.type(err, EmbeddingServiceError);
  t.equal(
    (err as Error).message,
    `embedding service ${peer.url}/v1/embeddings: answered 307, a redirect to ${target.url}/embeddings: not followed (set PDI_EMBED_URL to the address that answers)`,
  );
  t.equal(peer.requests.length, 2, 'the probe and the one request: a redirect is not retried');
  t.equal(target.arrivals, 0, 'neither the text nor the key went to the redirect target');
});

t.test('when the service streams a body without end, then the call stops reading at its cap and fails saying so, not retried', async (t) => {
  let closed!: () => void;
  const gone = new Promise<void>((resolve) => (closed = resolve));
  const peer = await probeThen(t, (_req, _i, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('{"data":[{"index":0,"embedding":[');
    const chunk = '0.125,'.repeat(10_000);
    const pour = () => {
      while (!res.destroyed && res.write(chunk));
    };
    res.on('drain', pour);
    res.on('close', closed);
    pour();
    return null;
  });
  const e = await connectTo(peer);
  const err = await e.embed(['Σύμβαση καθαριότητας']).catch((e: Error) => e);
  t.equal((err as Error).message, `embedding service ${peer.url}/v1/embeddings: answered with a body over 320 KiB, more than 1 embeddings take`);
  await gone;
  t.pass('the client closed the connection');
  t.equal(peer.requests.length, 2, 'the probe and the one request: not retried');
});

/** The environment of a server or CLI embedding through `peer` into the data folder `dir`. */
function env(peer: EmbeddingPeer, dir: string, over: Record<string, string> = {}): Record<string, string> {
  return {
    PDI_DATA_DIR: dir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    PDI_EMBED_URL: peer.url,
    PDI_EMBED_MODEL: 'test/hashing',
    PDI_EMBED_KEY: 'sk-test',
    PDI_EMBED_BATCH: '8',
    ...over,
  };
}

for (const engine of ['embedded', 'elasticsearch'] as const) {
  t.test(
    `${engine}: when the server embeds through the service, then the demo load and ask embed there, and /v1/models, /v1/stats and pdi status name it; a service of another length is refused at start`,
    async (t) => {
      const dir = tempDir(t);
      const peer = await peerFor(t, { key: 'sk-test' });
      let extra: Record<string, string> = { PDI_EMBED_PASSAGE_PREFIX: 'passage: ', PDI_EMBED_QUERY_PREFIX: 'query: ' };
      if (engine === 'elasticsearch') {
        const url = await elasticsearchUrl(t);
        const prefix = randomPrefix();
        t.teardown(() => deleteIndices(url, prefix));
        extra = { ...extra, ELASTICSEARCH_URL: url, PDI_INDEX_PREFIX: prefix };
      }
      const config = loadConfig(env(peer, dir, { ...extra, PDI_EMBED_RETRIES: '2' }));
      const running = await startServer(config, createLogger('silent'));
      await running.jobs.demoLoaded;
      const model = 'test/hashing|query="query: "|passage="passage: "';
      const batches = peer.requests.slice(1);
      t.ok(batches.length > 1, `the demo load embedded through the service (${batches.length} requests)`);
      t.ok(
        batches.every((r) => r.input.length <= 8 && r.input.every((s) => s.startsWith('passage: '))),
        'batches of PDI_EMBED_BATCH passages',
      );
      t.ok(batches.every((r) => r.authorization === 'Bearer sk-test'));

      const key = running.app.context.keys.create('Acme', 'enterprise').key;
      const models = await request(running.url, '/v1/models');
      t.same(models.body.embedding, { model, dimension: 384, fallback: false, service: true });
      const stats = await request(running.url, '/v1/stats', { key });
      t.same(stats.body.embedding, { model, dimension: 384, fallback: false, service: true });
      t.ok(stats.body.total_documents > 0);
      const asked = peer.requests.length;
      const ask = await request(running.url, '/v1/ask', { key, method: 'POST', body: { question: 'road construction contracts', limit: 3 } });
      t.equal(ask.status, 200, ask.text);
      t.ok(ask.body.sources.length > 0, "ask finds documents by the service's vectors");
      const calls = peer.requests.slice(asked).map((r) => r.input as string[]);
      t.equal(calls.length, 1, 'one call');
      t.equal(calls[0]?.[0], 'query: road construction contracts', 'the question is embedded by the service');
      t.match(calls[0]?.[1], /^query: \p{Script=Greek}/u, 'with its Greek rendering beside it');
      const arrived = peer.arrivals;
      const again = await request(running.url, '/v1/ask', { key, method: 'POST', body: { question: 'road construction contracts', limit: 3 } });
      t.same(again.body.sources, ask.body.sources);
      t.equal(peer.arrivals, arrived, 'the same question again reuses its vector: nothing reaches the service');
      peer.failNext(3, 503);
      const down = await request(running.url, '/v1/ask', { key, method: 'POST', body: { question: 'school meals' } });
      t.equal(down.status, 503);
      t.same(down.body, { detail: 'The embedding service is unavailable; try again shortly' });
      await running.stop();

      const status = await pdi(dir, ['status', '--json'], env(peer, dir, extra));
      t.equal(status.code, 0, status.stderr);
      t.same(JSON.parse(status.stdout).embedding, { model, dimension: 384, fallback: false, service: true, endpoint: `${peer.url}/embeddings`, error: null });

      // Another model behind the same variables, with vectors of another length: nothing is written with them.
      const other = await peerFor(t, { key: 'sk-test', embedder: new HashingEmbedder(128) });
      const refused = await startServer(loadConfig(env(other, dir, extra)), createLogger('silent')).catch((e: Error) => e);
      t.type(refused, Error, 'the start is refused');
      t.match(
        (refused as Error).message,
        engine === 'embedded' ? /dimension=384.*dimension=128/ : /vectors of 128 dimensions, but the Elasticsearch index .* holds vectors of 384/,
      );
      t.equal(other.requests.length, 1, 'only the probe reached the other service');
    },
  );
}
