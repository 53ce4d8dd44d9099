// The tier gate of one route: a key below the route's tier gets 403.
import type { RequestHandler } from 'restify';
import { ForbiddenError } from '../../lib/errors.js';
import type { Tier } from '../db/keys.js';
import { tierAllows, tierLabel } from '../tiers.js';
import { principalOf } from './authenticate.js';

export function requireTier(tier: Tier): RequestHandler {
  return function tierGate(req, _res, next) {
    if (!tierAllows(principalOf(req).tier, tier)) {
      return next(new ForbiddenError(`This feature requires a ${tierLabel(tier)} subscription`));
    }
    return next();
  };
}
