// Due-diligence reports (Pro): create, list, detail and the PDF. Everything is scoped to
// the caller's organization; another organization's report is 404, as an unknown one.
import type { Request } from 'restify';
import { NotFoundError } from '../../lib/errors.js';
import type { AppContext } from '../context.js';
import { reportRequestOf } from './request.js';
import type { ReportRow } from './store.js';
import { principalOf } from '../middleware/admission.js';
import { reply, replyJson } from '../middleware/reply.js';
import { intParam, offsetParam } from '../middleware/validate.js';
import type { ContractRoutes } from '../routes/contract-routes.js';

function summaryOf(r: ReportRow) {
  return {
    id: r.id,
    status: r.status,
    entity_identifier: r.entity_identifier,
    identifier_type: r.identifier_type,
    created_at: r.created_at,
    completed_at: r.completed_at,
  };
}

function detailOf(r: ReportRow) {
  return { ...summaryOf(r), error_message: r.error_message, ...(r.status === 'completed' ? { report_json: r.report_json } : {}) };
}

function idParam(req: Request): string {
  return String((req.params as Record<string, string>).id ?? '');
}

export function registerReports(routes: ContractRoutes, ctx: AppContext): void {
  const store = ctx.reportStore;
  routes.add('post', '/v1/reports', async (req, res) => {
    const body = reportRequestOf(req.body);
    const { report } = ctx.reports.create(principalOf(req).orgId, body.entity_identifier, body.identifier_type);
    const { completed_at: _, ...created } = summaryOf(report);
    reply(res, 201, 'application/json', JSON.stringify(created));
  });

  routes.add('get', '/v1/reports', async (req, res) => {
    const limit = intParam(req, 'limit', 20, 1, 100);
    const offset = offsetParam(req);
    const { total, items } = store.list(principalOf(req).orgId, limit, offset);
    replyJson(res, { items: items.map(summaryOf), total, limit, offset });
  });

  routes.add('get', '/v1/reports/:id', async (req, res) => {
    const report = store.get(principalOf(req).orgId, idParam(req));
    if (!report) throw new NotFoundError(`Report not found: ${idParam(req)}`);
    replyJson(res, detailOf(report));
  });

  routes.add('get', '/v1/reports/:id/pdf', async (req, res) => {
    const id = idParam(req);
    const report = store.get(principalOf(req).orgId, id);
    if (!report) throw new NotFoundError(`Report not found: ${id}`);
    const pdf = store.pdf(principalOf(req).orgId, id);
    if (!pdf) throw new NotFoundError(`Report ${id} is ${report.status}; its PDF exists once it is completed`);
    res.setHeader('Content-Disposition', `attachment; filename="report-${id}.pdf"`);
    reply(res, 200, 'application/pdf', pdf);
  });
}
