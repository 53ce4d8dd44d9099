// GET /v1/sources: a source's status follows whether its documents are served, with the latest run beside
// it; a failed run shows its short reason, never the operator's message (hosts, paths, a service's text).
import t from 'tap';
import { pipelineOn } from '../../ingest/runtime.js';
import { ingestSource } from '../../ingest/pipeline.js';
import { SOURCE_MODULES } from '../../ingest/sources/index.js';
import { IngestState } from '../../ingest/state/store.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { projectPath } from '../../lib/paths.js';
import { Database } from '../../lib/sqlite.js';
import { startTestApp, tempDir } from '../helpers/app.js';
import { pdi } from '../helpers/cli.js';
import { connectToPeer, startEmbeddingPeer } from '../helpers/embedding-service.js';

t.test('when a source has never been ingested, then it is unavailable with no last run', async (t) => {
  const app = await startTestApp(t);
  const res = await app.request('/v1/sources', { key: app.key('free') });
  t.equal(res.status, 200);
  const elstat = res.body.find((s: { name: string }) => s.name === 'elstat');
  t.match(elstat, { status: 'unavailable', last_ingest: null });
});

t.test('when the latest ingest of a served source failed, then it stays active with the failure beside it', async (t) => {
  const app = await startTestApp(t);
  const ok = app.ingestState.beginRun('diavgeia', 'ingest');
  app.ingestState.endRun('diavgeia', ok, { fetched: 3, new: 3, updated: 0, unchanged: 0, failed: 0 }, null);
  const bad = app.ingestState.beginRun('diavgeia', 'ingest');
  app.ingestState.endRun(
    'diavgeia',
    bad,
    { fetched: 0, new: 0, updated: 0, unchanged: 0, failed: 0 },
    { error: 'GET http://10.0.0.7:8080/opendata/search.json answered 503', reason: 'the upstream answered with an error' },
  );
  const res = await app.request('/v1/sources', { key: app.key('free') });
  const diavgeia = res.body.find((s: { name: string }) => s.name === 'diavgeia');
  t.match(diavgeia, { status: 'active', last_ingest: { status: 'failed', error: 'the upstream answered with an error', finished_at: /^\d{4}-\d\d-\d\dT/ } });
  t.notMatch(res.text, '10.0.0.7', "the operator's message is not served");
});

t.test('when a source only ever failed, then it is unavailable with its failure', async (t) => {
  const app = await startTestApp(t);
  const bad = app.ingestState.beginRun('rae', 'ingest');
  app.ingestState.endRun(
    'rae',
    bad,
    { fetched: 0, new: 0, updated: 0, unchanged: 0, failed: 0 },
    { error: 'GET https://geo.rae.gr/wfs failed: fetch failed (ECONNRESET)', reason: 'the upstream did not answer' },
  );
  const res = await app.request('/v1/sources', { key: app.key('free') });
  t.match(
    res.body.find((s: { name: string }) => s.name === 'rae'),
    { status: 'unavailable', last_ingest: { status: 'failed', error: 'the upstream did not answer' } },
  );
});

t.test('when the sources are listed, then every source says country GR (TED included)', async (t) => {
  const app = await startTestApp(t);
  const res = await app.request('/v1/sources', { key: app.key('free') });
  t.same([...new Set(res.body.map((s: { country: string }) => s.country))], ['GR']);
});

t.test('when the run log was made before reasons were kept, then it gains the column and a failed run reads "the run failed", not its error', async (t) => {
  const dataDir = tempDir(t);
  const old = new Database(IngestState.pathIn(dataDir));
  old.exec(`CREATE TABLE runs (
    id INTEGER PRIMARY KEY, source TEXT NOT NULL, kind TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT, status TEXT NOT NULL,
    fetched INTEGER NOT NULL DEFAULT 0, new INTEGER NOT NULL DEFAULT 0, updated INTEGER NOT NULL DEFAULT 0,
    unchanged INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0, error TEXT)`);
  old
    .prepare("INSERT INTO runs (source, kind, started_at, finished_at, status, error) VALUES ('ted', 'ingest', ?, ?, 'failed', ?)")
    .run('2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z', 'embedding service http://10.0.0.9:8080/v1/embeddings: answered 401: bad key sk-live-1234');
  old.close();
  const app = await startTestApp(t, { dataDir });
  const res = await app.request('/v1/sources', { key: app.key('free') });
  t.match(
    res.body.find((s: { name: string }) => s.name === 'ted'),
    { last_ingest: { status: 'failed', error: 'the run failed' } },
  );
  t.notMatch(res.text, /sk-live|10\.0\.0\.9/);
  t.match(app.ingestState.lastRuns().get('ted'), { error: /sk-live-1234/, reason: 'the run failed' }, 'the operator keeps the message');
});

t.test(
  'when an ingest fails on an embedding service whose error body carries a secret, then no route or MCP tool returns it or the service address, and pdi status does',
  async (t) => {
    const app = await startTestApp(t);
    const peer = await startEmbeddingPeer();
    t.teardown(() => peer.close());
    const embedder = await connectToPeer(peer, { batchSize: 64, concurrency: 1, timeoutMs: 5_000, retries: 0 });
    const secret = 'sk-live-7f3a9c2e5b1d4068a9e7c3f1';
    // A 400 is not retried: the run fails on the first batch, as a proxy that echoes the key would make it.
    peer.failNext(100, 400, undefined, { error: { message: `invalid api key ${secret}` } });
    const config = loadConfig({ PDI_DATA_DIR: app.dataDir, LOG_LEVEL: 'silent' });
    const deps = pipelineOn(config, app.search, embedder, app.ingestState, createLogger('silent'));
    t.teardown(() => deps.close());
    const run = await ingestSource(deps, SOURCE_MODULES.rae, { fromDir: projectPath('data', 'demo', 'rae') });
    t.equal(run.status, 'failed');
    t.match(run.error, secret, "the operator's message has the service's answer");

    const address = new URL(peer.url).host;
    const key = app.key('enterprise');
    const sources = await app.request('/v1/sources', { key });
    t.match(
      sources.body.find((s: { name: string }) => s.name === 'rae'),
      { last_ingest: { status: 'failed', error: 'the embedding service failed' } },
    );
    const tool = await app.request('/mcp', {
      method: 'POST',
      key,
      headers: { Accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_sources', arguments: {} } },
    });
    t.match(tool.body, { result: { structuredContent: { sources: [] } } });
    t.match(tool.text, 'the embedding service failed');
    for (const path of ['/v1/sources', '/v1/stats', '/v1/models', '/v1/usage']) {
      const res = path === '/v1/sources' ? sources : await app.request(path, { key });
      t.equal(res.status, 200, path);
      t.notMatch(res.text, secret, `${path} does not return the secret`);
      t.notMatch(res.text, address, `${path} does not return the service's address`);
    }
    t.notMatch(tool.text, secret, 'list_sources does not return the secret');
    t.notMatch(tool.text, address, "list_sources does not return the service's address");

    const status = await pdi(app.dataDir, ['status', '--json'], { PDI_MODEL_FETCH: '0' });
    t.match(JSON.parse(status.stdout).sources.rae.last_run, { status: 'failed', error: new RegExp(secret), reason: 'the embedding service failed' });
  },
);
