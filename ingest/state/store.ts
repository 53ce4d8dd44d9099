// Ingest state in SQLite (PDI_DATA_DIR/ingest.db): the run log, per-source checkpoints and the
// one-run-per-source lock. Shared by the CLI and the server (WAL lets them read while one writes).
import path from 'node:path';
import { openSqlite, type Sqlite } from '../../lib/sqlite.js';
import type { SourceName } from '../../lib/sources.js';
import type { Checkpoint } from '../sources/types.js';

export interface RunCounts {
  fetched: number;
  new: number;
  updated: number;
  unchanged: number;
  failed: number;
}

export interface RunRecord extends RunCounts {
  id: number;
  source: SourceName;
  kind: 'ingest' | 'reindex';
  started_at: string;
  finished_at: string | null;
  status: 'running' | 'succeeded' | 'failed';
  error: string | null;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS runs (
    id          INTEGER PRIMARY KEY,
    source      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    started_at  TEXT NOT NULL,
    finished_at TEXT,
    status      TEXT NOT NULL,
    fetched     INTEGER NOT NULL DEFAULT 0,
    new         INTEGER NOT NULL DEFAULT 0,
    updated     INTEGER NOT NULL DEFAULT 0,
    unchanged   INTEGER NOT NULL DEFAULT 0,
    failed      INTEGER NOT NULL DEFAULT 0,
    error       TEXT
  );
  CREATE INDEX IF NOT EXISTS runs_by_source ON runs (source, id);
  CREATE TABLE IF NOT EXISTS checkpoints (
    source     TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS locks (
    source      TEXT PRIMARY KEY,
    pid         INTEGER NOT NULL,
    acquired_at TEXT NOT NULL
  );
`;

export class SourceBusyError extends Error {
  constructor(source: string, pid: number) {
    super(`Another run of ${source} is in progress (pid ${pid})`);
    this.name = 'SourceBusyError';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class IngestState {
  readonly db: Sqlite;

  constructor(file: string) {
    this.db = openSqlite(file);
    this.db.exec(SCHEMA);
  }

  static pathIn(dataDir: string): string {
    return path.join(dataDir, 'ingest.db');
  }

  /** Takes the source's lock, or throws SourceBusyError while a live process holds it. */
  lock(source: SourceName): () => void {
    const take = this.db.transaction(() => {
      const holder = this.runningPid(source);
      if (holder !== null && holder !== process.pid) throw new SourceBusyError(source, holder);
      const now = new Date().toISOString();
      this.db.prepare('INSERT OR REPLACE INTO locks (source, pid, acquired_at) VALUES (?, ?, ?)').run(source, process.pid, now);
      // A run starts only under the lock, so one still `running` now had its process end first (killed,
      // crashed): it is closed as failed, or it would read `running` for ever and hide from lastRuns.
      this.db.prepare(
        `UPDATE runs SET status = 'failed', finished_at = ?, error = 'interrupted: its process ended before the run finished'
          WHERE source = ? AND status = 'running'`,
      ).run(now, source);
    });
    take.immediate();
    return () => {
      this.db.prepare('DELETE FROM locks WHERE source = ? AND pid = ?').run(source, process.pid);
    };
  }

  /** The live process running the source now (holding its lock), or null (no lock, or a dead holder's). */
  runningPid(source: SourceName): number | null {
    const held = this.db.prepare('SELECT pid FROM locks WHERE source = ?').get(source) as { pid: number } | undefined;
    return held && alive(held.pid) ? held.pid : null;
  }

  checkpoint(source: SourceName): Checkpoint | null {
    const row = this.db.prepare('SELECT value FROM checkpoints WHERE source = ?').get(source) as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as Checkpoint) : null;
  }

  /** One statement, so the checkpoint is replaced atomically. */
  saveCheckpoint(source: SourceName, value: Checkpoint): void {
    this.db.prepare(
      `INSERT INTO checkpoints (source, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (source) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    ).run(source, JSON.stringify(value), new Date().toISOString());
  }

  startRun(source: SourceName, kind: RunRecord['kind']): number {
    return Number(this.db.prepare("INSERT INTO runs (source, kind, started_at, status) VALUES (?, ?, ?, 'running')")
      .run(source, kind, new Date().toISOString()).lastInsertRowid);
  }

  finishRun(id: number, counts: RunCounts, error: string | null): void {
    this.db.prepare(
      `UPDATE runs SET finished_at = ?, status = ?, fetched = ?, new = ?, updated = ?, unchanged = ?, failed = ?, error = ?
        WHERE id = ?`,
    ).run(new Date().toISOString(), error ? 'failed' : 'succeeded', counts.fetched, counts.new, counts.updated,
      counts.unchanged, counts.failed, error, id);
  }

  /** The latest finished run of each source, of one kind (a reindex says nothing of upstream health). */
  lastRuns(kind: RunRecord['kind'] = 'ingest'): Map<SourceName, RunRecord> {
    const rows = this.db.prepare(
      `SELECT r.* FROM runs r
        WHERE r.id = (SELECT max(id) FROM runs x WHERE x.source = r.source AND x.kind = ? AND x.status != 'running')`,
    ).all(kind) as RunRecord[];
    return new Map(rows.map((r) => [r.source, r]));
  }

  close(): void {
    this.db.close();
  }
}
