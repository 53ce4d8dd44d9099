import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { accountsDbPath, openDatabase } from '../../api/db/database.js';
import { KeyStore } from '../../api/db/keys.js';
import { cliEnv, pdi as run } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { request, tempDir } from '../helpers/app.js';

const pdi = (dataDir: string, ...args: string[]) => run(dataDir, args);

t.test('when keys are created, listed and revoked, then the CLI prints JSON without secrets', async (t) => {
  const dir = tempDir(t);
  const created = await pdi(dir, 'keys', 'create', '--org', 'Δήμος Αθηναίων', '--tier', 'enterprise', '--json');
  t.equal(created.code, 0);
  const k = JSON.parse(created.stdout);
  t.same(Object.keys(k), ['id', 'key', 'org', 'tier']);
  t.match(k, { org: 'Δήμος Αθηναίων', tier: 'enterprise', key: /^pdi_live_[A-Za-z0-9]{32}$/ });

  const listed = await pdi(dir, 'keys', 'list', '--json');
  t.equal(listed.code, 0);
  const list = JSON.parse(listed.stdout);
  t.equal(list.length, 1);
  t.same(Object.keys(list[0]).sort(), ['created_at', 'id', 'org', 'revoked_at', 'tier']);
  t.equal(list[0].revoked_at, null);
  t.notMatch(listed.stdout, k.key);

  t.equal((await pdi(dir, 'keys', 'revoke', k.id)).code, 0);
  const after = JSON.parse((await pdi(dir, 'keys', 'list', '--json')).stdout);
  t.match(after[0].revoked_at, /^\d{4}-/);
});

t.test('when an organization name made before names were checked holds control characters, then keys list shows them escaped, one key a line', async (t) => {
  const dir = tempDir(t);
  t.equal((await pdi(dir, 'keys', 'create', '--org', 'placeholder', '--tier', 'free')).code, 0);
  const db = openDatabase(accountsDbPath(dir));
  db.prepare('UPDATE organizations SET name = ?').run('evil\nkey_FAKE  enterprise A\x1b[2J');
  db.close();
  const listed = await pdi(dir, 'keys', 'list');
  t.equal(listed.stdout.trim().split('\n').length, 1, 'one line');
  t.match(listed.stdout, 'evil\\nkey_FAKE  enterprise A\\u001b[2J');
});

t.test('when the data folder does not exist, then keys list and revoke answer without creating it', async (t) => {
  const dir = path.join(tempDir(t), 'not-there');
  const listed = await pdi(dir, 'keys', 'list', '--json');
  t.equal(listed.code, 0);
  t.same(JSON.parse(listed.stdout), []);
  const revoked = await pdi(dir, 'keys', 'revoke', 'key_AAAAAAAAAAAAAAAA');
  t.equal(revoked.code, 2);
  t.match(revoked.stderr, 'No key with id key_AAAAAAAAAAAAAAAA');
  t.notOk(fs.existsSync(dir), 'no folder created');
  t.equal((await pdi(dir, 'keys', 'create', '--org', 'A', '--tier', 'free')).code, 0, 'create still sets it up');
  t.ok(fs.existsSync(path.join(dir, 'accounts.db')));
});

t.test('when arguments are wrong, then the CLI exits 2 with the reason and usage', async (t) => {
  const dir = tempDir(t);
  const cases: [string[], RegExp][] = [
    [['keys', 'create', '--org', 'A', '--tier', 'gold'], /--tier must be one of free, pro, enterprise/],
    [['keys', 'create', '--tier', 'pro'], /--org is required/],
    [['keys', 'revoke'], /exactly one key id/],
    [['keys', 'revoke', 'key_missing'], /No key with id key_missing/],
    [['keys', 'create', '--org', 'A', '--tier', 'pro', '--bogus'], /Unknown option '--bogus'/],
    [['frobnicate'], /Unknown command: frobnicate/],
    [[], /^Usage: pdi <command>/],
    [['keys', 'create', '--org', 'A', '--org', 'B', '--tier', 'pro'], /--org is given more than once/],
    // A newline forged a second line in keys list; escape sequences drove the operator's terminal.
    [['keys', 'create', '--org', 'evil\nkey_FAKE  enterprise A', '--tier', 'free'], /--org holds a control character/],
    [['keys', 'create', '--org', '\x1b]0;pwned\x07\x1b[2Jok', '--tier', 'free'], /--org holds a control character/],
    [['keys', 'create', '--org', 'A\u202Egnp.exe', '--tier', 'free'], /--org holds an invisible character \(U\+202E\)/],
    [['keys', 'create', '--org', 'x'.repeat(201), '--tier', 'free'], /--org is longer than 200 characters/],
  ];
  for (const [args, message] of cases) {
    const r = await pdi(dir, ...args);
    t.equal(r.code, 2, args.join(' '));
    t.match(r.stderr, message, args.join(' '));
  }
});

t.test('when the reader of its output goes away early (pdi keys list | head), then the CLI exits 0 without an error', async (t) => {
  const dir = tempDir(t);
  // Enough keys that the listing overflows the pipe's buffer before the reader leaves.
  const db = openDatabase(accountsDbPath(dir));
  const keys = new KeyStore(db);
  for (let i = 0; i < 3000; i++) keys.create(`Organisation ${i}`, 'free');
  db.close();
  const child = spawn(process.execPath, ['bin/pdi.js', 'keys', 'list'], { cwd: REPO_ROOT, env: cliEnv({ PDI_DATA_DIR: dir }) });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  await once(child.stdout, 'data');
  child.stdout.destroy();
  const [code] = await once(child, 'exit');
  t.equal(code, 0);
  t.equal(stderr, '');
});

t.test('when --help is given, then every command prints its usage and exits 0', async (t) => {
  const dir = tempDir(t);
  for (const args of [['--help'], ['keys', '--help'], ['keys', 'create', '--help'], ['serve', '--help']]) {
    const r = await pdi(dir, ...args);
    t.equal(r.code, 0, args.join(' '));
    t.match(r.stdout, /Usage/, args.join(' '));
  }
});

t.test('when a key is created by the CLI, then the server accepts it', async (t) => {
  const dir = tempDir(t);
  const k = JSON.parse((await pdi(dir, 'keys', 'create', '--org', 'Acme', '--tier', 'free', '--json')).stdout);
  const { startTestApp } = await import('../helpers/app.js');
  const app = await startTestApp(t, { dataDir: dir });
  const res = await request(app.url, '/v1/usage', { key: k.key });
  t.equal(res.status, 200);
  t.equal(res.body.tier, 'free');
});

t.test('when a key is created in a folder no server runs on while a server answers on PORT, then the CLI names the folder and warns', async (t) => {
  const { startTestApp } = await import('../helpers/app.js');
  const other = await startTestApp(t);
  const dir = tempDir(t);
  const res = await run(dir, ['keys', 'create', '--org', 'Acme', '--tier', 'free'], { PORT: new URL(other.url).port });
  t.equal(res.code, 0, res.stderr);
  t.match(res.stdout, `Created key key_`);
  t.match(res.stdout, ` in ${dir}.`);
  t.match(res.stderr, `no API server runs on the data folder ${dir}, but a server answers on port ${new URL(other.url).port}`);
});

t.test('when a key is created in the folder of the running server, then the CLI does not warn', async (t) => {
  const { startTestApp } = await import('../helpers/app.js');
  const { ServerLock } = await import('../../lib/server-lock.js');
  const dir = tempDir(t);
  const app = await startTestApp(t, { dataDir: dir });
  const lock = ServerLock.acquire(dir);
  t.teardown(() => lock.release());
  const res = await run(dir, ['keys', 'create', '--org', 'Acme', '--tier', 'free'], { PORT: new URL(app.url).port });
  t.equal(res.code, 0, res.stderr);
  t.equal(res.stderr, '');
});

t.test('when pdi status runs, then it first says which data folder it read', async (t) => {
  const dir = tempDir(t);
  const res = await pdi(dir, 'status');
  t.equal(res.code, 0, res.stderr);
  t.equal(res.stdout.split('\n')[0], `data folder ${dir}`);
  t.equal(JSON.parse((await pdi(dir, 'status', '--json')).stdout).data_dir, dir);
});

t.test('when a command embeds with no model configured, then it warns once, as a sentence; a command that embeds nothing does not warn', async (t) => {
  const dir = tempDir(t);
  const warning = /^pdi: warning: no embedding model configured \(PDI_MODEL_DIR\); semantic search runs on the lexical fallback pdi\/hashing-384\b/m;
  const ingest = await run(dir, ['ingest', 'elstat', '--from', 'data/demo/elstat'], { LOG_LEVEL: '' });
  t.equal(ingest.code, 0, ingest.stderr);
  t.match(ingest.stderr, warning, 'ingest embeds');
  t.equal(ingest.stderr.match(new RegExp(warning.source, 'gm'))?.length, 1, 'once');
  t.notMatch(ingest.stderr, /^\{/m, 'no JSON line');
  for (const args of [['status'], ['status', '--json'], ['reindex', 'elstat'], ['reindex', 'ted']]) {
    const res = await run(dir, args, { LOG_LEVEL: '' });
    t.equal(res.code, 0, res.stderr);
    t.notMatch(res.stderr, /embedding model/, `${args.join(' ')}: nothing embedded (reindex reuses the cached vectors)`);
  }
});
