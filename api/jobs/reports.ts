// Report creation and generation: a report row and its job are written in one transaction; the job
// gathers the entity's documents, builds report_json and the PDF, and stores both once.
import { randomUUID } from 'node:crypto';
import { EngineUnavailableError } from '../../lib/errors.js';
import type { JobQueue } from '../../lib/job-queue.js';
import type { Logger } from '../../lib/logger.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import type { IdentifierType } from '../../lib/identifiers.js';
import type { ReportRow, ReportStore } from '../db/reports.js';
import { buildReport, type Report } from '../../lib/reports/build.js';
import { entityDocuments } from './report-documents.js';
import type { EntityIndex } from '../../lib/entities.js';
import { renderPdf } from '../../lib/reports/pdf.js';

export const REPORT_JOB = 'report';

interface ReportJobPayload {
  report_id: string;
}

export interface GeneratedReport {
  report: Report;
  json: string;
  pdf: Buffer;
}

/** The report of an entity as of `now`: no storage, used by the job and by `pdi report create`. */
export async function generateReport(entities: EntityIndex, search: SearchProvider, identifier: string, type: IdentifierType, now: Date): Promise<GeneratedReport> {
  const found = await entityDocuments(entities, search, identifier, type);
  const report = buildReport({ entity: found.entity, documents: found.documents, total: found.total, truncated: found.truncated, now });
  return { report, json: JSON.stringify(report), pdf: renderPdf(report) };
}

/** The user's words for why a report failed; the log has the rest. */
export function reportFailureMessage(err: unknown): string {
  if (err instanceof EngineUnavailableError) return 'The search engine was unavailable while the report was generated; create the report again in a few minutes';
  return 'The report could not be generated because of an internal error; create it again, and contact support if it fails again';
}

export class ReportService {
  constructor(
    private readonly store: ReportStore,
    private readonly queue: JobQueue,
    private readonly entities: EntityIndex,
    private readonly search: SearchProvider,
    private readonly now: () => Date = () => new Date(),
    private readonly log?: Logger,
  ) {
    queue.register<ReportJobPayload>(REPORT_JOB, {
      run: (payload) => this.run(payload.report_id),
      failed: (payload, message) => store.fail(payload.report_id, message),
      messageOf: reportFailureMessage,
    });
  }

  /**
   * Records a pending report for the organization and queues its generation; returns the report.
   * The monitored-entity report (GET /v1/monitor/entities/{id}/report) creates its report through this too.
   */
  create(orgId: string, entityIdentifier: string, identifierType: IdentifierType): { report: ReportRow; jobId: string } {
    const row = {
      id: randomUUID(),
      org_id: orgId,
      entity_identifier: entityIdentifier,
      identifier_type: identifierType,
      created_at: this.now().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    };
    const jobId = this.queue.enqueue<ReportJobPayload>(REPORT_JOB, { report_id: row.id }, () => this.store.insert(row));
    return { report: this.store.byId(row.id)!, jobId };
  }

  private async run(reportId: string): Promise<void> {
    const row = this.store.byId(reportId);
    // Already written by an earlier run, or failed: nothing to do (the worker is idempotent).
    if (!row || row.status !== 'pending') return;
    const done = await generateReport(this.entities, this.search, row.entity_identifier, row.identifier_type, this.now());
    if (this.store.complete(reportId, done.json, done.pdf, done.report.generated_at)) {
      this.log?.info({ report: reportId, documents: done.report.documents.covered, pdfBytes: done.pdf.length }, 'report completed');
    }
  }
}
