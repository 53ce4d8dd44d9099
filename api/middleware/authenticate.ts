// Authentication and the daily quota, run before routing (restify `pre`) so that every /v1 request
// except GET /v1/models is authenticated and counted, unknown routes and 405s included.
import type { Next, Request, Response } from 'restify';
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

/** The UTC day of `now` and its end, recomputed only when the day changes (this runs per request). */
function dayClock(clock: Clock) {
  let day = '';
  let startMs = 0;
  let endMs = 0;
  return (): { now: Date; day: string; resetMs: number } => {
    const now = clock();
    const ms = now.getTime();
    if (ms < startMs || ms >= endMs) {
      day = utcDay(now);
      startMs = Date.parse(`${day}T00:00:00Z`);
      endMs = nextUtcMidnight(now).getTime();
    }
    return { now, day, resetMs: endMs };
  };
}

/**
 * A callback handler rather than an async one: this runs on every request and an async step costs a
 * promise and a tick in restify's chain. It catches its own errors, so nothing can throw past it.
 */
export function authenticate(keys: KeyStore, usage: UsageCounter, clock: Clock) {
  const today = dayClock(clock);
  return function authenticateRequest(req: Request, res: Response, next: Next): void {
    try {
      const path = req.getPath();
      if (!path.startsWith('/v1/') || PUBLIC_PATHS.has(path)) return next();

      const header = req.headers.authorization;
      if (!header) return next(new UnauthorizedError('Missing API key'));
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      const principal = match ? keys.authenticate(match[1]) : null;
      if (!principal) return next(new UnauthorizedError('Invalid API key'));
      req.principal = principal;

      const { now, day, resetMs } = today();
      const quota = DAILY_QUOTA[principal.tier];
      const { allowed, used } = usage.consume(principal.keyId, day, quota);
      res.setHeader('X-RateLimit-Limit', quota);
      res.setHeader('X-RateLimit-Remaining', Math.max(0, quota - used));
      res.setHeader('X-RateLimit-Reset', Math.floor(resetMs / 1000));
      res.setHeader('X-Tier', principal.tier);
      if (!allowed) {
        const retryAfter = Math.max(1, Math.ceil((resetMs - now.getTime()) / 1000));
        res.setHeader('Retry-After', retryAfter);
        return next(new QuotaExceededError(`Daily quota exceeded. Resets at ${isoSeconds(new Date(resetMs))}`, retryAfter));
      }
      return next();
    } catch (err) {
      return next(err as Error);
    }
  };
}
