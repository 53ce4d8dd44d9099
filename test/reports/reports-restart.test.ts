// A report accepted by a server that is then killed (SIGKILL) while generating it completes once a
// server starts again on the same data directory: the job is in the account database, not in memory.
// Real processes, a real Elasticsearch; a proxy holds the report's document reads so the kill lands mid-job.
import { spawn, type ChildProcess } from 'node:child_process';
import t, { type Test } from 'tap';
import { accountsDbPath, openDatabase } from '../../api/db/database.js';
import { KeyStore } from '../../api/db/keys.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { request, tempDir } from '../helpers/app.js';
import { cliEnv } from '../helpers/cli.js';
import { deleteIndices, elasticsearchUrl, randomPrefix } from '../helpers/elasticsearch.js';
import { holdingProxy } from '../helpers/holding-proxy.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { SERVER_ARGS } from '../helpers/server-process.js';
import { SUPPLIER, contractDoc, ingestDocs } from '../helpers/report-docs.js';

interface Server {
  child: ChildProcess;
  url: string;
  /** Resolves when the server's log has a line matching `pattern`. */
  logged(pattern: RegExp): Promise<void>;
}

async function startServer(t: Test, env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, [...SERVER_ARGS], { cwd: REPO_ROOT, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => child.kill('SIGKILL'));
  let out = '';
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const w of [...waiters])
      if (w.pattern.test(out)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
  });
  const logged = (pattern: RegExp) => (pattern.test(out) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ pattern, resolve })));
  await logged(/"msg":"listening"/);
  return { child, url: /"url":"([^"]+)"/.exec(out)![1]!, logged };
}

t.test('when the server is killed while a report is pending, then the report completes after the restart', async (t) => {
  const esUrl = await elasticsearchUrl(t);
  const prefix = randomPrefix();
  const writer = new ElasticsearchProvider({ url: esUrl, prefix, dimension: 384, embeddingModel: 'pdi/hashing-384' });
  t.teardown(async () => {
    await writer.close();
    await deleteIndices(esUrl, prefix);
  });
  await writer.init();
  const dataDir = tempDir(t);
  const documents = new DocumentStore(DocumentStore.pathIn(dataDir));
  await ingestDocs(documents, writer, [
    contractDoc('24SYMV000000001', { value: 120_000 }),
    contractDoc('24SYMV000000002', { value: 30_000, published: '2025-02-01T10:00:00Z' }),
  ]);
  documents.close();

  const db = openDatabase(accountsDbPath(dataDir));
  const key = new KeyStore(db).create('Acme', 'pro').key;
  db.close();

  // Document reads hang at the proxy: the report job is running, and pending, when the kill comes.
  const proxy = await holdingProxy(t, esUrl, (req) => req.method === 'GET' && (req.url ?? '').includes('/_doc/'));
  const env = { PDI_DATA_DIR: dataDir, PDI_DEMO: '0', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', PDI_INDEX_PREFIX: prefix };
  const first = await startServer(t, { ...env, ELASTICSEARCH_URL: proxy.url });
  const created = await request(first.url, '/v1/reports', { key, method: 'POST', body: { entity_identifier: SUPPLIER.afm, identifier_type: 'afm' } });
  t.equal(created.status, 201);
  const held = await proxy.nextHeld();
  t.match(held.path, /\/_doc\//, 'the job reached the engine');
  t.equal((await request(first.url, `/v1/reports/${created.body.id}`, { key })).body.status, 'pending');
  const exited = new Promise((resolve) => first.child.once('exit', resolve));
  first.child.kill('SIGKILL');
  await exited;

  const second = await startServer(t, { ...env, ELASTICSEARCH_URL: esUrl });
  await second.logged(/"msg":"report completed"/);
  const done = await request(second.url, `/v1/reports/${created.body.id}`, { key });
  t.equal(done.body.status, 'completed');
  t.match(done.body.completed_at, /^\d{4}-\d{2}-\d{2}T/);
  const report = JSON.parse(done.body.report_json);
  t.equal(report.sections.procurement.contract_count, 2);
  t.equal(report.sections.procurement.total_value, 150_000);
  const pdf = await fetch(`${second.url}/v1/reports/${created.body.id}/pdf`, { headers: { Authorization: `Bearer ${key}` } });
  t.equal(pdf.status, 200);
  t.equal(pdf.headers.get('content-type'), 'application/pdf');
});
