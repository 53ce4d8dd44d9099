// GET /v1/sources: the eight canonical sources. `status` is `active` once an ingest run of the source
// has succeeded (its documents are served), `unavailable` before that; `last_ingest` tells how the
// latest finished run ended, so a failed refresh shows beside the documents still served. A failure
// shows as its short reason only: the operator's message (hosts, paths, a service's own error text)
// stays in the logs and `pdi status`.
import type { ContractRoutes } from './contract-routes.js';
import { SOURCE_NAMES } from '../../index-mappings/sources.js';
import { SOURCES } from '../../lib/sources.js';
import type { AppContext } from '../context.js';
import { replyJson } from '../middleware/reply.js';

/** The Source objects of GET /v1/sources and the MCP list_sources tool. */
export function sourceList(ctx: AppContext) {
  const runs = ctx.sourceRuns.lastRuns();
  const served = ctx.sourceRuns.everSucceeded();
  return SOURCE_NAMES.map((name) => {
    const { label, description, country } = SOURCES[name];
    const run = runs.get(name);
    const lastIngest = run ? { status: run.status, finished_at: run.finished_at, ...(run.status === 'failed' ? { error: run.reason } : {}) } : null;
    return { name, label, status: served.has(name) ? 'active' : 'unavailable', description, country, last_ingest: lastIngest };
  });
}

export function registerSources(routes: ContractRoutes, ctx: AppContext): void {
  routes.add('get', '/v1/sources', async (_req, res) => {
    replyJson(res, sourceList(ctx));
  });
}
