// Daily request counters per key, exact under concurrency and cheap per request.
//
// Counting happens in memory: check-and-increment is one synchronous step in the single event loop,
// so concurrent requests can never overshoot the quota. The counts are written behind, in one
// transaction every `flushIntervalMs` and on close. A crash can therefore forget at most the requests
// counted in the last flush interval (1 s by default): those keys may get that many extra requests
// that day. One server process per data directory (the counts live in that process).
import type { Db } from './database.js';

interface Entry {
  day: string;
  count: number;
}

export class UsageCounter {
  private readonly entries = new Map<string, Entry>();
  private readonly dirty = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private readonly read;
  private readonly write;

  constructor(private readonly db: Db, flushIntervalMs = 1_000) {
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
      if (e && this.dirty.has(keyId)) this.flush();
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
    return { allowed: true, used: e.count };
  }

  used(keyId: string, day: string): number {
    return this.entry(keyId, day).count;
  }

  flush(): void {
    if (this.dirty.size === 0) return;
    const rows = [...this.dirty].map((k) => [k, this.entries.get(k)!] as const);
    this.db.transaction(() => {
      for (const [k, e] of rows) this.write.run(k, e.day, e.count);
    })();
    this.dirty.clear();
  }

  close(): void {
    clearInterval(this.timer);
    this.flush();
  }
}
