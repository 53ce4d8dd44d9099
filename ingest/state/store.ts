// Ingest state in SQLite (PDI_DATA_DIR/ingest.db): the run log, per-source checkpoints, reference data
// sources keep between runs, and the one-run-per-source lock. Shared by the CLI and the server (WAL
// lets them read while one writes).
import path from 'node:path';
import { openSqlite, type Sqlite } from '../../lib/sqlite.js';
import type { SourceName } from '../../index-mappings/sources.js';
import type { Checkpoint } from '../sources/types.js';
import { INTERRUPTED, type RunFailure, UNRECORDED } from '../run-failure.js';

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
  /** Why a failed run failed, for the operator (logs, pdi status): may name hosts, paths, an upstream's text. */
  error: string | null;
  /** The same for clients (GET /v1/sources): one of the short RUN_REASONS of ingest/run-failure.ts. */
  reason: string | null;
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
    error       TEXT,
    reason      TEXT
  );
  CREATE INDEX IF NOT EXISTS runs_by_source ON runs (source, id);
  CREATE TABLE IF NOT EXISTS checkpoints (
    source     TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS reference (
    name       TEXT PRIMARY KEY,
    body       TEXT NOT NULL,
    fetched_at TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS locks (
    source      TEXT PRIMARY KEY,
    pid         INTEGER NOT NULL,
    acquired_at TEXT NOT NULL
  );
`;

export class SourceBusyError extends Error {
  constructor(
    source: string,
    readonly pid: number,
  ) {
    super(`Another run of ${source} is in progress (pid ${pid})`);
    this.name = 'SourceBusyError';
  }
}

/** Another `pdi reindex` is building a generation (rebuilds take turns: one generation at a time). */
export class RebuildBusyError extends Error {
  constructor(readonly pid: number) {
    super(`Another pdi reindex is in progress (pid ${pid})`);
    this.name = 'RebuildBusyError';
  }
}

/** The row of `locks` a reindex holds (of one source or of all) beside any source's own. */
const REBUILD_LOCK = '(reindex)';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** How often endRun tries again a close that failed. */
const RETRY_END_MS = 5_000;

/** The part of a logger endRun uses. */
export interface EndRunLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * `runs.reason` in a run log made before it (ADD COLUMN rewrites nothing: older runs read it as NULL).
 * Added in a write transaction that checks again, so a CLI and the server opening one log together agree.
 */
function addReasonColumn(db: Sqlite): void {
  const hasReason = () => (db.prepare("SELECT name FROM pragma_table_info('runs')").pluck().all() as string[]).includes('reason');
  if (hasReason()) return;
  db.transaction(() => {
    if (!hasReason()) db.exec('ALTER TABLE runs ADD COLUMN reason TEXT');
  }).immediate();
}

/** A run failed before reasons were recorded reads UNRECORDED: its stored error is the operator's alone. */
function withReason(run: RunRecord): RunRecord {
  return run.status === 'failed' && run.reason === null ? { ...run, reason: UNRECORDED } : run;
}

export class IngestState {
  readonly db: Sqlite;
  private readonly retries = new Set<NodeJS.Timeout>();

  constructor(file: string) {
    this.db = openSqlite(file);
    this.db.exec(SCHEMA);
    addReasonColumn(this.db);
  }

  static pathIn(dataDir: string): string {
    return path.join(dataDir, 'ingest.db');
  }

  /**
   * Takes the source's lock and records a run started, in one transaction; throws SourceBusyError
   * while a live process holds the lock. The run's id is what endRun closes.
   */
  beginRun(source: SourceName, kind: RunRecord['kind']): number {
    const begin = this.db.transaction(() => {
      const holder = this.runningPid(source);
      if (holder !== null && holder !== process.pid) throw new SourceBusyError(source, holder);
      const now = new Date().toISOString();
      this.db.prepare('INSERT OR REPLACE INTO locks (source, pid, acquired_at) VALUES (?, ?, ?)').run(source, process.pid, now);
      // A run starts only under the lock, so one still `running` now had its process end first (killed,
      // crashed): it is closed as failed, or it would read `running` for ever and hide from lastRuns.
      this.db
        .prepare("UPDATE runs SET status = 'failed', finished_at = ?, error = ?, reason = ? WHERE source = ? AND status = 'running'")
        .run(now, INTERRUPTED, INTERRUPTED, source);
      return Number(this.db.prepare("INSERT INTO runs (source, kind, started_at, status) VALUES (?, ?, ?, 'running')").run(source, kind, now).lastInsertRowid);
    });
    return begin.immediate();
  }

  /**
   * Closes the run and releases the source's lock, in one transaction. Never throws: a write that
   * fails (a full disk, the database locked past the busy timeout) is logged and tried again every
   * RETRY_END_MS until it succeeds. Before, the run stayed `running` and the lock held by this live
   * process, so every later run of the source was refused until a restart.
   */
  endRun(source: SourceName, id: number, counts: RunCounts, failure: RunFailure | null, log?: EndRunLogger): void {
    const finishedAt = new Date().toISOString();
    const end = this.db.transaction(() => {
      this.db
        .prepare(
          `UPDATE runs SET finished_at = ?, status = ?, fetched = ?, new = ?, updated = ?, unchanged = ?, failed = ?, error = ?, reason = ?
          WHERE id = ?`,
        )
        .run(
          finishedAt,
          failure ? 'failed' : 'succeeded',
          counts.fetched,
          counts.new,
          counts.updated,
          counts.unchanged,
          counts.failed,
          failure?.error ?? null,
          failure?.reason ?? null,
          id,
        );
      this.db.prepare('DELETE FROM locks WHERE source = ? AND pid = ?').run(source, process.pid);
    });
    const attempt = (): boolean => {
      try {
        end.immediate();
        return true;
      } catch (err) {
        if (!this.db.open) return true;
        log?.warn({ source, run: id, error: (err as Error).message }, 'could not close the run and release the source; retrying');
        return false;
      }
    };
    if (attempt()) return;
    const timer = setInterval(() => {
      if (!attempt()) return;
      clearInterval(timer);
      this.retries.delete(timer);
      log?.info({ source, run: id }, 'run closed and source released');
    }, RETRY_END_MS);
    timer.unref();
    this.retries.add(timer);
  }

  /** Takes the reindex lock (RebuildBusyError while another live process holds it); released by releaseRebuild. */
  beginRebuild(): void {
    this.db
      .transaction(() => {
        const held = this.db.prepare('SELECT pid FROM locks WHERE source = ?').get(REBUILD_LOCK) as { pid: number } | undefined;
        if (held && held.pid !== process.pid && alive(held.pid)) throw new RebuildBusyError(held.pid);
        this.db.prepare('INSERT OR REPLACE INTO locks (source, pid, acquired_at) VALUES (?, ?, ?)').run(REBUILD_LOCK, process.pid, new Date().toISOString());
      })
      .immediate();
  }

  releaseRebuild(): void {
    this.db.prepare('DELETE FROM locks WHERE source = ? AND pid = ?').run(REBUILD_LOCK, process.pid);
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
    this.db
      .prepare(
        `INSERT INTO checkpoints (source, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (source) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      )
      .run(source, JSON.stringify(value), new Date().toISOString());
  }

  /** Reference data a source keeps between runs (a directory), by name. */
  reference(name: string): { body: string; fetchedAt: string } | null {
    const row = this.db.prepare('SELECT body, fetched_at AS fetchedAt FROM reference WHERE name = ?').get(name) as
      | { body: string; fetchedAt: string }
      | undefined;
    return row ?? null;
  }

  saveReference(name: string, body: string, fetchedAt: Date = new Date()): void {
    this.db
      .prepare(
        `INSERT INTO reference (name, body, fetched_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at`,
      )
      .run(name, body, fetchedAt.toISOString());
  }

  /**
   * The latest finished run of each source, of one kind (a reindex says nothing of upstream health). A
   * run left `running` by a process that ended is shown as what the next run will close it as (failed,
   * interrupted), without a write: readers (the API, pdi status) do not take the lock.
   */
  lastRuns(kind: RunRecord['kind'] = 'ingest'): Map<SourceName, RunRecord> {
    const rows = this.db
      .prepare(
        `SELECT r.* FROM runs r
        WHERE r.id = (SELECT max(id) FROM runs x WHERE x.source = r.source AND x.kind = ?)`,
      )
      .all(kind) as RunRecord[];
    const last = new Map<SourceName, RunRecord>();
    for (const run of rows.map(withReason)) {
      if (run.status !== 'running') last.set(run.source, run);
      else if (this.runningPid(run.source) === null) last.set(run.source, { ...run, status: 'failed', error: INTERRUPTED, reason: INTERRUPTED });
      else {
        const finished = this.db
          .prepare("SELECT * FROM runs WHERE source = ? AND kind = ? AND status != 'running' ORDER BY id DESC LIMIT 1")
          .get(run.source, kind) as RunRecord | undefined;
        if (finished) last.set(run.source, withReason(finished));
      }
    }
    return last;
  }

  /** The sources with at least one ingest run that succeeded: their documents are served. */
  everSucceeded(): Set<SourceName> {
    const rows = this.db.prepare("SELECT DISTINCT source FROM runs WHERE kind = 'ingest' AND status = 'succeeded'").all() as { source: SourceName }[];
    return new Set(rows.map((r) => r.source));
  }

  close(): void {
    for (const timer of this.retries) clearInterval(timer);
    this.db.close();
  }
}
