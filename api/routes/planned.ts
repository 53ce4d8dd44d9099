// Routes of the contract not built yet: their tier gate and quota already apply; they answer 501.
import type { RequestHandler, Server } from 'restify';
import { NotImplementedError } from '../../lib/errors.js';
import type { Tier } from '../db/keys.js';
import { jsonBody } from '../middleware/json-body.js';
import { requireTier } from '../middleware/require-tier.js';

type Method = 'get' | 'post' | 'put' | 'del';

export const PLANNED: [Method, string, Tier][] = [
  ['get', '/v1/search', 'pro'],
  ['get', '/v1/:source/documents', 'free'],
  ['get', '/v1/documents/:source_id/content', 'enterprise'],
  ['get', '/v1/stats', 'free'],
  ['post', '/v1/ask', 'enterprise'],
  ['get', '/v1/entity/:identifier', 'enterprise'],
  ['get', '/v1/similar/:source_id', 'enterprise'],
  ['post', '/v1/reports', 'pro'],
  ['get', '/v1/reports', 'pro'],
  ['get', '/v1/reports/:id', 'pro'],
  ['get', '/v1/reports/:id/pdf', 'pro'],
  ['post', '/v1/alerts/profiles', 'pro'],
  ['get', '/v1/alerts/profiles', 'pro'],
  ['put', '/v1/alerts/profiles/:id', 'pro'],
  ['del', '/v1/alerts/profiles/:id', 'pro'],
  ['get', '/v1/alerts/deliveries', 'pro'],
  ['post', '/v1/monitor/entities', 'enterprise'],
  ['get', '/v1/monitor/entities', 'enterprise'],
  ['del', '/v1/monitor/entities/:id', 'enterprise'],
  ['get', '/v1/monitor/events', 'enterprise'],
  ['post', '/v1/monitor/events/:id/acknowledge', 'enterprise'],
  ['get', '/v1/monitor/entities/:id/report', 'enterprise'],
];

/** Registers every planned route whose path+method is not in `built`. */
export function registerPlanned(server: Server, built: Set<string>): void {
  for (const [method, path, tier] of PLANNED) {
    if (built.has(`${method} ${path}`)) continue;
    const body: RequestHandler[] = (method === 'post' || method === 'put') && !path.endsWith('/acknowledge') ? jsonBody : [];
    server[method](path, requireTier(tier), body, async (req, _res) => {
      throw new NotImplementedError(`${req.method} ${path} is not available yet`);
    });
  }
}
