// Requests in flight per API key and per organization, each capped: 150 concurrent searches of one
// key, well inside its daily quota, made another key's /v1/stats wait 6.4 s instead of 83 ms. A request
// counts from its admission until its response closes (answered, or the client gone); one past a cap
// is answered 429 at once and not counted against the daily quota.
import type { Response } from 'restify';
import { TooManyInFlightError } from '../../lib/errors.js';
import type { Principal } from '../db/keys.js';

/** Retry-After of a refusal: requests in flight end in well under a second, or at the engine deadline. */
const RETRY_AFTER_SECONDS = 1;

export class InFlight {
  private readonly byKey = new Map<string, number>();
  private readonly byOrg = new Map<string, number>();
  private readonly keyFull: string;
  private readonly orgFull: string;

  constructor(
    private readonly perKey: number,
    private readonly perOrg: number,
  ) {
    this.keyFull = `Too many requests in flight for this API key (at most ${perKey} at once); retry when one has been answered`;
    this.orgFull = `Too many requests in flight for this organization's API keys (at most ${perOrg} at once); retry when one has been answered`;
  }

  /**
   * Counts the request in until `res` closes or the returned release is called (a request refused
   * after it, whose answer may wait: refusal-pacing.ts), or throws a 429 (with its Retry-After header set).
   */
  enter(principal: Principal, res: Response): () => void {
    let release: () => void;
    try {
      release = this.take(principal);
    } catch (err) {
      res.setHeader('Retry-After', RETRY_AFTER_SECONDS);
      throw err;
    }
    res.once('close', release);
    return release;
  }

  /**
   * Counts one unit of work of `principal` in until the returned release is called (idempotent), or
   * throws a 429: a request (enter), or each call of an MCP batch after its first.
   */
  take(principal: Principal): () => void {
    const { keyId, orgId } = principal;
    const key = this.byKey.get(keyId) ?? 0;
    const org = this.byOrg.get(orgId) ?? 0;
    if (key >= this.perKey || org >= this.perOrg) {
      throw new TooManyInFlightError(key >= this.perKey ? this.keyFull : this.orgFull, RETRY_AFTER_SECONDS);
    }
    this.byKey.set(keyId, key + 1);
    this.byOrg.set(orgId, org + 1);
    let counted = true;
    return () => {
      if (!counted) return;
      counted = false;
      decrement(this.byKey, keyId);
      decrement(this.byOrg, orgId);
    };
  }

  /** Requests of `keyId` in flight now (for tests and the operator). */
  ofKey(keyId: string): number {
    return this.byKey.get(keyId) ?? 0;
  }
}

/** One less; the entry goes at zero, so the maps hold only keys with requests in flight. */
function decrement(counts: Map<string, number>, id: string): void {
  const n = (counts.get(id) ?? 1) - 1;
  if (n <= 0) counts.delete(id);
  else counts.set(id, n);
}
