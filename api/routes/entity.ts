// GET /v1/entity/{identifier}?type=afm|name|ada (Enterprise): resolution across every source, read
// from the entity index built at ingest (lib/entities.ts) on reader threads (lib/entity-readers.ts),
// whichever engine serves search, with a search's read options (abort, the key's turn, the deadline).
import { ValidationError } from '../../lib/errors.js';
import { parseEntityQuery } from '../../lib/entities.js';
import type { AppContext } from '../context.js';
import { readOptionsFor } from '../middleware/client-gone.js';
import { replyJson } from '../middleware/reply.js';
import { intParam, offsetParam, stringParam } from '../middleware/validate.js';
import type { ContractRoutes } from './contract-routes.js';

export function registerEntity(routes: ContractRoutes, ctx: AppContext): void {
  routes.add('get', '/v1/entity/:identifier', async (req, res) => {
    const identifier = String((req.params as Record<string, string>).identifier ?? '');
    if (identifier.trim() === '') throw new ValidationError('identifier must not be empty');
    const query = parseEntityQuery(identifier, stringParam(req, 'type') ?? 'afm');
    const limit = intParam(req, 'limit', 20, 1, 100);
    const offset = offsetParam(req);
    replyJson(res, await ctx.entityReaders.resolve(query, { limit, offset }, readOptionsFor(res)));
  });
}
