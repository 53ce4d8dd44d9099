// Opens a SQLite database the way every store here wants it: its folder created, WAL (readers never
// block the writer, and the CLI can write while the server reads), synchronous=NORMAL (no fsync per
// commit; a crash can lose the last commits, never corrupt), and a busy timeout for the other process.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';

export type Sqlite = Database.Database;

export function openSqlite(file: string): Sqlite {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  return db;
}
