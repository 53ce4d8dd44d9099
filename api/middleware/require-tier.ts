// The tier gate of one route: a key below the route's tier gets 403. A callback handler that catches
// its own errors (see authenticate.ts for why not async).
import type { Next, Request, Response } from 'restify';
import { ForbiddenError } from '../../lib/errors.js';
import type { Tier } from '../db/keys.js';
import { tierAllows, withArticle } from '../tiers.js';
import { principalOf } from './authenticate.js';

export function requireTier(tier: Tier) {
  const forbidden = `This feature requires ${withArticle(tier)} subscription`;
  return function tierGate(req: Request, _res: Response, next: Next): void {
    try {
      if (!tierAllows(principalOf(req).tier, tier)) return next(new ForbiddenError(forbidden));
      return next();
    } catch (err) {
      return next(err as Error);
    }
  };
}
