// A full disk under the data directory (a small tmpfs mounted for the test), against the real server
// process and the real `pdi ingest`: writes fail with a clear error, reads keep working, nothing is
// corrupted, and writes work again once space is freed. docs/reliability.md "Full disk".
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { accountsDbPath, openDatabase } from '../../api/db/database.js';
import { KeyStore } from '../../api/db/keys.js';
import { utcDay } from '../../lib/clock.js';
import { Database } from '../../lib/sqlite.js';
import { request, tempDir, type TestResponse } from '../helpers/app.js';
import { pdi } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { startServerProcess, stopServerProcess } from '../helpers/server-process.js';

const DEMO = path.join(REPO_ROOT, 'data/demo/kimdis');

/** A tmpfs of `mib` MiB on a fresh folder, unmounted at teardown; or why it may not be mounted here. */
function smallDisk(t: Test, mib: number): { dir: string } | { refused: string } {
  const dir = tempDir(t, 'pdi-full-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mib}m`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    const said = String((err as { stderr?: Buffer }).stderr ?? '').trim() || (err as Error).message;
    return { refused: `mount -t tmpfs is not permitted here (${said}): nothing was tested` };
  }
  t.teardown(() => {
    execFileSync('umount', ['-l', dir]);
  });
  return { dir };
}

/** Fills the file system of `dir` to the last byte: a file written until ENOSPC, in smaller and smaller pieces. */
function fill(dir: string): string {
  const file = path.join(dir, 'filler');
  const fd = fs.openSync(file, 'w');
  for (let size = 1 << 20; size >= 512; size >>= 1) {
    const chunk = Buffer.alloc(size, 1);
    for (;;) {
      try {
        fs.writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
        break;
      }
    }
  }
  fs.closeSync(fd);
  return file;
}

function integrity(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    return String(db.pragma('integrity_check', { simple: true }));
  } finally {
    db.close();
  }
}

const detail = (r: TestResponse) => (typeof r.body?.detail === 'string' ? r.body.detail : `no detail: ${r.text.slice(0, 100)}`);

t.test(
  "when the data directory's disk is full, then writes fail with a clear error, reads work, nothing is corrupted, and writes work again once space is freed",
  async (t) => {
    const disk = smallDisk(t, 48);
    // Skipped, not passed, where it tested nothing: the run's summary counts it as skipped.
    if ('refused' in disk) return t.plan(0, disk.refused);
    const dataDir = disk.dir;
    // The demo KIMDIS pages in two halves: the first before the disk fills, the second while full and after.
    const pages = fs.readdirSync(DEMO).sort();
    const [first, second] = [tempDir(t), tempDir(t)];
    pages.forEach((p, i) => fs.copyFileSync(path.join(DEMO, p), path.join(i < pages.length / 2 ? first : second, p)));
    const ingested = await pdi(dataDir, ['ingest', 'kimdis', '--from', first]);
    t.equal(ingested.code, 0, ingested.stderr);
    const db = openDatabase(accountsDbPath(dataDir));
    // Enterprise: the polls below would spend a Pro key's 100 requests of the day on a slow machine.
    const { id: keyId, key } = new KeyStore(db).create('Full disk', 'enterprise');
    db.close();

    const server = await startServerProcess(t, { PDI_DATA_DIR: dataDir });
    const req = (p: string, o: { method?: string; body?: unknown } = {}) => request(server.url, p, { key, ...o });
    const profile = { name: 'Tenders', channels: ['email'], notify_email: 'ops@example.com' };
    const report = { entity_identifier: '094014201', identifier_type: 'afm' };
    let counted = 0;
    const counting = async (p: string, o: { method?: string; body?: unknown } = {}) => {
      counted++;
      return req(p, o);
    };
    t.equal((await counting('/v1/alerts/profiles', { method: 'POST', body: profile })).status, 201);
    const before = await counting('/v1/reports', { method: 'POST', body: report });
    t.equal(before.status, 201);
    const listed = (await counting('/v1/kimdis/documents?limit=1')).body.total;
    t.ok(listed > 0, `${listed} documents before`);

    const filler = fill(dataDir);
    t.comment(`disk full: ${fs.statSync(filler).size} bytes of filler`);
    // Writes: each refused with a clear error and nothing half-done.
    const profileFull = await counting('/v1/alerts/profiles', { method: 'POST', body: profile });
    const reportFull = await counting('/v1/reports', { method: 'POST', body: report });
    t.comment(`while full: POST /v1/alerts/profiles ${profileFull.status} ${detail(profileFull)}; POST /v1/reports ${reportFull.status} ${detail(reportFull)}`);
    for (const [what, r] of [
      ['alert profile', profileFull],
      ['report', reportFull],
    ] as const) {
      t.equal(r.status, 507, `${what}: 507 Insufficient Storage`);
      t.match(detail(r), /storage is full/, `${what}: the detail says why`);
    }
    const ingestFull = await pdi(dataDir, ['ingest', 'kimdis', '--from', second]);
    t.not(ingestFull.code, 0, 'pdi ingest fails');
    t.match(ingestFull.stderr, /full/i, `pdi ingest says the disk is full: ${ingestFull.stderr.trim().split('\n').pop()}`);
    // Reads keep working, and requests are still answered and counted (in memory).
    for (const p of [
      '/v1/kimdis/documents?limit=5',
      `/v1/search?q=${encodeURIComponent('σύμβαση')}`,
      '/v1/alerts/profiles',
      '/v1/reports',
      `/v1/reports/${before.body.id}`,
      '/v1/usage',
      '/v1/sources',
    ]) {
      const r = await counting(p);
      t.equal(r.status, 200, `read ${p} while full`);
    }
    t.equal((await req('/v1/kimdis/documents?limit=1')).body.total, listed, 'the same documents');
    counted++;
    await server.logged(/quota counts not written/);

    fs.rmSync(filler);
    const profileAfter = await counting('/v1/alerts/profiles', { method: 'POST', body: profile });
    t.equal(profileAfter.status, 201, 'an alert profile is created again');
    const reportAfter = await counting('/v1/reports', { method: 'POST', body: report });
    t.equal(reportAfter.status, 201, 'a report is accepted again');
    await server.logged(/quota counts written again/);
    const ingestAfter = await pdi(dataDir, ['ingest', 'kimdis', '--from', second]);
    t.equal(ingestAfter.code, 0, `pdi ingest works again: ${ingestAfter.stderr}`);
    const total = (await counting('/v1/kimdis/documents?limit=1')).body.total;
    for (const id of [before.body.id, reportAfter.body.id]) {
      for (;;) {
        const r = await counting(`/v1/reports/${id}`);
        if (r.status !== 200) {
          t.fail(`GET /v1/reports/${id}: ${r.status} ${detail(r)}`);
          break;
        }
        if (r.body.status !== 'pending') {
          t.equal(r.body.status, 'completed', `report ${id} completed`);
          break;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    await stopServerProcess(server);

    for (const file of fs.readdirSync(dataDir).filter((f) => f.endsWith('.db'))) {
      t.equal(integrity(path.join(dataDir, file)), 'ok', `${file}: PRAGMA integrity_check`);
    }
    const accounts = new Database(accountsDbPath(dataDir), { readonly: true });
    t.teardown(() => accounts.close());
    t.equal(accounts.prepare('SELECT count(*) FROM alert_profiles').pluck().get(), 2, 'two profiles: the one refused left nothing');
    t.equal(accounts.prepare('SELECT count(*) FROM reports').pluck().get(), 2, 'two reports: the one refused left nothing');
    t.equal(
      accounts.prepare('SELECT count FROM daily_usage WHERE key_id = ? AND day = ?').pluck().get(keyId, utcDay(new Date())),
      counted,
      'every request counted, those while full included',
    );
    const documents = new Database(path.join(dataDir, 'documents.db'), { readonly: true });
    t.teardown(() => documents.close());
    t.equal(documents.prepare("SELECT count(*) FROM documents WHERE source = 'kimdis'").pluck().get(), total, 'the store holds what the API lists');
    t.comment(`documents: ${listed} before, ${total} after the second half was ingested once space was freed`);
  },
);
