// API keys and their organizations. A key is `pdi_live_` + 32 base62 characters, shown once at
// creation; only its SHA-256 digest is stored.
import { createHash, timingSafeEqual } from 'node:crypto';
import { base62 } from '../../lib/random.js';
import { TERMINAL_CONTROL } from '../../lib/terminal.js';
import { fold } from '../../lib/greek.js';
import type { Db } from './database.js';

export const TIERS = ['free', 'pro', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

export const KEY_PATTERN = /^pdi_live_[A-Za-z0-9]{32}$/;

export interface Principal {
  keyId: string;
  orgId: string;
  org: string;
  tier: Tier;
}

export interface KeyRecord {
  id: string;
  org: string;
  tier: Tier;
  created_at: string;
  revoked_at: string | null;
}

/** How stale the key cache may be, at most, after another process changed the keys (ms). */
const RECHECK_MS = 1;
/** Credentials memoized at most (well-formed keys, found or not). */
const MAX_CACHED = 100_000;
/** `Bearer ` + a key, with a little room for spacing: longer credentials are never memoized. */
const MAX_CACHED_LENGTH = 64;

function digestOf(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export class KeyStore {
  private readonly byDigest;
  private readonly dataVersion;
  /** Principals of keys seen since the database last changed; never persisted. */
  private readonly cache = new Map<string, Principal | null>();
  private seenVersion = -1;
  private checkedAt = -Infinity;

  constructor(private readonly db: Db) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.byDigest = db.prepare(
      `SELECT k.id AS keyId, k.org_id AS orgId, o.name AS org, k.tier AS tier, k.digest AS digest
         FROM api_keys k JOIN organizations o ON o.id = k.org_id
        WHERE k.digest = ? AND k.revoked_at IS NULL`,
    );
  }

  /** Creates the key (and its organization when new). The returned `key` is never retrievable again. */
  create(name: string, tier: Tier, now = new Date()): KeyRecord & { key: string } {
    const org = canonicalOrgName(name);
    const key = `pdi_live_${base62(32)}`;
    const id = `key_${base62(16)}`;
    const created_at = now.toISOString();
    this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT(name) DO NOTHING')
        .run(`org_${base62(16)}`, org, created_at);
      const { id: orgId } = this.db.prepare('SELECT id FROM organizations WHERE name = ?').get(org) as { id: string };
      this.db.prepare('INSERT INTO api_keys (id, org_id, tier, digest, created_at) VALUES (?, ?, ?, ?, ?)').run(id, orgId, tier, digestOf(key), created_at);
    })();
    return { id, key, org, tier, created_at, revoked_at: null };
  }

  list(): KeyRecord[] {
    return this.db
      .prepare(
        `SELECT k.id, o.name AS org, k.tier, k.created_at, k.revoked_at
         FROM api_keys k JOIN organizations o ON o.id = k.org_id ORDER BY k.created_at, k.id`,
      )
      .all() as KeyRecord[];
  }

  /** Revokes at once; returns false when no key has that id. Revoking twice keeps the first time. */
  revoke(id: string, now = new Date()): boolean {
    const found = this.db.prepare('SELECT 1 FROM api_keys WHERE id = ?').get(id);
    if (!found) return false;
    this.db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(now.toISOString(), id);
    this.cache.clear();
    return true;
  }

  /**
   * The active key's principal, or null. Answers from memory while the database is unchanged:
   * `PRAGMA data_version` moves whenever another connection (the CLI) commits, and then the cache is
   * dropped. It is read at most once per RECHECK_MS (read per request it cost ~1.6 µs, more than the
   * rest of admission), so a revocation committed by another process refuses every request that
   * arrives 1 ms or more after the commit. Writes through this store clear the cache at once.
   * `cacheKey` is the string the answer is memoized under: the caller's whole credential (the
   * Authorization header) hashes far faster than the key sliced out of it, which V8 keeps as a
   * slice and hashes character by character.
   */
  authenticate(key: string, cacheKey = key): Principal | null {
    const now = performance.now();
    if (now - this.checkedAt >= RECHECK_MS) {
      this.checkedAt = now;
      const version = this.dataVersion.get() as number;
      if (version !== this.seenVersion) {
        this.cache.clear();
        this.seenVersion = version;
      }
    }
    let principal = this.cache.get(cacheKey);
    if (principal === undefined) {
      // Text that is no key is refused at no cost and never memoized; nor is a key padded into a long
      // header. So the cache is bounded in bytes as well as entries: headers of random text, kilobytes
      // each, grew it to ~1.5 GB before. Well-formed unknown keys are memoized, a SELECT each saved.
      if (!KEY_PATTERN.test(key)) return null;
      principal = this.lookup(key);
      if (cacheKey.length <= MAX_CACHED_LENGTH) {
        if (this.cache.size >= MAX_CACHED) this.cache.clear();
        this.cache.set(cacheKey, principal);
      }
    }
    return principal;
  }

  /** Credentials memoized now (for tests). */
  get cachedCredentials(): number {
    return this.cache.size;
  }

  private lookup(key: string): Principal | null {
    const digest = digestOf(key);
    const row = this.byDigest.get(digest) as (Principal & { digest: string }) | undefined;
    if (!row || !timingSafeEqual(Buffer.from(row.digest, 'hex'), Buffer.from(digest, 'hex'))) return null;
    return { keyId: row.keyId, orgId: row.orgId, org: row.org, tier: row.tier };
  }
}

export const MAX_ORG_NAME = 200;

/**
 * Characters that show nothing, or reorder what is shown: format characters (zero-width space and
 * joiners, bidirectional marks and overrides, the byte order mark, soft hyphen), the combining
 * grapheme joiner, variation selectors, Hangul fillers, unassigned and private-use code points and
 * lone surrogates. `Acme` and `Ac\u200bme` would print alike in `pdi keys list` and on the
 * dashboard, yet name two organizations.
 */
export const INVISIBLE = /[\p{Cf}\p{Cn}\p{Co}\p{Cs}\u034F\u115F\u1160\u17B4\u17B5\u3164\uFFA0\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u;

/**
 * Why a name cannot name an organization, or null. Names are printed to operators' terminals (pdi
 * keys list): a newline forged a second key line, and escape sequences drove the terminal.
 */
export function orgNameProblem(name: string): string | null {
  if (name.trim() === '') return 'is empty';
  if ([...name].length > MAX_ORG_NAME) return `is longer than ${MAX_ORG_NAME} characters`;
  const invisible = INVISIBLE.exec(name);
  if (invisible) return `holds an invisible character (U+${invisible[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`;
  if (TERMINAL_CONTROL.test(name)) return 'holds a control character';
  return null;
}

/**
 * The one form an organization name is stored and compared in: trimmed and NFC, so `Δήμος` typed
 * with a combining accent (NFD, as macOS file names and some keyboards give it) is the same
 * organization as with the precomposed one. Throws a RangeError saying what is wrong with the name.
 * Every way a name enters (pdi keys create, pdi report --org, the dashboard) goes through here.
 */
export function canonicalOrgName(name: string): string {
  const problem = orgNameProblem(name);
  if (problem) throw new RangeError(`organization name ${problem}`);
  return name.trim().normalize('NFC');
}

/**
 * The existing names `name` is likely a misspelling of, closest first: equal up to case and accents,
 * one containing the other, or at most two edits apart (after folding).
 */
export function closeOrgNames(name: string, names: readonly string[]): string[] {
  const want = fold(name);
  const scored = names.map((n) => {
    const have = fold(n);
    const d = have === want ? 0 : have.includes(want) || want.includes(have) ? 1 : 1 + editDistance(have, want, 2);
    return { n, d };
  });
  return scored
    .filter((x) => x.d <= 3)
    .sort((a, b) => a.d - b.d || a.n.localeCompare(b.n))
    .slice(0, 5)
    .map((x) => x.n);
}

/** Levenshtein distance, or `cap + 1` once it is sure to exceed `cap`. */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    if (Math.min(...row) > cap) return cap + 1;
    prev = row;
  }
  return Math.min(prev[b.length]!, cap + 1);
}
