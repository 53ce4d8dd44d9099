// Prepared statements kept per table set: preparing one costs more than running most of ours.
import type { Database, Statement } from 'better-sqlite3';

export class Statements {
  private readonly cache = new Map<string, Statement>();

  constructor(private readonly db: Database) {}

  /** `sql` prepared once; `safe` returns integers as BigInt (row ids). */
  get(sql: string, safe = false): Statement {
    const key = (safe ? 'S' : 'N') + sql;
    let s = this.cache.get(key);
    if (!s) {
      s = this.db.prepare(sql);
      if (safe) s.safeIntegers(true);
      this.cache.set(key, s);
    }
    return s;
  }

  /** Forgets every statement (after a table they read was replaced). */
  clear(): void {
    this.cache.clear();
  }
}
