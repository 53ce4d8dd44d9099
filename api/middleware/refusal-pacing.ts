// A key refused again (429: too many in flight, or its quota spent) within a second of its last refusal
// gets its answer after a pause. A client that retries at once, without reading Retry-After, would
// otherwise make the API parse and answer thousands of refusals a second, and every other key's requests
// wait their turn on the same event loop behind them (docs/benchmarks.md "Reports and tenant fairness"). A
// client that waits as Retry-After says is answered at once.
import type { Principal } from '../db/keys.js';
import { RefusalError } from '../../lib/errors.js';

const PAUSE_MS = 500;
const WINDOW_MS = 1_000;
/** Past this many keys remembered, the ones refused longer than a window ago are forgotten. */
const PRUNE_AT = 10_000;

export class RefusalPacer {
  private readonly lastRefused = new Map<string, number>();

  /** Sets how long to hold `refusal` of `principal`'s request before answering it. */
  pace(principal: Principal, refusal: RefusalError, now = Date.now()): void {
    const last = this.lastRefused.get(principal.keyId);
    this.lastRefused.set(principal.keyId, now);
    if (this.lastRefused.size > PRUNE_AT) {
      for (const [key, at] of this.lastRefused) if (now - at >= WINDOW_MS) this.lastRefused.delete(key);
    }
    refusal.answerAfterMs = last !== undefined && now - last < WINDOW_MS ? PAUSE_MS : 0;
  }
}

/** Calls `answer` now, or after the pause a paced refusal asks for. */
export function afterPause(err: unknown, answer: () => void): void {
  const pause = err instanceof RefusalError ? err.answerAfterMs : 0;
  if (pause > 0) setTimeout(answer, pause);
  else answer();
}
