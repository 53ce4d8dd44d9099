// pdi backup DIR: taken from a running server that is counting requests, its databases pass SQLite's
// integrity check, hold the same keys and usage as the live ones, and restore into a working server.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import t from 'tap';
import { startServer } from '../../api/server.js';
import { loadConfig } from '../../lib/config.js';
import { Database, type Sqlite } from '../../lib/sqlite.js';
import { until } from '../helpers/alert-peers.js';
import { request, tempDir } from '../helpers/app.js';
import { pdi } from '../helpers/cli.js';

function open(file: string): Sqlite {
  return new Database(file, { readonly: true, fileMustExist: true });
}

/** Every row of every table but those named, each as JSON, in a stable order. */
function rowsOf(db: Sqlite, except: string[] = []): Record<string, string[]> {
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[]).filter(
    (name) => !except.includes(name),
  );
  return Object.fromEntries(
    tables.map((name) => [
      name,
      db
        .prepare(`SELECT * FROM "${name}"`)
        .raw()
        .all()
        .map((row) => JSON.stringify(row))
        .sort(),
    ]),
  );
}

t.test('when pdi backup runs while the server counts requests, then the copies pass integrity_check and hold the live keys and usage', async (t) => {
  const dataDir = tempDir(t);
  // Two sources of the demo corpus through the real ingest pipeline, so documents.db, blobs.db and
  // ingest.db hold rows: the whole corpus (3,768 documents) made the load and the reindex below the
  // bulk of this test's time, and backs up nothing more.
  for (const source of ['data_gov_gr', 'elstat']) {
    const run = await pdi(dataDir, ['ingest', source, '--from', `data/demo/${source}`]);
    t.equal(run.code, 0, `${source} ingested: ${run.stderr}`);
  }
  const server = await startServer(
    loadConfig({ PDI_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', PDI_DEMO: '0', LOG_LEVEL: 'silent' }),
    pino({ level: 'silent' }),
  );
  t.teardown(() => server.stop());
  const keys = server.app.context.keys;
  const steady = keys.create('Steady', 'pro').key;
  const busy = keys.create('Busy', 'enterprise').key;
  const revoked = keys.create('Gone', 'free');
  keys.revoke(revoked.id);
  for (let i = 0; i < 7; i++) t.equal((await request(server.url, '/v1/usage', { key: steady })).status, 200);
  t.ok(server.app.context.usage.flush());
  // The watcher walks the demo's feed in batches after the load: its watermark moves until it is at the end.
  const feed = open(path.join(dataDir, 'documents.db'));
  const feedEnd = feed.prepare('SELECT max(seq) FROM feed').pluck().get() as number;
  feed.close();
  const accounts = open(path.join(dataDir, 'accounts.db'));
  const watermarkSeq = accounts.prepare("SELECT seq FROM watcher_state WHERE name = 'documents'").pluck();
  await until(() => watermarkSeq.get() === feedEnd, "the watcher at the feed's end");
  accounts.close();

  // Requests of `busy` go on through the backup; their counts are written behind every second.
  let loading = true;
  let served = 0;
  const load = (async () => {
    while (loading && served < 900) {
      const res = await request(server.url, '/v1/usage', { key: busy });
      if (res.status !== 200) throw new Error(`a request during the backup answered ${res.status}`);
      served++;
    }
  })();
  const live = path.join(dataDir, 'accounts.db');
  const liveDb = open(live);
  t.teardown(() => liveDb.close());
  const usageOf = (db: Sqlite, key: string) =>
    db
      .prepare('SELECT count FROM daily_usage WHERE key_id = (SELECT id FROM api_keys WHERE digest = ?)')
      .pluck()
      .get(crypto.createHash('sha256').update(key).digest('hex')) as number | undefined;

  const dir = path.join(tempDir(t), 'backup');
  const before = usageOf(liveDb, busy) ?? 0;
  const run = await pdi(dataDir, ['backup', dir]);
  loading = false;
  await load;
  t.ok(server.app.context.usage.flush());
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /Backed up 5 files/);
  t.ok(served > 0, 'requests were served during the backup');

  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  t.same(
    manifest.files.map((f: { name: string }) => f.name),
    ['accounts.db', 'webhook-signing.key', 'ingest.db', 'documents.db', 'blobs.db'],
  );
  t.same(manifest.absent, []);
  for (const f of manifest.files) {
    const file = path.join(dir, f.name);
    t.equal(f.bytes, fs.statSync(file).size, `${f.name}: size in the manifest`);
    t.equal(f.sha256, crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex'), `${f.name}: SHA-256 in the manifest`);
    t.equal(fs.statSync(file).mode & 0o777, 0o600, `${f.name}: owner only`);
    if (f.kind !== 'sqlite') continue;
    const copy = open(file);
    t.equal(copy.pragma('integrity_check', { simple: true }), 'ok', `${f.name}: integrity_check`);
    t.equal(copy.pragma('journal_mode', { simple: true }), 'delete', `${f.name}: one self-contained file`);
    copy.close();
  }
  t.same(fs.readdirSync(dir).sort(), ['accounts.db', 'blobs.db', 'documents.db', 'ingest.db', 'manifest.json', 'webhook-signing.key']);
  t.equal(fs.readFileSync(path.join(dir, 'webhook-signing.key'), 'utf8'), fs.readFileSync(path.join(dataDir, 'webhook-signing.key'), 'utf8'));

  const copy = open(path.join(dir, 'accounts.db'));
  t.teardown(() => copy.close());
  // The watcher stamps its last pass every few seconds; its watermark (the feed's seq) is compared.
  t.same(
    rowsOf(copy, ['daily_usage', 'watcher_state']),
    rowsOf(liveDb, ['daily_usage', 'watcher_state']),
    'every account table but usage is the same, keys and the revocation included',
  );
  const watermark = (db: Sqlite) => (db.prepare('SELECT * FROM watcher_state').raw().all() as unknown[][]).map((row) => row.slice(0, 2));
  t.same(watermark(copy), watermark(liveDb));
  t.equal(copy.prepare('SELECT count(*) FROM api_keys').pluck().get(), 3);
  t.equal(usageOf(copy, steady), 7, 'a key idle during the backup has its count');
  const after = usageOf(liveDb, busy)!;
  t.equal(after, served, 'the live count is every request served');
  const copied = usageOf(copy, busy) ?? 0;
  t.ok(copied >= before && copied <= after, `the busy key's count in the copy (${copied}) is one the live database held (${before}..${after})`);

  for (const name of ['documents.db', 'blobs.db', 'ingest.db']) {
    const a = open(path.join(dataDir, name));
    const b = open(path.join(dir, name));
    t.same(rowsOf(b), rowsOf(a), `${name}: the same rows (nothing was ingested meanwhile)`);
    a.close();
    b.close();
  }
  const documents = open(path.join(dir, 'documents.db'));
  t.ok((documents.prepare('SELECT count(*) FROM documents').pluck().get() as number) > 0, 'the demo documents are in the copy');
  documents.close();

  // --with-index adds the embedded index, after the documents.
  const withIndex = path.join(tempDir(t), 'backup');
  const indexed = await pdi(dataDir, ['backup', withIndex, '--with-index', '--json']);
  t.equal(indexed.code, 0, indexed.stderr);
  t.same(
    JSON.parse(indexed.stdout).files.map((f: { name: string }) => f.name),
    ['accounts.db', 'webhook-signing.key', 'ingest.db', 'documents.db', 'index.db', 'blobs.db'],
  );
  const index = open(path.join(withIndex, 'index.db'));
  t.equal(index.pragma('integrity_check', { simple: true }), 'ok', 'index.db: integrity_check');
  index.close();

  // Restore as docs/operations.md says: the files into an empty data folder, then pdi reindex.
  const restored = tempDir(t);
  for (const f of manifest.files) fs.copyFileSync(path.join(dir, f.name), path.join(restored, f.name));
  const reindex = await pdi(restored, ['reindex']);
  t.equal(reindex.code, 0, reindex.stderr);
  const second = await startServer(
    loadConfig({ PDI_DATA_DIR: restored, PORT: '0', HOST: '127.0.0.1', PDI_DEMO: '0', LOG_LEVEL: 'silent' }),
    pino({ level: 'silent' }),
  );
  t.teardown(() => second.stop());
  const usage = await request(second.url, '/v1/usage', { key: steady });
  t.equal(usage.status, 200, 'a key works on the restored server');
  t.equal(usage.body.daily_used, 8, 'and its count goes on from the backup');
  t.equal((await request(second.url, '/v1/usage', { key: revoked.key })).status, 401, 'a revoked key stays revoked');
  const stats = [await request(server.url, '/v1/stats', { key: busy }), await request(second.url, '/v1/stats', { key: steady })];
  t.equal(stats[1].body.total_documents, stats[0].body.total_documents, 'the rebuilt index holds every document');
});

t.test('when DIR holds anything, or the data folder has no account database, then pdi backup refuses and writes nothing', async (t) => {
  const dataDir = tempDir(t);
  fs.writeFileSync(path.join(dataDir, 'accounts.db'), '');
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'manifest.json'), 'an older backup\n');
  const refused = await pdi(dataDir, ['backup', dir]);
  t.equal(refused.code, 2);
  t.equal(refused.stderr.trim(), `${dir} is not empty: a backup is never written over another; name a new or empty folder`);
  t.same(fs.readdirSync(dir), ['manifest.json']);
  t.equal(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'), 'an older backup\n');

  const empty = tempDir(t);
  const nowhere = path.join(tempDir(t), 'backup');
  const noAccounts = await pdi(empty, ['backup', nowhere]);
  t.equal(noAccounts.code, 2);
  t.equal(noAccounts.stderr.trim(), `${empty} holds no account database (accounts.db): is PDI_DATA_DIR right?`);
  t.notOk(fs.existsSync(nowhere));
});

t.test('when DIR exists readable by all and the umask is 022, then pdi backup makes it 0700 and writes every copy 0600', async (t) => {
  const dataDir = tempDir(t);
  // The child inherits the umask: SQLite and a plain write would create 0644 files under it.
  const umask = process.umask(0o022);
  t.teardown(() => void process.umask(umask));
  t.equal((await pdi(dataDir, ['keys', 'create', '--org', 'Acme', '--tier', 'pro'])).code, 0);
  const dir = tempDir(t);
  fs.chmodSync(dir, 0o755);
  const run = await pdi(dataDir, ['backup', dir]);
  t.equal(run.code, 0, run.stderr);
  t.equal(fs.statSync(dir).mode & 0o777, 0o700, 'the folder, though it existed');
  const files = fs.readdirSync(dir);
  t.ok(files.includes('accounts.db') && files.includes('manifest.json'), files.join(', '));
  // A database copy is its partial file renamed: its mode is the one the partial file was written with.
  for (const f of files) t.equal(fs.statSync(path.join(dir, f)).mode & 0o777, 0o600, `${f}: owner only`);
});
