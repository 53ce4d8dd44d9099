// GET /v1/usage: the caller's quota for today (this request included).
import type { ContractRoutes } from './contract-routes.js';
import { isoSeconds, nextUtcMidnight, utcDay } from '../../lib/clock.js';
import type { AppContext } from '../context.js';
import { replyJson } from '../middleware/reply.js';
import { principalOf } from '../middleware/admission.js';
import { DAILY_QUOTA } from '../tiers.js';

export function registerUsage(routes: ContractRoutes, ctx: AppContext): void {
  routes.add('get', '/v1/usage', async (req, res) => {
    const { keyId, tier } = principalOf(req);
    const now = ctx.clock();
    const quota = DAILY_QUOTA[tier];
    const used = ctx.usage.used(keyId, utcDay(now));
    replyJson(res, {
      tier,
      daily_quota: quota,
      daily_used: used,
      daily_remaining: Math.max(0, quota - used),
      reset_at: isoSeconds(nextUtcMidnight(now)),
    });
  });
}
