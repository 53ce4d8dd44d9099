// The directory of Diavgeia's organisations (`GET /organizations.json`, ~2.1 MB, every body): a
// decision names its publisher only by `organizationId`, and most types carry no `org` of their own,
// so without it 6 of the 14 real fixture decisions had no publisher in their names, ΑΦΜ or content.
// Fetched at most once a week (organisations change rarely) and kept in ingest.db, so a replay
// (`--from`) or a run while the endpoint fails uses the last copy.
import { operatorMessage } from '../../../lib/errors.js';
import type { PrepareContext } from '../types.js';
import { parseJsonObject } from '../values.js';

export interface Organization {
  label: string;
  /** ΑΦΜ as Diavgeia lists it (validated where used). */
  vatNumber: string | null;
}

export type Organizations = ReadonlyMap<string, Organization>;

/** No directory (a replay before any live run, or one that could not be fetched). */
export const NO_ORGANIZATIONS: Organizations = new Map();

const REFERENCE = 'diavgeia:organizations';
const MAX_AGE_MS = 7 * 86_400_000;

/** `{"organizations":[{uid, label, vatNumber, …}]}` → uid → organisation; throws on another shape. */
export function parseOrganizations(body: string): Organizations {
  const doc = parseJsonObject<{ organizations?: unknown }>('diavgeia', body, 'an organizations body, a JSON object');
  if (!Array.isArray(doc.organizations)) throw new Error('diavgeia: organizations body has no "organizations" array');
  const out = new Map<string, Organization>();
  for (const o of doc.organizations as Record<string, unknown>[]) {
    if (!o || typeof o !== 'object' || (typeof o.uid !== 'string' && typeof o.uid !== 'number') || typeof o.label !== 'string') continue;
    out.set(String(o.uid), { label: o.label, vatNumber: typeof o.vatNumber === 'string' ? o.vatNumber : null });
  }
  return out;
}

/**
 * The directory for this run: fetched when the stored copy is missing or older than a week (never on
 * a replay), else the stored copy; empty when there is neither, with a warning. A failed fetch is no
 * failed run: the decisions are still ingested, named as before.
 */
export async function loadOrganizations(ctx: PrepareContext): Promise<Organizations> {
  const stored = ctx.stored(REFERENCE);
  const fresh = stored !== null && ctx.now.getTime() - Date.parse(stored.fetchedAt) < MAX_AGE_MS;
  if (ctx.http && !fresh) {
    const url = `${ctx.baseUrl.replace(/\/+$/, '')}/organizations.json`;
    try {
      // One retry: the directory is optional, and a run should not wait minutes of backoff for it.
      const res = await ctx.http.request(url, { headers: { Accept: 'application/json' }, retries: 1 });
      const organizations = parseOrganizations(res.body);
      ctx.store(REFERENCE, res.body);
      ctx.log.info({ organizations: organizations.size }, 'organisation directory fetched');
      return organizations;
    } catch (err) {
      if (ctx.signal?.aborted) throw err;
      ctx.log.warn(
        { source: 'diavgeia', url, error: operatorMessage(err), stored: stored?.fetchedAt ?? null },
        stored
          ? 'organisation directory not refreshed; using the stored one'
          : 'organisation directory unavailable: decisions without an org of their own get no publisher name',
      );
    }
  }
  return stored === null ? NO_ORGANIZATIONS : parseOrganizations(stored.body);
}
