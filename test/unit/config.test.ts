import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ConfigError, DEFAULT_ASK_MODELS, loadConfig } from '../../lib/config.js';
import { REPO_ROOT } from '../helpers/paths.js';

const run = promisify(execFile);

t.test('when nothing is set, then the documented defaults apply', async (t) => {
  const c = loadConfig({});
  t.equal(c.port, 8000);
  t.match(c.dataDir, /\/var$/);
  t.equal(c.elasticsearchUrl, null);
  t.equal(c.indexPrefix, 'pdi');
  t.same(c.askModels, DEFAULT_ASK_MODELS);
  t.equal(c.demo, true);
  t.equal(c.ingestEveryMs, null);
  t.equal(c.embeddedReaders, Math.min(4, os.availableParallelism()));
  t.equal(loadConfig({ PDI_EMBEDDED_READERS: '0' }).embeddedReaders, 0);
});

t.test('when PDI_DATA_DIR is unset, then the state is in the checkout\'s var folder from any working directory; a relative one is read from the working directory', async (t) => {
  const cwd = process.cwd();
  t.teardown(() => process.chdir(cwd));
  process.chdir(path.join(REPO_ROOT, 'docs')); // `npx pdi keys create` run here wrote docs/var, unseen by npm start
  t.equal(loadConfig({}).dataDir, path.join(REPO_ROOT, 'var'));
  t.equal(loadConfig({ PDI_DATA_DIR: 'state' }).dataDir, path.join(REPO_ROOT, 'docs', 'state'));
});

t.test('when a variable is invalid, then loading fails with a message naming it', async (t) => {
  const cases: [Record<string, string>, string][] = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ ELASTICSEARCH_URL: 'not a url' }, 'ELASTICSEARCH_URL'],
    [{ ELASTICSEARCH_URL: 'ftp://x' }, 'ELASTICSEARCH_URL'],
    [{ SMTP_URL: 'http://mail' }, 'SMTP_URL'],
    [{ PDI_ASK_MODELS: 'no-slash' }, 'PDI_ASK_MODELS'],
    [{ PDI_INDEX_PREFIX: 'UPPER' }, 'PDI_INDEX_PREFIX'],
    [{ PDI_DEMO: 'maybe' }, 'PDI_DEMO'],
    [{ PDI_INGEST_EVERY: 'hourly' }, 'PDI_INGEST_EVERY'],
    // Past Node's timer limit (2^31 - 1 ms, 24.8 days) setInterval fires every millisecond instead.
    [{ PDI_INGEST_EVERY: '25d' }, 'PDI_INGEST_EVERY'],
    [{ PDI_INGEST_EVERY: '100000d' }, 'PDI_INGEST_EVERY'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ PDI_EMBEDDED_READERS: 'two' }, 'PDI_EMBEDDED_READERS'],
    [{ PDI_EMBEDDED_READERS: '-1' }, 'PDI_EMBEDDED_READERS'],
    // Set, so meant: a typo must not quietly embed everything with the lexical fallback instead.
    [{ PDI_MODEL_DIR: '/nonexistent/model-folder' }, 'PDI_MODEL_DIR'],
    [{ PDI_MODEL_DIR: fileURLToPath(import.meta.url) }, 'PDI_MODEL_DIR'],
    [{ PDI_DATA_DIR: fileURLToPath(import.meta.url) }, 'PDI_DATA_DIR'],
  ];
  for (const [env, name] of cases) {
    t.throws(() => loadConfig(env), new ConfigError(name, ''), name);
    try {
      loadConfig(env);
    } catch (err) {
      t.match((err as Error).message, new RegExp(`^Invalid configuration: ${name} `));
    }
  }
});

t.test('when PDI_INGEST_EVERY is a duration, then it is parsed to milliseconds', async (t) => {
  t.equal(loadConfig({ PDI_INGEST_EVERY: '1h' }).ingestEveryMs, 3_600_000);
  t.equal(loadConfig({ PDI_INGEST_EVERY: '15m' }).ingestEveryMs, 900_000);
  t.equal(loadConfig({ PDI_INGEST_EVERY: 'off' }).ingestEveryMs, null);
  t.equal(loadConfig({ PDI_INGEST_EVERY: '24d' }).ingestEveryMs, 24 * 86_400_000, 'the longest interval');
});

t.test('when the server starts with a bad variable, then it exits 2 with a clear message', async (t) => {
  const err = await run(process.execPath, ['--import', 'tsx', 'api/server.ts'], {
    cwd: REPO_ROOT, env: { ...process.env, PORT: 'eighty' },
  }).then(() => null, (e) => e as { code: number; stderr: string });
  t.ok(err, 'the server did not start');
  t.equal(err!.code, 2);
  t.match(err!.stderr, 'Invalid configuration: PORT must be an integer from 0 to 65535, got "eighty"');
});
