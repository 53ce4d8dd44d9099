// Operator sessions of the dashboard, in memory: a restart signs the operator out, and nothing of a
// session (its id, its CSRF token, a key just created) is ever written to disk.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { Tier } from '../db/keys.js';

/** A session unused this long is over. */
export const SESSION_IDLE_MS = 30 * 60_000;
/** And any session this long after sign-in, used or not. */
export const SESSION_MAX_MS = 8 * 3_600_000;
/** Sessions held at most: past it the oldest is dropped (only the admin token opens one). */
const MAX_SESSIONS = 1_000;

/** A key just created: shown on the next page of its session, then forgotten. */
export interface NewKey {
  id: string;
  key: string;
  org: string;
  tier: Tier;
}

export interface Session {
  id: string;
  /** The synchronizer token every form of this session carries and every POST must send back. */
  csrf: string;
  startedMs: number;
  seenMs: number;
  newKey?: NewKey;
}

function token(): string {
  return randomBytes(32).toString('base64url');
}

/** Equal in constant time, over digests so that the lengths do not show either. */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export class Sessions {
  private readonly byId = new Map<string, Session>();

  constructor(private readonly clock: Clock) {}

  open(): Session {
    const now = this.clock().getTime();
    const session: Session = { id: token(), csrf: token(), startedMs: now, seenMs: now };
    if (this.byId.size >= MAX_SESSIONS) this.byId.delete(this.byId.keys().next().value!);
    this.byId.set(session.id, session);
    return session;
  }

  /** The live session of that id (its idle time restarts), or null: unknown, signed out or expired. */
  find(id: string | undefined): Session | null {
    if (id === undefined) return null;
    const session = this.byId.get(id);
    if (!session) return null;
    const now = this.clock().getTime();
    if (now - session.seenMs >= SESSION_IDLE_MS || now - session.startedMs >= SESSION_MAX_MS) {
      this.byId.delete(id);
      return null;
    }
    session.seenMs = now;
    return session;
  }

  close(id: string): void {
    this.byId.delete(id);
  }
}

/** The first refusal after a failed sign-in lasts this long, and doubles with each further failure... */
const FIRST_WAIT_MS = 1_000;
/** ...up to this. */
const LONGEST_WAIT_MS = 5 * 60_000;
/** Addresses remembered at most: past it the least recently failed is forgotten. */
const MAX_ADDRESSES = 10_000;

/**
 * Slows down guessing the admin token: after a failed sign-in, that client (its address, an IPv6 one
 * by its /64: lib/client-address.ts) may not try again for 1 s, then 2 s, 4 s… (at most 5 min) until a
 * sign-in succeeds. Behind a proxy not named in PDI_TRUST_PROXY every client shares the proxy's
 * address, so the wait is then shared too. An attempt is counted as it arrives, before its form is
 * read: one client has one attempt under way at a time, so many sent at once are not all judged before
 * the first failure starts the wait.
 */
export class SignInThrottle {
  private readonly failures = new Map<string, { count: number; untilMs: number }>();
  private readonly underWay = new Set<string>();

  constructor(private readonly clock: Clock) {}

  /**
   * Takes the address's turn: 0 when taken (then failed, succeeded or release ends it), else the
   * seconds to wait (at least 1 while another attempt of the address is under way).
   */
  reserve(address: string): number {
    const entry = this.failures.get(address);
    const left = entry ? entry.untilMs - this.clock().getTime() : 0;
    if (left > 0) return Math.ceil(left / 1000);
    if (this.underWay.has(address)) return 1;
    this.underWay.add(address);
    return 0;
  }

  /** Ends a turn that judged nothing (the form never arrived whole). */
  release(address: string): void {
    this.underWay.delete(address);
  }

  failed(address: string): void {
    this.underWay.delete(address);
    const count = (this.failures.get(address)?.count ?? 0) + 1;
    const wait = Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.min(count - 1, 20));
    this.failures.delete(address);
    if (this.failures.size >= MAX_ADDRESSES) this.failures.delete(this.failures.keys().next().value!);
    this.failures.set(address, { count, untilMs: this.clock().getTime() + wait });
  }

  succeeded(address: string): void {
    this.underWay.delete(address);
    this.failures.delete(address);
  }
}
