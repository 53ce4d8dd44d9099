// Documents ingested while the API runs are served without a restart: by the CLI in another process,
// and by the server's own schedule (PDI_INGEST_EVERY).
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startIngestJobs } from '../../ingest/schedule.js';
import { pipelineOn } from '../../ingest/runtime.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { startTestApp, tempDir } from '../helpers/app.js';
import { startUpstream } from '../helpers/loopback-upstream.js';
import { FIXTURES, skipWithoutFixtures } from '../helpers/paths.js';
import { pdi } from '../helpers/cli.js';

skipWithoutFixtures();

const template = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'kimdis/contract_page_anonymized_shape.json'), 'utf8'));

function contracts(prefix: string, n: number) {
  const content = Array.from({ length: n }, (_, i) => ({
    ...template.content[0],
    referenceNumber: `26SYMV0${prefix}${String(i).padStart(4, '0')}`,
    title: `Σύμβαση ${prefix}-${i}`,
  }));
  return { ...template, content, last: true, first: true, number: 0, numberOfElements: n, totalElements: n, totalPages: 1 };
}

t.test('when the CLI ingests while the API runs, then the API serves the new documents at once', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('pro');
  t.equal((await app.request('/v1/kimdis/documents', { key })).body.total, 0);
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'page-0.json'), JSON.stringify(contracts('1234', 7)));
  const run = await pdi(app.dataDir, ['ingest', 'kimdis', '--from', dir]);
  t.equal(run.code, 0, run.stderr);
  const after = await app.request('/v1/kimdis/documents', { key });
  t.equal(after.body.total, 7);
  const search = await app.request(`/v1/search?q=${encodeURIComponent('σύμβαση')}&source=kimdis`, { key });
  t.equal(search.body.total, 7);
  const sources = await app.request('/v1/sources', { key });
  t.equal(sources.body.find((s: { name: string }) => s.name === 'kimdis').status, 'active');
});

t.test('when PDI_INGEST_EVERY is set, then the server ingests on schedule and serves the result', async (t) => {
  const app = await startTestApp(t);
  const upstream = await startUpstream(() => ({ body: contracts('5678', 3) }));
  t.teardown(upstream.close);
  const config = loadConfig({ PDI_DATA_DIR: app.dataDir, PDI_INGEST_EVERY: '1s', PDI_DEMO: '0', LOG_LEVEL: 'silent' });
  const deps = pipelineOn(config, app.search, app.embedder, app.ingestState, createLogger('silent'));
  const jobs = startIngestJobs(config, deps, createLogger('silent'), { sources: ['kimdis'], upstreams: { kimdis: upstream.url } });
  t.teardown(async () => {
    await jobs.stop();
    await deps.close();
  });
  const key = app.key('pro');
  let total = 0;
  for (let i = 0; i < 100 && total === 0; i++) {
    await new Promise((r) => setTimeout(r, 100)); // polls the API: the tick is the event awaited
    total = (await app.request('/v1/kimdis/documents', { key })).body.total;
  }
  t.equal(total, 3, 'the scheduled run was served');
  t.ok(upstream.requests.length >= 1);
  t.match(upstream.requests[0], { method: 'POST', path: '/contract' });
});

t.test(
  'when the server stops while a scheduled run waits on an upstream that does not answer, then it stops at once and the run is closed as stopped',
  async (t) => {
    // Before, stop waited for the request's own 60 s timeout and five retries (tap's timeout fails that).
    const app = await startTestApp(t);
    const upstream = await startUpstream(() => null);
    t.teardown(upstream.close);
    const config = loadConfig({ PDI_DATA_DIR: app.dataDir, PDI_INGEST_EVERY: '1s', PDI_DEMO: '0', LOG_LEVEL: 'silent' });
    const deps = pipelineOn(config, app.search, app.embedder, app.ingestState, createLogger('silent'));
    t.teardown(() => deps.close());
    const jobs = startIngestJobs(config, deps, createLogger('silent'), { sources: ['kimdis'], upstreams: { kimdis: upstream.url } });
    while (upstream.requests.length === 0) await new Promise((r) => setTimeout(r, 50));
    await jobs.stop();
    t.match(app.ingestState.lastRuns().get('kimdis'), { status: 'failed', error: 'stopped before the end: the server shut down' });
    t.equal(app.ingestState.runningPid('kimdis'), null, 'the source is released');
  },
);
