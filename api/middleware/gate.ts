// The first step of every contract route: admission (key and quota), then the route's tier. Folded
// into one function around the route's own first step, because each restify chain step costs a tick,
// two timers and closures on every request.
import type { Next, Request, Response } from 'restify';
import { ForbiddenError, PayloadTooLargeError } from '../../lib/errors.js';
import type { Tier } from '../db/keys.js';
import { tierAllows, withArticle } from '../tiers.js';
import type { Admit } from './admission.js';
import { afterPause } from './refusal-pacing.js';
import { declaredTooLarge, TOO_LARGE } from './json-body.js';

export type Step = (req: Request, res: Response) => Promise<void>;

/**
 * A callback step rather than an async one, which would add a promise per request. It hands every
 * outcome to `next` and throws nothing: restify calls steps on a bare tick, where a throw would end
 * the process.
 */
export function gate(admit: Admit, tier: Tier, step: Step) {
  const forbidden = `This feature requires ${withArticle(tier)} subscription`;
  return function gated(req: Request, res: Response, next: Next): void {
    try {
      admit(req, res);
      if (!tierAllows(req.principal!.tier, tier)) return next(new ForbiddenError(forbidden));
      // Routes without a body too: Node would otherwise read (and drop) a body of any size.
      if (declaredTooLarge(req)) return next(new PayloadTooLargeError(TOO_LARGE));
    } catch (err) {
      return afterPause(err, () => next(err as Error));
    }
    step(req, res).then(
      () => next(),
      (err: unknown) => next(err instanceof Error ? err : new Error(String(err))),
    );
  };
}
