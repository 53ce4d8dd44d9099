// GET /v1/sources: the eight canonical sources; `status` is `active` when the source's last ingest
// run succeeded, `unavailable` when it failed or the source was never ingested.
import type { ContractRoutes } from './contract-routes.js';
import { SOURCE_NAMES } from '../../index-mappings/sources.js';
import { SOURCES } from '../../lib/sources.js';
import type { AppContext } from '../context.js';
import { replyJson } from '../middleware/reply.js';

/** The Source objects of contract 2.1 (GET /v1/sources, MCP list_sources). */
export function sourceList(ctx: AppContext) {
  const runs = ctx.sourceRuns.lastRuns();
  return SOURCE_NAMES.map((name) => {
    const { label, description, country } = SOURCES[name];
    return { name, label, status: runs.get(name)?.status === 'succeeded' ? 'active' : 'unavailable', description, country };
  });
}

export function registerSources(routes: ContractRoutes, ctx: AppContext): void {
  routes.add('get', '/v1/sources', async (_req, res) => {
    replyJson(res, sourceList(ctx));
  });
}
