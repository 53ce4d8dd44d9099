import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { WEBHOOK_KEY_FILE } from '../../api/alerts/secret.js';
import { startServer } from '../../api/server.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { startTestApp, tempDir } from '../helpers/app.js';

t.test('when keys are created and used, then the database files never contain a key in clear', async (t) => {
  const app = await startTestApp(t);
  const keys = [app.key('free'), app.key('pro'), app.key('enterprise')];
  for (const key of keys) await app.request('/v1/usage', { key });
  app.app.context.usage.flush();

  const files = fs
    .readdirSync(app.dataDir)
    .filter((f) => f.startsWith('accounts.db'))
    .map((f) => path.join(app.dataDir, f));
  t.ok(files.length >= 1);
  const bytes = Buffer.concat(files.map((f) => fs.readFileSync(f)));
  for (const key of keys) {
    t.equal(bytes.indexOf(key), -1, 'the key is not stored');
    t.equal(bytes.indexOf(key.slice(9)), -1, 'nor its random part');
    t.not(bytes.indexOf(createHash('sha256').update(key).digest('hex')), -1, 'its digest is');
  }
});

t.test('when the data folder does not exist yet, then it is created readable by its owner only', async (t) => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-perm-'));
  t.teardown(() => fs.rmSync(parent, { recursive: true, force: true }));
  const dataDir = path.join(parent, 'var');
  await startTestApp(t, { dataDir });
  t.equal(fs.statSync(dataDir).mode & 0o777, 0o700, 'no other local user reads the account database');
});

t.test('when the data folder exists readable by all and the umask is 022, then the server makes it 0700 and every database and key file 0600', async (t) => {
  const dataDir = tempDir(t);
  fs.chmodSync(dataDir, 0o755);
  const umask = process.umask(0o022);
  t.teardown(() => void process.umask(umask));
  const running = await startServer(loadConfig({ PDI_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }), createLogger('silent'));
  t.teardown(() => running.stop());
  // A write, so the account database has its -wal and -shm beside it.
  running.app.context.keys.create('Acme', 'pro');
  t.equal(fs.statSync(dataDir).mode & 0o777, 0o700, 'the folder');
  const files = fs.readdirSync(dataDir).filter((f) => f !== 'server.pid');
  for (const db of ['accounts.db', 'documents.db', 'ingest.db', 'blobs.db', 'index.db', 'server.lock']) t.ok(files.includes(db), `${db} was created`);
  t.ok(files.includes('accounts.db-wal') && files.includes(WEBHOOK_KEY_FILE));
  for (const f of files) t.equal(fs.statSync(path.join(dataDir, f)).mode & 0o777, 0o600, `${f}: owner only`);
});
