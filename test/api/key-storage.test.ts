import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { startTestApp } from '../helpers/app.js';

t.test('when keys are created and used, then the database files never contain a key in clear', async (t) => {
  const app = await startTestApp(t);
  const keys = [app.key('free'), app.key('pro'), app.key('enterprise')];
  for (const key of keys) await app.request('/v1/usage', { key });
  app.app.context.usage.flush();

  const files = fs.readdirSync(app.dataDir).filter((f) => f.startsWith('accounts.db')).map((f) => path.join(app.dataDir, f));
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
