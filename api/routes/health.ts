// GET /healthz: whether the search engine answers, for a container health check or a load balancer.
// No key, no quota (outside /v1). One get by id is the cheapest read both engines have.
import type { RequestHandler, Server } from 'restify';
import { EngineUnavailableError } from '../../lib/errors.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import type { AppContext } from '../context.js';
import { replyJson } from '../middleware/reply.js';

/** How long the engine has to answer before the service counts as unhealthy. */
export const HEALTH_DEADLINE_MS = 2_000;

/** Resolves when the engine answered a read within the deadline; rejects with an EngineUnavailableError otherwise. */
async function probe(search: SearchProvider, deadlineMs: number): Promise<void> {
  const deadline = AbortSignal.timeout(deadlineMs);
  // The race also ends a read the engine started but does not abort.
  const expired = new Promise<never>((_resolve, reject) => {
    deadline.addEventListener('abort', () => reject(deadline.reason), { once: true });
  });
  try {
    await Promise.race([search.get('pdi-health-probe', { signal: deadline }), expired]);
  } catch (err) {
    // Clients see the message; the operator's log also gets why (addresses, engine errors).
    const why = err instanceof EngineUnavailableError ? err.full : err instanceof Error ? err.message : String(err);
    throw new EngineUnavailableError(
      deadline.aborted ? `The search engine (${search.engine}) did not answer within ${deadlineMs} ms` : `The search engine (${search.engine}) does not answer`,
      why,
    );
  }
}

export function registerHealth(server: Server, ctx: AppContext): void {
  const send: RequestHandler = async (_req, res) => {
    await probe(ctx.search, HEALTH_DEADLINE_MS);
    replyJson(res, { status: 'ok', engine: ctx.search.engine });
  };
  server.get('/healthz', send);
  server.head('/healthz', send);
}
