// The webhook signing key: made once per data folder, the same for every process that opens it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { WEBHOOK_KEY_FILE, WebhookSecrets } from '../../api/alerts/secret.js';
import { tempDir } from '../helpers/app.js';
import { REPO_ROOT } from '../helpers/paths.js';

const run = promisify(execFile);

t.test('when eight processes open a new data folder at once, then they all derive the same secrets from one key file and leave no draft behind', async (t) => {
  const dataDir = tempDir(t);
  const script = `import { WebhookSecrets } from './api/alerts/secret.ts'; process.stdout.write(WebhookSecrets.inDataDir(${JSON.stringify(dataDir)}).secretOf('p', 's'));`;
  const outs = await Promise.all(
    Array.from({ length: 8 }, () => run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO_ROOT })),
  );
  const secrets = new Set(outs.map((o) => o.stdout));
  t.equal(secrets.size, 1, 'one key for all');
  t.same(fs.readdirSync(dataDir), [WEBHOOK_KEY_FILE]);
  t.equal(fs.statSync(path.join(dataDir, WEBHOOK_KEY_FILE)).mode & 0o777, 0o600);
  t.equal(WebhookSecrets.inDataDir(dataDir).secretOf('p', 's'), [...secrets][0], 'and this process reads the same key');
});

t.test('when the key file is not a 32-byte hex key, then opening it fails with a message saying what to do', async (t) => {
  const dataDir = tempDir(t);
  fs.writeFileSync(path.join(dataDir, WEBHOOK_KEY_FILE), '');
  t.throws(() => WebhookSecrets.inDataDir(dataDir), /is not a 32-byte hex key; remove it to make a new one/);
});
