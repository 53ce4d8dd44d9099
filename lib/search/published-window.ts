// The published_at window of a search (TextQuery since/until), in the listings' date form (YYYY-MM-DD,
// read as `since` of GET /v1/{source}/documents reads it), as each engine's filter takes it.
import { isCalendarDay } from '../clock.js';
import { BadRequestError } from '../errors.js';

/** Documents with published_at after `afterMs` and before `beforeMs` (epoch ms; null: unbounded). */
export interface PublishedWindow {
  afterMs: number | null;
  beforeMs: number | null;
}

const DAY_MS = 86_400_000;

function dayMs(name: string, day: string): number {
  if (!isCalendarDay(day)) throw new BadRequestError(`${name} must be a date YYYY-MM-DD, got "${day}"`);
  return Date.parse(`${day}T00:00:00Z`);
}

/**
 * `since`: published after that day at 00:00:00Z (as the listings' `since`); `until`: published on that
 * day or before (before the next day at 00:00:00Z). Null when neither is given.
 */
export function publishedWindow(since: string | undefined, until: string | undefined): PublishedWindow | null {
  if (since === undefined && until === undefined) return null;
  return {
    afterMs: since === undefined ? null : dayMs('since', since),
    beforeMs: until === undefined ? null : dayMs('until', until) + DAY_MS,
  };
}
