// GET /v1/sources: the eight canonical sources; `status` is `active` when the source's last ingest
// run succeeded, `unavailable` when it failed or the source was never ingested.
import type { Server } from 'restify';
import { SOURCE_NAMES, SOURCES } from '../../lib/sources.js';
import type { AppContext } from '../context.js';
import { requireTier } from '../middleware/require-tier.js';

export function registerSources(server: Server, ctx: AppContext): void {
  server.get('/v1/sources', requireTier('free'), async (_req, res) => {
    const runs = ctx.ingestState.lastRuns();
    res.send(SOURCE_NAMES.map((name) => {
      const { label, description, country } = SOURCES[name];
      return { name, label, status: runs.get(name)?.status === 'succeeded' ? 'active' : 'unavailable', description, country };
    }));
  });
}
