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
  let db: Sqlite | undefined;
  try {
    db = new Database(file);
    // Creates the -wal file: a read-only folder fails here when the database file exists.
    db.pragma('journal_mode = WAL');
  } catch (err) {
    db?.close();
    // SQLite's message names no file, and the data directory holds five databases.
    if ((err as { code?: string }).code === 'SQLITE_CANTOPEN') (err as Error).message += ` ${file} (is its folder writable?)`;
    throw err;
  }
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return db;
}
