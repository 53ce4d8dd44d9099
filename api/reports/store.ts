// Due-diligence reports of organizations (docs/api.md "Due-diligence reports"): the rows the routes read and the report
// job writes. Every read is scoped to an organization: another organization's report is not found.
import type { IdentifierType } from '../../lib/identifiers.js';
import type { Db } from '../db/database.js';
import { canonicalOrgName } from '../db/keys.js';

export type ReportStatus = 'pending' | 'completed' | 'failed';

export interface ReportRow {
  id: string;
  org_id: string;
  entity_identifier: string;
  identifier_type: IdentifierType;
  status: ReportStatus;
  created_at: string;
  completed_at: string | null;
  error_message: string | null;
  report_json: string | null;
}

const COLUMNS = 'id, org_id, entity_identifier, identifier_type, status, created_at, completed_at, error_message, report_json';

export class ReportStore {
  constructor(private readonly db: Db) {}

  insert(row: Pick<ReportRow, 'id' | 'org_id' | 'entity_identifier' | 'identifier_type' | 'created_at'>): void {
    this.db
      .prepare(`INSERT INTO reports (id, org_id, entity_identifier, identifier_type, status, created_at) VALUES (?, ?, ?, ?, 'pending', ?)`)
      .run(row.id, row.org_id, row.entity_identifier, row.identifier_type, row.created_at);
  }

  get(orgId: string, id: string): ReportRow | null {
    return (this.db.prepare(`SELECT ${COLUMNS} FROM reports WHERE id = ? AND org_id = ?`).get(id, orgId) as ReportRow | undefined) ?? null;
  }

  /** Any organization's report: for the job that generates it. */
  byId(id: string): ReportRow | null {
    return (this.db.prepare(`SELECT ${COLUMNS} FROM reports WHERE id = ?`).get(id) as ReportRow | undefined) ?? null;
  }

  /** Newest first; ties by id. */
  list(orgId: string, limit: number, offset: number): { total: number; items: ReportRow[] } {
    const total = this.db.prepare('SELECT count(*) FROM reports WHERE org_id = ?').pluck().get(orgId) as number;
    const items = this.db
      .prepare(`SELECT ${COLUMNS} FROM reports WHERE org_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
      .all(orgId, limit, offset) as ReportRow[];
    return { total, items };
  }

  pdf(orgId: string, id: string): Buffer | null {
    return (
      (this.db.prepare(`SELECT pdf FROM reports WHERE id = ? AND org_id = ? AND status = 'completed'`).pluck().get(id, orgId) as Buffer | undefined) ?? null
    );
  }

  /** Writes the result once: a second run of the same job (or one past its failure) changes nothing. */
  complete(id: string, reportJson: string, pdf: Buffer, completedAt: string): boolean {
    return (
      this.db
        .prepare(
          `UPDATE reports SET status = 'completed', report_json = ?, pdf = ?, completed_at = ?, error_message = NULL WHERE id = ? AND status = 'pending'`,
        )
        .run(reportJson, pdf, completedAt, id).changes === 1
    );
  }

  /** completed_at stays null: the report never completed. */
  fail(id: string, message: string): void {
    this.db.prepare(`UPDATE reports SET status = 'failed', error_message = ? WHERE id = ? AND status = 'pending'`).run(message, id);
  }

  /** The id of the organization named `raw` (compared as stored: trimmed, NFC), or null when none is. */
  orgIdOf(raw: string): string | null {
    return (this.db.prepare('SELECT id FROM organizations WHERE name = ?').pluck().get(canonicalOrgName(raw)) as string | undefined) ?? null;
  }

  /** Every organization's name, for suggesting one. */
  orgNames(): string[] {
    return this.db.prepare('SELECT name FROM organizations ORDER BY name').pluck().all() as string[];
  }
}
