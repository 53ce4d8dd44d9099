// Daily request counters per key, exact under concurrency and cheap per request.
//
// Counting happens in memory: check-and-increment is one synchronous step in the single event loop,
// so concurrent requests can never overshoot the quota. The counts are written behind, in one
// transaction every `flushIntervalMs` and on close. A crash can therefore forget at most the requests
// counted in the last flush interval (1 s by default): those keys may get that many extra requests
// that day. The timer alone ran seconds late under saturating load (4,000 requests at once), so a
// count also writes when the interval has passed (docs/reliability.md). One server process per data
// directory (the counts live in that process).
//
// A write that fails (another process holds the file's write lock past a short wait, a read-only or
// full disk) keeps the counts in memory and is tried again at the next interval: the quota stays exact
// and nothing is lost unless the process dies before a write succeeds. It never throws: the timer's
// write threw from a timer callback and ended the server, and waited out SQLite's 5 s busy timeout on
// the event loop first, stalling every request.
import type { Logger } from '../../lib/logger.js';
import { BUSY_TIMEOUT_MS } from '../../lib/sqlite.js';
import type { Db } from './database.js';

/** How long the interval's write waits for another process's lock: the event loop waits as long. */
const FLUSH_WAIT_MS = 50;
/** How long the last write, on close, may wait. */
const CLOSE_WAIT_MS = 5_000;

interface Entry {
  day: string;
  count: number;
}

export class UsageCounter {
  private readonly entries = new Map<string, Entry>();
  private readonly dirty = new Set<string>();
  /** Counts of a past day whose write failed when their key's day changed. */
  private yesterday: (readonly [string, Entry])[] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly read;
  private readonly write;
  /** Whether the last write failed: logged when a run of failures starts and when it ends. */
  private failing = false;
  /** performance.now() of the last write tried. */
  private flushedAt = performance.now();

  constructor(
    private readonly db: Db,
    private readonly flushIntervalMs = 1_000,
    private readonly log?: Logger,
  ) {
    this.read = db.prepare('SELECT count FROM daily_usage WHERE key_id = ? AND day = ?').pluck();
    this.write = db.prepare(
      `INSERT INTO daily_usage (key_id, day, count) VALUES (?, ?, ?)
       ON CONFLICT (key_id, day) DO UPDATE SET count = max(count, excluded.count)`,
    );
    this.timer = setInterval(() => this.flush(), flushIntervalMs);
    this.timer.unref();
  }

  private entry(keyId: string, day: string): Entry {
    let e = this.entries.get(keyId);
    if (!e || e.day !== day) {
      // Yesterday's last counts: written now, or kept aside for the next write if this one fails.
      if (e && this.dirty.has(keyId) && !this.flush()) this.yesterday.push([keyId, e]);
      e = { day, count: (this.read.get(keyId, day) as number | undefined) ?? 0 };
      this.entries.set(keyId, e);
    }
    return e;
  }

  /** Counts one request unless the quota is spent. Returns whether it was counted and the count after. */
  consume(keyId: string, day: string, quota: number): { allowed: boolean; used: number } {
    const e = this.entry(keyId, day);
    if (e.count >= quota) return { allowed: false, used: e.count };
    e.count += 1;
    this.dirty.add(keyId);
    if (performance.now() - this.flushedAt >= this.flushIntervalMs) this.flush();
    return { allowed: true, used: e.count };
  }

  used(keyId: string, day: string): number {
    return this.entry(keyId, day).count;
  }

  /** Each key's count per day from `since` (YYYY-MM-DD) on, counts not yet written included. */
  countsSince(since: string): Map<string, Map<string, number>> {
    const out = new Map<string, Map<string, number>>();
    const add = (keyId: string, day: string, count: number) => {
      if (day < since || count === 0) return;
      let days = out.get(keyId);
      if (!days) out.set(keyId, (days = new Map()));
      // Written counts only grow (the write keeps the larger), so the larger of the two is the truth.
      days.set(day, Math.max(days.get(day) ?? 0, count));
    };
    const rows = this.db.prepare('SELECT key_id, day, count FROM daily_usage WHERE day >= ?').all(since) as { key_id: string; day: string; count: number }[];
    for (const r of rows) add(r.key_id, r.day, r.count);
    for (const [keyId, e] of this.inMemory()) add(keyId, e.day, e.count);
    return out;
  }

  /** Each key's last day with a counted request (keys never used are absent). */
  lastUsedDays(): Map<string, string> {
    const rows = this.db.prepare('SELECT key_id, max(day) AS day FROM daily_usage WHERE count > 0 GROUP BY key_id').all() as { key_id: string; day: string }[];
    const out = new Map(rows.map((r) => [r.key_id, r.day]));
    for (const [keyId, e] of this.inMemory()) {
      if (e.count > 0 && e.day > (out.get(keyId) ?? '')) out.set(keyId, e.day);
    }
    return out;
  }

  private inMemory(): (readonly [string, Entry])[] {
    return [...this.yesterday, ...this.entries];
  }

  /** Writes the counts behind; false when the write failed (the counts stay in memory for the next). */
  flush(waitMs = FLUSH_WAIT_MS): boolean {
    this.flushedAt = performance.now();
    if (this.dirty.size === 0 && this.yesterday.length === 0) return true;
    const rows = [...this.yesterday, ...[...this.dirty].map((k) => [k, this.entries.get(k)!] as const)];
    try {
      this.db.pragma(`busy_timeout = ${waitMs}`);
      this.db.transaction(() => {
        for (const [k, e] of rows) this.write.run(k, e.day, e.count);
      })();
    } catch (err) {
      if (!this.failing) {
        this.log?.error({ error: (err as Error).message, keys: rows.length }, 'quota counts not written; kept in memory and tried again every interval');
      }
      this.failing = true;
      return false;
    } finally {
      this.restoreBusyTimeout();
    }
    this.dirty.clear();
    this.yesterday = [];
    if (this.failing) this.log?.info('quota counts written again');
    this.failing = false;
    return true;
  }

  close(): void {
    clearInterval(this.timer);
    if (!this.flush(CLOSE_WAIT_MS))
      this.log?.error({ keys: this.dirty.size + this.yesterday.length }, 'quota counts lost at shutdown: they could not be written');
  }

  private restoreBusyTimeout(): void {
    try {
      this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    } catch {
      // A closed connection: nothing to restore.
    }
  }
}
