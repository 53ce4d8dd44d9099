// First start loads the demo corpus through the pipeline; `pdi reindex` then rebuilds from the stored
// records (no refetch, no re-embedding) while the running server keeps answering. On both engines.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { DEMO_UNFINISHED } from '../../ingest/demo.js';
import { startIngestJobs } from '../../ingest/schedule.js';
import { startServer } from '../../api/server.js';
import { loadDemo } from '../../ingest/demo.js';
import { reindex } from '../../ingest/reindex.js';
import { pipelineOn } from '../../ingest/runtime.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { request, startTestApp, tempDir } from '../helpers/app.js';
import { cliEnv, holdSource, pdi } from '../helpers/cli.js';
import { startUpstream } from '../helpers/loopback-upstream.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { deleteIndices, elasticsearchUrl, randomPrefix } from '../helpers/elasticsearch.js';

const DEMO_TOTAL = 3948;

async function scenario(t: Test, env: Record<string, string>) {
  const dataDir = tempDir(t);
  const fullEnv = { PDI_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env };
  const server = await startServer(loadConfig(fullEnv), createLogger('silent'));
  t.teardown(() => server.stop());
  await server.jobs.demoLoaded;
  const key = server.app.context.keys.create('demo', 'enterprise').key;
  // The reader below can send thousands of requests: rotate over keys so none reaches its daily quota.
  const readerKeys = Array.from({ length: 40 }, () => server.app.context.keys.create('reader', 'enterprise').key);

  const stats = await request(server.url, '/v1/stats', { key });
  t.equal(stats.body.total_documents, DEMO_TOTAL, 'the whole demo corpus is served');
  for (const [name, s] of Object.entries(stats.body.sources as Record<string, { documents: number }>)) t.ok(s.documents > 0, `${name} has documents`);
  const sources = await request(server.url, '/v1/sources', { key });
  t.ok(
    sources.body.every((s: { status: string }) => s.status === 'active'),
    'every source ingested: active',
  );

  const before = await request(server.url, '/v1/search?q=ΑΝΑΘΕΣΗ&source=diavgeia&limit=1000', { key });
  t.ok(before.body.total > 0);

  // Reindex from another process while this server runs; its reads keep working.
  let failures = 0;
  let reads = 0;
  let reindexing = true;
  const reader = (async () => {
    while (reindexing) {
      const r = await request(server.url, '/v1/search?q=ΑΝΑΘΕΣΗ&source=diavgeia&limit=5', { key: readerKeys[reads % readerKeys.length] });
      reads++;
      if (r.status !== 200 || r.body.total !== before.body.total) failures++;
    }
  })();
  const { stdout, stderr } = await pdi(dataDir, ['reindex', 'diavgeia'], env);
  t.equal(stderr, '', 'reindex reported no error');
  reindexing = false;
  await reader;
  t.match(stdout, /diavgeia: 1976 documents now served by \S+ \(0 embedded/, 'rebuilt from the store without re-embedding');
  t.ok(reads > 0);
  t.ok(reads < readerKeys.length * 1000, "the reader stayed within its keys' quota");
  t.equal(failures, 0, `no failed or inconsistent read during the swap (${reads} reads)`);

  const after = await request(server.url, '/v1/search?q=ΑΝΑΘΕΣΗ&source=diavgeia&limit=1000', { key });
  t.same(after.body.results.map((r: { source_id: string }) => r.source_id).sort(), before.body.results.map((r: { source_id: string }) => r.source_id).sort());
  t.equal((await request(server.url, '/v1/stats', { key })).body.total_documents, DEMO_TOTAL);
}

t.test('when the server stops during its first demo load, then the next start finishes it', async (t) => {
  const dataDir = tempDir(t);
  const config = loadConfig({ PDI_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
  const first = await startServer(config, createLogger('silent'));
  const key = first.app.context.keys.create('demo', 'enterprise').key;
  let total = 0;
  // Polls for the first documents, paced so the key's daily quota (1,000) cannot run out meanwhile.
  while (total === 0) {
    await new Promise((r) => setTimeout(r, 20));
    total = (await request(first.url, '/v1/stats', { key })).body.total_documents;
  }
  await first.stop();
  t.ok(fs.existsSync(path.join(dataDir, DEMO_UNFINISHED)), 'the first load was cut short');

  const second = await startServer(config, createLogger('silent'));
  t.teardown(() => second.stop());
  await second.jobs.demoLoaded;
  t.equal((await request(second.url, '/v1/stats', { key })).body.total_documents, DEMO_TOTAL, 'the whole corpus is served');
  t.notOk(fs.existsSync(path.join(dataDir, DEMO_UNFINISHED)), 'and the load is marked finished');
});

t.test(
  'when another run holds a source during the first demo load, then the other sources load at once and that one once it is free, without a restart',
  async (t) => {
    const app = await startTestApp(t);
    // A CLI run of ted, in its own process, holds the source: its upstream never answers.
    const upstream = await startUpstream(() => null);
    t.teardown(upstream.close);
    const holder = spawn(process.execPath, ['bin/pdi.js', 'ingest', 'ted', '--base-url', upstream.url], {
      cwd: REPO_ROOT,
      env: cliEnv({ PDI_DATA_DIR: app.dataDir }),
      stdio: 'ignore',
    });
    t.teardown(() => {
      holder.kill('SIGKILL');
    });
    while (app.ingestState.runningPid('ted') !== holder.pid) await new Promise((r) => setTimeout(r, 50));

    const lines: Array<{ msg: string; sources?: string[] }> = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const config = loadConfig({ PDI_DATA_DIR: app.dataDir, LOG_LEVEL: 'silent' });
    const deps = pipelineOn(config, app.search, app.embedder, app.ingestState, log);
    const jobs = startIngestJobs(config, deps, log, { demoRetryMs: 100 });
    t.teardown(async () => {
      await jobs.stop();
      await deps.close();
    });
    const key = app.key('enterprise');
    const stats = async () => (await app.request('/v1/stats', { key })).body;
    while (!lines.some((l) => l.msg.startsWith('demo corpus: not every source loaded'))) await new Promise((r) => setTimeout(r, 50));
    const partial = await stats();
    t.equal(partial.sources.ted.documents, 0, 'the held source is not loaded');
    t.ok(
      Object.entries(partial.sources as Record<string, { documents: number }>).every(([name, s]) => name === 'ted' || s.documents > 0),
      'every other source is',
    );
    t.same(lines.find((l) => l.msg.startsWith('demo corpus: not every source loaded'))?.sources, ['ted']);
    t.ok(fs.existsSync(path.join(app.dataDir, DEMO_UNFINISHED)), 'the load is not marked finished');

    holder.kill('SIGKILL'); // its lock dies with it
    await jobs.demoLoaded;
    t.equal((await stats()).total_documents, DEMO_TOTAL, 'the whole corpus is served');
    t.notOk(fs.existsSync(path.join(app.dataDir, DEMO_UNFINISHED)), 'and the load is marked finished');
  },
);

t.test('when pdi demo meets a source another run holds, then it loads the others, names that one and exits 1', async (t) => {
  const dataDir = tempDir(t);
  const holderPid = holdSource(t, dataDir, 'ted');
  const run = await pdi(dataDir, ['demo']);
  t.equal(run.code, 1);
  t.match(run.stderr, `pdi: not loaded: ted (Another run of ted is in progress (pid ${holderPid}))`);
  for (const source of ['diavgeia', 'elstat', 'rae', 'data_gov_gr', 'mitos', 'kimdis', 'geodata']) {
    t.match(run.stdout, new RegExp(`^${source}: pages \\d+ .* done$`, 'm'), `${source} loaded`);
  }
  t.notMatch(run.stdout, /^ted/m);
});

t.test('when a reindex is stopped, then the old index keeps serving and the run is closed as stopped', async (t) => {
  const app = await startTestApp(t);
  const config = loadConfig({ PDI_DATA_DIR: app.dataDir, LOG_LEVEL: 'silent' });
  const deps = pipelineOn(config, app.search, app.embedder, app.ingestState, createLogger('silent'));
  t.teardown(() => deps.close());
  const { runs } = await loadDemo(deps, { sources: ['kimdis'] });
  const total = runs[0]!.new;
  t.ok(total > 0);
  const key = app.key('pro');
  const stop = new AbortController();
  stop.abort('interrupted (SIGINT)');
  await t.rejects(reindex(deps, 'kimdis', { signal: stop.signal }), { message: 'stopped before the end: interrupted (SIGINT)' });
  t.equal((await app.request('/v1/kimdis/documents', { key })).body.total, total, 'the old index serves');
  t.match(app.ingestState.lastRuns('reindex').get('kimdis'), { status: 'failed', error: 'stopped before the end: interrupted (SIGINT)' });
  t.equal(app.ingestState.runningPid('kimdis'), null, 'the source is released');
  t.equal((await reindex(deps, 'kimdis')).documents, total, 'the next reindex runs');

  // A signal arrives as a task of the event loop (Ctrl-C), not before the start: the rebuild must give
  // the loop a turn between batches, or it is seen only once the rebuild has swapped (kimdis: 2 batches).
  const later = new AbortController();
  setImmediate(() => later.abort('interrupted (SIGINT)'));
  await t.rejects(reindex(deps, 'kimdis', { signal: later.signal }), { message: 'stopped before the end: interrupted (SIGINT)' }, 'stopped after its start');
  t.equal((await app.request('/v1/kimdis/documents', { key })).body.total, total, 'the old index serves');
});

t.test('when the embedded engine starts empty, then the demo loads and reindex swaps under reads', async (t) => {
  await scenario(t, {});
});

t.test('when Elasticsearch starts empty, then the demo loads and reindex swaps under reads', async (t) => {
  const url = await elasticsearchUrl(t);
  const prefix = randomPrefix();
  t.teardown(() => deleteIndices(url, prefix));
  await scenario(t, { ELASTICSEARCH_URL: url, PDI_INDEX_PREFIX: prefix });
});
