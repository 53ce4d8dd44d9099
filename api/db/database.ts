// The account database (SQLite, WAL): organizations, keys, usage, and later reports, alerts and
// monitoring. One connection per process; better-sqlite3 is synchronous, so each statement is atomic.
import path from 'node:path';
import { openSqlite, type Sqlite } from '../../lib/sqlite.js';
import { MIGRATIONS } from './migrations.js';

export type Db = Sqlite;

export function openDatabase(file: string): Db {
  const db = openSqlite(file);
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (const m of MIGRATIONS.filter((m) => m.version > current)) {
    db.transaction(() => {
      db.exec(m.sql);
      m.run?.(db);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
}

export function accountsDbPath(dataDir: string): string {
  return path.join(dataDir, 'accounts.db');
}
