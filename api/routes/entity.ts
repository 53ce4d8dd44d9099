// GET /v1/entity/{identifier}?type=afm|name|ada (Enterprise): resolution across every source, read
// from the entity index built at ingest (lib/entities.ts) on reader threads (lib/entity-readers.ts),
// whichever engine serves search, with a search's read options (abort, the key's turn, the deadline).
import { ValidationError } from '../../lib/errors.js';
import { parseEntityQuery } from '../../lib/entities.js';
import { normalizeAda, normalizeAfm } from '../../lib/identifiers.js';
import type { AppContext } from '../context.js';
import { readOptionsFor } from '../middleware/client-gone.js';
import { replyJson } from '../middleware/reply.js';
import { intParam, offsetParam, stringParam } from '../middleware/validate.js';
import type { ContractRoutes } from './contract-routes.js';

/**
 * The 422 of an identifier that is no ΑΦΜ while `type` was left to its default (afm): a name or an ΑΔΑ
 * sent without its type is the common slip, so the detail says which type to add.
 */
function defaultTypeProblem(identifier: string): string {
  const problem = 'identifier must be an AFM of 9 digits when type is afm (the default)';
  if (normalizeAda(identifier) !== null) return `${problem}: for a decision id (ΑΔΑ) add type=ada`;
  return /\p{L}/u.test(identifier) ? `${problem}: for a name add type=name` : problem;
}

export function registerEntity(routes: ContractRoutes, ctx: AppContext): void {
  routes.add('get', '/v1/entity/:identifier', async (req, res) => {
    const identifier = String((req.params as Record<string, string>).identifier ?? '');
    if (identifier.trim() === '') throw new ValidationError('identifier must not be empty');
    const type = stringParam(req, 'type');
    if (type === undefined && normalizeAfm(identifier) === null) throw new ValidationError(defaultTypeProblem(identifier));
    const query = parseEntityQuery(identifier, type ?? 'afm');
    const limit = intParam(req, 'limit', 20, 1, 100);
    const offset = offsetParam(req);
    replyJson(res, await ctx.entityReaders.resolve(query, { limit, offset }, readOptionsFor(res)));
  });
}
