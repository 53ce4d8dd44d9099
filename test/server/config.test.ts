import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ConfigError, DEFAULT_ASK_MODELS, loadConfig } from '../../lib/config.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { SERVER_ARGS } from '../helpers/server-process.js';

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
  t.equal(c.embeddedEnvelope, 100_000);
  t.equal(loadConfig({ PDI_EMBEDDED_ENVELOPE: '5' }).embeddedEnvelope, 5);
  t.equal(c.maxInFlightPerKey, 8);
  t.equal(c.maxInFlightPerOrg, 16);
  t.equal(c.engineDeadlineMs, 10_000);
  t.equal(c.webhookTimeoutMs, 10_000, "a webhook attempt's whole-request deadline, as docs/webhooks.md says");
  t.equal(c.maxAlertProfiles, 25);
});

t.test('when a URL setting with a password is invalid, then the error shows the URL with the password masked', async (t) => {
  for (const [name, value, shown] of [
    ['ELASTICSEARCH_URL', 'http//elastic:s3cr3t@es.internal:9200', 'http//elastic:***@es.internal:9200'],
    ['SMTP_URL', 'smtp://mailer:s3cr3t@mail host:25', 'smtp://mailer:***@mail host:25'],
    ['SMTP_URL', 'smtps//mailer:s3cr3t@mail.internal', 'smtps//mailer:***@mail.internal'],
  ]) {
    const err = t.throws(() => loadConfig({ [name]: value })) as Error;
    t.equal(err.message, `Invalid configuration: ${name} must be a URL, got "${shown}"`);
    t.notMatch(err.message, 's3cr3t');
  }
  // And where the server prints it on start.
  const err = await run(process.execPath, [...SERVER_ARGS], {
    cwd: REPO_ROOT,
    env: { ...process.env, ELASTICSEARCH_URL: 'https//elastic:s3cr3t@es.internal:9200' },
  }).then(
    () => null,
    (e) => e as { code: number; stderr: string },
  );
  t.equal(err?.code, 2, String(err?.stderr));
  t.notMatch(err!.stderr, 's3cr3t');
  t.match(err!.stderr, 'ELASTICSEARCH_URL must be a URL, got "https//elastic:***@es.internal:9200"');
});

t.test('when the tenant limits are set, then they are read, and an organization cap below the key cap is refused', async (t) => {
  const c = loadConfig({ PDI_MAX_IN_FLIGHT_PER_KEY: '2', PDI_MAX_IN_FLIGHT_PER_ORG: '5', PDI_ENGINE_DEADLINE: '30s' });
  t.same([c.maxInFlightPerKey, c.maxInFlightPerOrg, c.engineDeadlineMs], [2, 5, 30_000]);
  t.equal(loadConfig({ PDI_MAX_IN_FLIGHT_PER_KEY: '20' }).maxInFlightPerOrg, 20, 'the organization default follows a larger key cap');
  t.throws(() => loadConfig({ PDI_MAX_IN_FLIGHT_PER_KEY: '8', PDI_MAX_IN_FLIGHT_PER_ORG: '4' }), {
    message: 'Invalid configuration: PDI_MAX_IN_FLIGHT_PER_ORG must be at least PDI_MAX_IN_FLIGHT_PER_KEY (8), got "4"',
  });
  t.throws(() => loadConfig({ PDI_ENGINE_DEADLINE: '2m' }), {
    message: 'Invalid configuration: PDI_ENGINE_DEADLINE must be a duration from 1s to 60s, such as 10s, got "2m"',
  });
});

t.test(
  'when PDI_ADMIN_TOKEN is unset the dashboard is off; set, it must carry 128 bits as 32 hex or 22 base64url characters, and a weaker one is refused without showing it',
  async (t) => {
    t.equal(loadConfig({}).adminToken, null);
    for (const good of ['b7f3c9e1a4d2086f5e1c3a9b7d0f2e4a', 'q3Vd9x2LrT7mKp0ZsW4yHc', 'Xq+7Lp/2mZ9rT4vB0nK8wQ==', 'B7F3C9E1A4D2086F5E1C3A9B7D0F2E4A91']) {
      t.equal(loadConfig({ PDI_ADMIN_TOKEN: good }).adminToken, good, good);
    }
    const how =
      'must carry at least 128 random bits: 32 or more hex characters (openssl rand -hex 16) or 22 or more base64url characters (openssl rand -base64 16)';
    const cases: [string, string][] = [
      ['0123456789abcdef0123456789abcde', `${how}; got 31 hex characters`],
      ['0123456789abcdef', `${how}; got 16 hex characters`],
      ['q3Vd9x2LrT7mKp0ZsW4yH', `${how}; got 21 base64 characters`],
      ['hunter2-secret', `${how}; got 14 base64 characters`],
      ['correct horse battery staple', `${how}; it holds other characters`],
      ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', `${how}; it repeats a few characters`],
      ['abababababababababababababababab', `${how}; it repeats a few characters`],
    ];
    for (const [weak, problem] of cases) {
      const err = t.throws(() => loadConfig({ PDI_ADMIN_TOKEN: weak })) as Error;
      t.equal(err.message, `Invalid configuration: PDI_ADMIN_TOKEN ${problem}`, weak);
      t.notMatch(err.message, weak, 'the token is not shown');
    }
  },
);

t.test(
  "when PDI_DATA_DIR is unset, then the state is in the checkout's var folder from any working directory; a relative one is read from the working directory",
  async (t) => {
    const cwd = process.cwd();
    t.teardown(() => process.chdir(cwd));
    process.chdir(path.join(REPO_ROOT, 'docs')); // `npx pdi keys create` run here wrote docs/var, unseen by npm start
    t.equal(loadConfig({}).dataDir, path.join(REPO_ROOT, 'var'));
    t.equal(loadConfig({ PDI_DATA_DIR: 'state' }).dataDir, path.join(REPO_ROOT, 'docs', 'state'));
  },
);

t.test('when ELASTICSEARCH_URL lists several nodes, then each is kept, separated by commas', async (t) => {
  const c = loadConfig({ ELASTICSEARCH_URL: 'http://10.0.0.1:9200/, http://10.0.0.2:9200' });
  t.equal(c.elasticsearchUrl, 'http://10.0.0.1:9200,http://10.0.0.2:9200');
});

t.test('when a variable is invalid, then loading fails with a message naming it', async (t) => {
  const cases: [Record<string, string>, string][] = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ ELASTICSEARCH_URL: 'not a url' }, 'ELASTICSEARCH_URL'],
    [{ ELASTICSEARCH_URL: 'ftp://x' }, 'ELASTICSEARCH_URL'],
    [{ ELASTICSEARCH_URL: 'http://a:9200,not a url' }, 'ELASTICSEARCH_URL'],
    [{ ELASTICSEARCH_URL: 'http://a:9200,,http://b:9200' }, 'ELASTICSEARCH_URL'],
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
    [{ PDI_EMBEDDED_ENVELOPE: '0' }, 'PDI_EMBEDDED_ENVELOPE'],
    [{ PDI_EMBEDDED_ENVELOPE: '100k' }, 'PDI_EMBEDDED_ENVELOPE'],
    // Set, so meant: a typo must not quietly embed everything with the lexical fallback instead.
    [{ PDI_MODEL_DIR: '/nonexistent/model-folder' }, 'PDI_MODEL_DIR'],
    [{ PDI_MODEL_DIR: fileURLToPath(import.meta.url) }, 'PDI_MODEL_DIR'],
    [{ PDI_DATA_DIR: fileURLToPath(import.meta.url) }, 'PDI_DATA_DIR'],
    [{ PDI_WEBHOOK_TIMEOUT: '0s' }, 'PDI_WEBHOOK_TIMEOUT'],
    [{ PDI_WEBHOOK_TIMEOUT: '2m' }, 'PDI_WEBHOOK_TIMEOUT'],
    [{ PDI_MAX_ALERT_PROFILES: '0' }, 'PDI_MAX_ALERT_PROFILES'],
    [{ PDI_MAX_ALERT_PROFILES: 'many' }, 'PDI_MAX_ALERT_PROFILES'],
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

t.test('when PDI_EMBED_URL and PDI_EMBED_MODEL are set, then the embeddings service is configured with its defaults, prefixes as written', async (t) => {
  t.equal(loadConfig({}).embedService, null);
  const c = loadConfig({ PDI_EMBED_URL: 'http://gpu-box:8080/v1/', PDI_EMBED_MODEL: 'intfloat/multilingual-e5-small', PDI_EMBED_QUERY_PREFIX: 'query: ' });
  t.same(c.embedService, {
    url: 'http://gpu-box:8080/v1',
    key: null,
    model: 'intfloat/multilingual-e5-small',
    batchSize: 32,
    concurrency: 4,
    timeoutMs: 30_000,
    retries: 4,
    queryPrefix: 'query: ',
    passagePrefix: '',
  });
  const tuned = loadConfig({
    PDI_EMBED_URL: 'https://api.example/v1',
    PDI_EMBED_MODEL: 'm',
    PDI_EMBED_KEY: 'sk-1',
    PDI_EMBED_BATCH: '128',
    PDI_EMBED_CONCURRENCY: '8',
    PDI_EMBED_TIMEOUT: '2m',
    PDI_EMBED_RETRIES: '0',
  }).embedService;
  t.match(tuned, { key: 'sk-1', batchSize: 128, concurrency: 8, timeoutMs: 120_000, retries: 0 });
});

t.test('when an embeddings service variable is wrong, then the start fails naming it', async (t) => {
  const base = { PDI_EMBED_URL: 'http://127.0.0.1:8080/v1', PDI_EMBED_MODEL: 'm' };
  const cases: [Record<string, string>, string, RegExp][] = [
    [{ PDI_EMBED_MODEL: 'm' }, 'PDI_EMBED_URL', /must be set when PDI_EMBED_MODEL is/],
    [{ PDI_EMBED_KEY: 'sk' }, 'PDI_EMBED_URL', /must be set when PDI_EMBED_KEY is/],
    [{ PDI_EMBED_URL: 'http://x/v1' }, 'PDI_EMBED_MODEL', /must be set when PDI_EMBED_URL is/],
    [{ ...base, PDI_EMBED_URL: 'ftp://x/v1' }, 'PDI_EMBED_URL', /must use http: or https:/],
    [{ ...base, PDI_MODEL_DIR: '/tmp' }, 'PDI_EMBED_URL', /and PDI_MODEL_DIR are both set/],
    [{ ...base, PDI_EMBED_MODEL: 'a model' }, 'PDI_EMBED_MODEL', /without spaces/],
    [{ ...base, PDI_EMBED_BATCH: '0' }, 'PDI_EMBED_BATCH', /from 1 to 2048/],
    [{ ...base, PDI_EMBED_CONCURRENCY: 'many' }, 'PDI_EMBED_CONCURRENCY', /from 1 to 64/],
    [{ ...base, PDI_EMBED_TIMEOUT: '10m' }, 'PDI_EMBED_TIMEOUT', /from 1s to 5m/],
    [{ ...base, PDI_EMBED_RETRIES: '11' }, 'PDI_EMBED_RETRIES', /from 0 to 10/],
    [{ ...base, PDI_EMBED_QUERY_PREFIX: 'query:\n' }, 'PDI_EMBED_QUERY_PREFIX', /without control characters/],
    [{ ...base, PDI_EMBED_PASSAGE_PREFIX: 'p'.repeat(101) }, 'PDI_EMBED_PASSAGE_PREFIX', /at most 100 characters/],
  ];
  for (const [env, name, problem] of cases) {
    t.throws(() => loadConfig(env), new ConfigError(name, ''), name);
    try {
      loadConfig(env);
    } catch (err) {
      t.match((err as Error).message, new RegExp(`^Invalid configuration: ${name} .*${problem.source}`));
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
  const err = await run(process.execPath, [...SERVER_ARGS], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: 'eighty' },
  }).then(
    () => null,
    (e) => e as { code: number; stderr: string },
  );
  t.ok(err, 'the server did not start');
  t.equal(err!.code, 2);
  t.match(err!.stderr, 'Invalid configuration: PORT must be an integer from 0 to 65535, got "eighty"');
});

t.test('when PDI_TRUST_PROXY is set, then it lists addresses and CIDR blocks; an entry that is neither stops the start naming it', async (t) => {
  t.same(loadConfig({}).trustProxy, []);
  t.same(loadConfig({ PDI_TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,fd00::/8' }).trustProxy, ['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
  t.throws(() => loadConfig({ PDI_TRUST_PROXY: '127.0.0.1,proxy.internal' }), {
    name: 'ConfigError',
    message:
      'Invalid configuration: PDI_TRUST_PROXY must list IP addresses or CIDR blocks of the proxies in front (e.g. 127.0.0.1,10.0.0.0/8), got "proxy.internal"',
  });
});
