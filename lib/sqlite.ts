// Opens a SQLite database the way every store here wants it: its folder created, WAL (readers never
// block the writer, and the CLI can write while the server reads), synchronous=NORMAL (no fsync per
// commit; a crash can lose the last commits, never corrupt), and a busy timeout for the other process.
import type BetterSqlite3 from 'better-sqlite3';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ownerOnlyFile } from './owner-only.js';

/**
 * better-sqlite3 for the running Node: 13 where Node-API 10 is there (Node 22.14+, 24), else 12.
 * 12 wraps statements in node::ObjectWrap, which since Node 24.19 aborts the process when a statement
 * is garbage-collected outside JavaScript (WiseLibs/better-sqlite3#1515); 13 needs Node-API 10, and
 * Node 20 (Node-API 9) segfaults opening a database with it. The API is the same.
 */
export const Database: typeof BetterSqlite3 = createRequire(import.meta.url)(Number(process.versions.napi) >= 10 ? 'better-sqlite3-13' : 'better-sqlite3');
export type Sqlite = BetterSqlite3.Database;

/** How long a statement waits for another connection's lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

export function openSqlite(file: string): Sqlite {
  // Owner only, when this creates it: it holds the account database (key digests, organizations).
  if (file !== ':memory:') {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    ownerOnlyFile(file);
  }
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
