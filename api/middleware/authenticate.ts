// Authentication and the daily quota, run before routing (restify `pre`) so that every /v1 request
// except GET /v1/models is authenticated and counted, unknown routes and 405s included.
import type { Request, Response } from 'restify';
import { isoSeconds, nextUtcMidnight, utcDay, type Clock } from '../../lib/clock.js';
import { QuotaExceededError, UnauthorizedError } from '../../lib/errors.js';
import type { KeyStore, Principal } from '../db/keys.js';
import type { UsageCounter } from '../db/usage.js';
import { DAILY_QUOTA } from '../tiers.js';

declare module 'restify' {
  interface Request {
    principal?: Principal;
  }
}

const PUBLIC_PATHS = new Set(['/v1/models', '/v1/models/']);

export function principalOf(req: Request): Principal {
  if (!req.principal) throw new Error('principalOf called on an unauthenticated route');
  return req.principal;
}

/** Async, like every handler here: a throw becomes a rejection that restify turns into our 500. */
export function authenticate(keys: KeyStore, usage: UsageCounter, clock: Clock) {
  return async function authenticateRequest(req: Request, res: Response): Promise<void> {
    const path = req.getPath();
    if (!path.startsWith('/v1/') || PUBLIC_PATHS.has(path)) return;

    const header = req.headers.authorization;
    if (!header) throw new UnauthorizedError('Missing API key');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const principal = match ? keys.authenticate(match[1]) : null;
    if (!principal) throw new UnauthorizedError('Invalid API key');
    req.principal = principal;

    const now = clock();
    const quota = DAILY_QUOTA[principal.tier];
    const reset = nextUtcMidnight(now);
    const { allowed, used } = usage.consume(principal.keyId, utcDay(now), quota);
    res.setHeader('X-RateLimit-Limit', quota);
    res.setHeader('X-RateLimit-Remaining', Math.max(0, quota - used));
    res.setHeader('X-RateLimit-Reset', Math.floor(reset.getTime() / 1000));
    res.setHeader('X-Tier', principal.tier);
    if (!allowed) {
      const retryAfter = Math.max(1, Math.ceil((reset.getTime() - now.getTime()) / 1000));
      res.setHeader('Retry-After', retryAfter);
      throw new QuotaExceededError(`Daily quota exceeded. Resets at ${isoSeconds(reset)}`, retryAfter);
    }
  };
}
