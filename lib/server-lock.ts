// One API server per data directory. Quotas are counted in the server's memory and written behind
// (docs/decisions.md "Quota counting"), so a second server on the same accounts.db would count apart
// and let every key through once per server. The lock is an exclusive transaction on a small SQLite
// file, held while the server runs: the OS drops it when the process ends, however it ends, so a crash
// leaves no stale lock behind (as a pid file would).
import { Database, type Sqlite } from '../lib/sqlite.js';
import fs from 'node:fs';
import path from 'node:path';
import { ownerOnlyFile, ownerOnlyFolder } from './owner-only.js';

export class ServerLock {
  private constructor(
    private readonly db: Sqlite,
    private readonly pidFile: string,
  ) {}

  /** Takes the lock of `dataDir`, or throws naming the server that holds it. */
  static acquire(dataDir: string): ServerLock {
    ownerOnlyFolder(dataDir);
    const lockFile = path.join(dataDir, 'server.lock');
    ownerOnlyFile(lockFile);
    const db = new Database(lockFile);
    const pidFile = path.join(dataDir, 'server.pid');
    try {
      db.pragma('busy_timeout = 0');
      db.exec('BEGIN EXCLUSIVE');
    } catch (err) {
      db.close();
      if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
      // The pid file is only what the holder wrote after taking the lock; the lock is the truth.
      const pid = readPid(pidFile);
      throw new Error(
        `another API server${pid ? ` (pid ${pid})` : ''} is running on PDI_DATA_DIR ${dataDir}; ` +
          'quotas are counted in one process, so run one server per data directory',
      );
    }
    fs.writeFileSync(pidFile, `${process.pid}\n`);
    return new ServerLock(db, pidFile);
  }

  /** Whether a live server holds the lock of `dataDir` (read without creating anything). */
  static isHeld(dataDir: string): boolean {
    const file = path.join(dataDir, 'server.lock');
    if (!fs.existsSync(file)) return false;
    const db = new Database(file, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 0');
      db.exec('BEGIN EXCLUSIVE');
      db.exec('ROLLBACK');
      return false;
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_BUSY') return true;
      throw err;
    } finally {
      db.close();
    }
  }

  release(): void {
    if (!this.db.open) return;
    if (readPid(this.pidFile) === String(process.pid)) fs.rmSync(this.pidFile, { force: true });
    this.db.close();
  }
}

function readPid(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8').trim() || null;
  } catch {
    return null;
  }
}
