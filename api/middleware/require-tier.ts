// The tier gate of one route: a key below the route's tier gets 403.
import type { Request, Response } from 'restify';
import { ForbiddenError } from '../../lib/errors.js';
import type { Tier } from '../db/keys.js';
import { tierAllows, withArticle } from '../tiers.js';
import { principalOf } from './authenticate.js';

export function requireTier(tier: Tier) {
  return async function tierGate(req: Request, _res: Response): Promise<void> {
    if (!tierAllows(principalOf(req).tier, tier)) {
      throw new ForbiddenError(`This feature requires ${withArticle(tier)} subscription`);
    }
  };
}
