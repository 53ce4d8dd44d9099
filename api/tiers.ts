// What each tier may do and how much (contract section 5 and 8). The tiers are cumulative.
import type { Tier } from './db/keys.js';

export const DAILY_QUOTA: Record<Tier, number> = { free: 5, pro: 100, enterprise: 1000 };

const RANK: Record<Tier, number> = { free: 0, pro: 1, enterprise: 2 };
const LABEL: Record<Tier, string> = { free: 'Free', pro: 'Pro', enterprise: 'Enterprise' };

export function tierAllows(have: Tier, need: Tier): boolean {
  return RANK[have] >= RANK[need];
}

/** "a Pro", "an Enterprise". */
export function withArticle(tier: Tier): string {
  return `${tier === 'enterprise' ? 'an' : 'a'} ${LABEL[tier]}`;
}
