// Admission: the API key, the requests in flight (in-flight.ts) and the daily quota, checked on every
// /v1 request except GET /v1/models.
// It runs inside each route's first step (see gate.ts) and, for requests that match no route (404,
// 405), in the error listener (errors.ts), so unknown routes are authenticated and counted too. It is
// not a restify `pre` handler: a chain step of its own cost more than the check itself.
import type { Request, Response } from 'restify';
import { isoSeconds, nextUtcMidnight, utcDay, type Clock } from '../../lib/clock.js';
import { QuotaExceededError, UnauthorizedError, type TooManyInFlightError } from '../../lib/errors.js';
import type { KeyStore, Principal } from '../db/keys.js';
import type { UsageCounter } from '../db/usage.js';
import { DAILY_QUOTA } from '../tiers.js';
import type { InFlight } from './in-flight.js';
import type { RefusalPacer } from './refusal-pacing.js';

declare module 'restify' {
  interface Request {
    principal?: Principal;
  }
}

/**
 * Sets req.principal and res.quotaHeaders, or throws 401/429 (a 429 with its quota headers and
 * Retry-After, paced: answer it through afterPause).
 */
export type Admit = (req: Request, res: Response) => void;

const PUBLIC_PATHS = new Set(['/v1/models', '/v1/models/']);

/** Whether a request to this path needs a key and counts against the quota. */
export function needsAdmission(path: string): boolean {
  return (path === '/v1' || path.startsWith('/v1/')) && !PUBLIC_PATHS.has(path);
}

export function principalOf(req: Request): Principal {
  if (!req.principal) throw new Error('principalOf called on an unauthenticated route');
  return req.principal;
}

/** The UTC day of `now` and its end, recomputed only when the day changes (this runs per request). */
function dayClock(clock: Clock) {
  let day = '';
  let startMs = 0;
  let endMs = 0;
  let resetHeader = '';
  return (): { now: Date; day: string; resetMs: number; resetHeader: string } => {
    const now = clock();
    const ms = now.getTime();
    if (ms < startMs || ms >= endMs) {
      day = utcDay(now);
      startMs = Date.parse(`${day}T00:00:00Z`);
      endMs = nextUtcMidnight(now).getTime();
      resetHeader = String(Math.floor(endMs / 1000));
    }
    return { now, day, resetMs: endMs, resetHeader };
  };
}

const LIMIT_HEADER = Object.fromEntries(Object.entries(DAILY_QUOTA).map(([tier, quota]) => [tier, String(quota)]));

const BEARER = 'Bearer ';

/** The key of an `Authorization: Bearer KEY` header (scheme case-insensitive, spaces around). */
function bearerKey(header: string): string | undefined {
  // The usual exact form without a regular expression: this runs on every request.
  if (header.startsWith(BEARER) && header.indexOf(' ', BEARER.length) === -1 && header.length > BEARER.length) {
    return header.slice(BEARER.length);
  }
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

/** How many Authorization headers the request carries (a length check first: this runs on every request). */
function authorizationHeaders(raw: string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === 13 && raw[i]!.toLowerCase() === 'authorization') n++;
  }
  return n;
}

/**
 * Written with the answer (reply.ts), or by the error listener for a refusal. Strings, not numbers:
 * Node would convert a number twice (to validate it, then to write it).
 */
export function quotaHeaders(principal: Principal, remaining: number, resetHeader: string): string[] {
  return [
    'X-RateLimit-Limit',
    LIMIT_HEADER[principal.tier]!,
    'X-RateLimit-Remaining',
    String(Math.max(0, remaining)),
    'X-RateLimit-Reset',
    resetHeader,
    'X-Tier',
    principal.tier,
  ];
}

/** Who a request's Authorization header names: a principal, or why not (the 401's detail). */
export function identify(keys: KeyStore, req: Request): Principal | 'Missing API key' | 'Invalid API key' {
  const header = req.headers.authorization;
  if (!header) return 'Missing API key';
  const key = bearerKey(header);
  // Node keeps the first of two Authorization headers; a proxy in front may check the last. Two
  // credentials are no credential.
  const principal = key === undefined || authorizationHeaders(req.rawHeaders) > 1 ? null : keys.authenticate(key, header);
  return principal ?? 'Invalid API key';
}

export interface QuotaUse {
  allowed: boolean;
  used: number;
  quota: number;
  now: Date;
  resetMs: number;
  /** X-RateLimit-Reset: unix seconds of resetMs. */
  resetHeader: string;
}

/** The quota headers of a key as it stands, counting nothing (an MCP answer with no tool call). */
export function quotaStanding(usage: UsageCounter, clock: Clock): (principal: Principal) => string[] {
  const today = dayClock(clock);
  return (principal) => {
    const { day, resetHeader } = today();
    return quotaHeaders(principal, DAILY_QUOTA[principal.tier] - usage.used(principal.keyId, day), resetHeader);
  };
}

/** Counts one use of a key's daily quota (a request, or an MCP tool call: the same counter). */
export function quotaCounter(usage: UsageCounter, clock: Clock): (principal: Principal) => QuotaUse {
  const today = dayClock(clock);
  return (principal) => {
    const { now, day, resetMs, resetHeader } = today();
    const quota = DAILY_QUOTA[principal.tier];
    const { allowed, used } = usage.consume(principal.keyId, day, quota);
    return { allowed, used, quota, now, resetMs, resetHeader };
  };
}

/** The 429 of a spent quota, saying when it resets. */
export function quotaExceeded(use: QuotaUse): QuotaExceededError {
  const retryAfter = Math.max(1, Math.ceil((use.resetMs - use.now.getTime()) / 1000));
  return new QuotaExceededError(`Daily quota exceeded. Resets at ${isoSeconds(new Date(use.resetMs))}`, retryAfter);
}

export function admission(keys: KeyStore, usage: UsageCounter, clock: Clock, inFlight: InFlight, pacer: RefusalPacer): Admit {
  const count = quotaCounter(usage, clock);
  const standing = quotaStanding(usage, clock);
  return function admit(req: Request, res: Response): void {
    const principal = identify(keys, req);
    // RFC 9110 11.6.1 and RFC 6750 3: a 401 names the scheme, and why a token given was refused.
    if (principal === 'Missing API key') {
      res.setHeader('WWW-Authenticate', 'Bearer');
      throw new UnauthorizedError(principal);
    }
    if (principal === 'Invalid API key') {
      res.setHeader('WWW-Authenticate', 'Bearer error="invalid_token"');
      throw new UnauthorizedError(principal);
    }
    req.principal = principal;

    let release: () => void;
    try {
      release = inFlight.enter(principal, res);
    } catch (err) {
      // Refused before it was counted: the quota headers say what is left, unchanged.
      res.quotaHeaders = standing(principal);
      pacer.pace(principal, err as TooManyInFlightError);
      throw err;
    }
    const use = count(principal);
    res.quotaHeaders = quotaHeaders(principal, use.quota - use.used, use.resetHeader);
    if (!use.allowed) {
      const err = quotaExceeded(use);
      release();
      res.setHeader('Retry-After', err.retryAfterSeconds);
      pacer.pace(principal, err);
      throw err;
    }
  };
}
