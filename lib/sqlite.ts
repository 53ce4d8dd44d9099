// Opens a SQLite database the way every store here wants it: its folder created, WAL (readers never
// block the writer, and the CLI can write while the server reads), synchronous=NORMAL (no fsync per
// commit; a crash can lose the last commits, never corrupt), and a busy timeout for the other process.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';

export type Sqlite = Database.Database;

/** How long a statement waits for another connection's lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

export function openSqlite(file: string): Sqlite {
  // Owner only, when this creates it: it holds the account database (key digests, organizations).
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return db;
}
