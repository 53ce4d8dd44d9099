// One organization-scoped table as the API reads it: a row by id, and pages with their total. Every
// read is scoped to one organization, so a row of another answers as not found; statements are
// prepared once (per shape of filter) rather than on every request.
import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';

/** A page of items and the count of all. */
export interface Page<T> {
  items: T[];
  total: number;
}

/** Conditions ANDed after `org_id = ?`: an SQL test with one `?` and its value. */
export type Conditions = [sql: string, value: unknown][];

export class OrgTable<Row> {
  private readonly pages = new Map<string, { rows: Statement; total: Statement }>();
  private byId?: Statement;

  /** `columns` as selected; `order` of pages (newest first by default). */
  constructor(
    private readonly db: Db,
    private readonly table: string,
    private readonly opts: { columns?: string; order?: string } = {},
  ) {}

  get(orgId: string, id: string): Row | undefined {
    this.byId ??= this.db.prepare(`SELECT ${this.opts.columns ?? '*'} FROM ${this.table} WHERE id = ? AND org_id = ?`);
    return this.byId.get(id, orgId) as Row | undefined;
  }

  page(orgId: string, limit: number, offset: number, conditions: Conditions = []): Page<Row> {
    const where = ['org_id = ?', ...conditions.map(([sql]) => sql)].join(' AND ');
    let st = this.pages.get(where);
    if (!st) {
      st = {
        rows: this.db.prepare(
          `SELECT ${this.opts.columns ?? '*'} FROM ${this.table} WHERE ${where} ORDER BY ${this.opts.order ?? 'rowid DESC'} LIMIT ? OFFSET ?`,
        ),
        total: this.db.prepare(`SELECT count(*) FROM ${this.table} WHERE ${where}`).pluck(),
      };
      this.pages.set(where, st);
    }
    const args = [orgId, ...conditions.map(([, value]) => value)];
    return { items: st.rows.all(...args, limit, offset) as Row[], total: st.total.get(...args) as number };
  }
}
