// Report creation and generation: a report row and its job are written in one transaction; the job
// gathers the entity's documents, builds report_json and the PDF, and stores both once.
import { randomUUID } from 'node:crypto';
import { EngineUnavailableError } from '../../lib/errors.js';
import type { EntityReads } from '../../lib/entity-readers.js';
import type { JobQueue } from '../../lib/job-queue.js';
import type { Logger } from '../../lib/logger.js';
import type { ReadOptions, SearchProvider } from '../../lib/search/provider.js';
import type { IdentifierType } from '../../lib/identifiers.js';
import { ReportRenderer, type Rendered } from '../../lib/reports/render.js';
import type { ReportRow, ReportStore } from './store.js';
import { entityDocuments } from './documents.js';

export const REPORT_JOB = 'report';

interface ReportJobPayload {
  report_id: string;
}

export type GeneratedReport = Rendered;

/**
 * The report of an entity as of `now`: no storage, used by the job and by `pdi report create`. Its
 * reads take `read`'s turn; report_json and the PDF are made on a thread of their own (render.ts).
 */
export async function generateReport(
  entities: EntityReads,
  search: SearchProvider,
  identifier: string,
  type: IdentifierType,
  now: Date,
  read: ReadOptions = {},
): Promise<GeneratedReport> {
  const renderer = new ReportRenderer();
  const stop = () => void renderer.abort();
  read.signal?.addEventListener('abort', stop, { once: true });
  try {
    const found = await entityDocuments(entities, search, identifier, type, read, (docs) => renderer.add(docs));
    return await renderer.finish({ entity: found.entity, totals: found.totals, truncated: found.truncated, now: now.toISOString() });
  } finally {
    read.signal?.removeEventListener('abort', stop);
    await renderer.abort();
  }
}

/** The user's words for why a report failed; the log has the rest. */
export function reportFailureMessage(err: unknown): string {
  if (err instanceof EngineUnavailableError)
    return 'The search engine was unavailable while the report was generated; create the report again in a few minutes';
  return 'The report could not be generated because of an internal error; create it again, and contact support if it fails again';
}

export class ReportService {
  constructor(
    private readonly store: ReportStore,
    private readonly queue: JobQueue,
    private readonly entities: EntityReads,
    private readonly search: SearchProvider,
    private readonly now: () => Date = () => new Date(),
    private readonly log?: Logger,
  ) {
    queue.register<ReportJobPayload>(REPORT_JOB, {
      run: (payload, job) => this.run(payload.report_id, job.signal),
      // Organizations take turns: one's queued reports never make another's wait behind all of them.
      turnOf: (payload) => store.byId(payload.report_id)?.org_id ?? '',
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
      created_at: this.now()
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z'),
    };
    const jobId = this.queue.enqueue<ReportJobPayload>(REPORT_JOB, { report_id: row.id }, () => this.store.insert(row));
    return { report: this.store.byId(row.id)!, jobId };
  }

  private async run(reportId: string, signal: AbortSignal): Promise<void> {
    const row = this.store.byId(reportId);
    // Already written by an earlier run, or failed: nothing to do (the worker is idempotent).
    if (!row || row.status !== 'pending') return;
    // Its reads queue as the organization's reports, in the background (behind no client's request).
    const read = { signal, tenant: `report:${row.org_id}`, background: true };
    const done = await generateReport(this.entities, this.search, row.entity_identifier, row.identifier_type, this.now(), read);
    if (this.store.complete(reportId, done.json, done.pdf, done.generatedAt)) {
      this.log?.info({ report: reportId, documents: done.covered, pdfBytes: done.pdf.length }, 'report completed');
    }
  }
}
