// The published_at window of a search (TextQuery since/until) and a listing's `since`, read from either
// form the API takes (lib/clock.ts timeBoundOf), as each engine's filter takes it.
import { timeBoundOf, timeBoundProblem } from '../clock.js';
import { BadRequestError } from '../errors.js';

/** Documents with published_at after `afterMs` and before `beforeMs` (epoch ms; null: unbounded). */
export interface PublishedWindow {
  afterMs: number | null;
  beforeMs: number | null;
}

const DAY_MS = 86_400_000;

function boundOf(name: string, v: string) {
  const bound = timeBoundOf(v);
  if (bound === null) throw new BadRequestError(`${timeBoundProblem(name)}, got "${v}"`);
  return bound;
}

/** `since`: published after it, a date meaning after that day began (00:00:00Z). */
export function sinceMs(since: string): number {
  return boundOf('since', since).ms;
}

/**
 * `until`, as the instant published_at must be before: a date includes that whole day (before the next
 * day's 00:00:00Z), a date-time includes the instant itself.
 */
export function untilEndMs(until: string): number {
  const bound = boundOf('until', until);
  return bound.ms + (bound.day ? DAY_MS : 1);
}

/** The window `since` and `until` give; null when neither is given. */
export function publishedWindow(since: string | undefined, until: string | undefined): PublishedWindow | null {
  if (since === undefined && until === undefined) return null;
  return {
    afterMs: since === undefined ? null : sinceMs(since),
    beforeMs: until === undefined ? null : untilEndMs(until),
  };
}
