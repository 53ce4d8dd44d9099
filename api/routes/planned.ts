// The contract's routes with their tiers: the one place a route's tier is declared. Built routes
// register through contractRoute (which adds the tier gate and, for bodies, the JSON parser); the rest
// answer 501 after authentication, quota and their tier gate.
import type { Request, RequestHandler, Response, Server } from 'restify';
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

function handlersOf(method: Method, path: string, tier: Tier): RequestHandler[] {
  const body: RequestHandler[] = (method === 'post' || method === 'put') && !path.endsWith('/acknowledge') ? jsonBody : [];
  return [requireTier(tier), ...body];
}

/** Registers a built route of the contract with its tier from PLANNED, and records it in `built`. */
export function contractRoute(server: Server, built: Set<string>, method: Method, path: string, handler: (req: Request, res: Response) => Promise<void>): void {
  const entry = PLANNED.find(([m, p]) => m === method && p === path);
  if (!entry) throw new Error(`${method} ${path} is not a route of the contract`);
  server[method](path, ...handlersOf(method, path, entry[2]), handler);
  built.add(`${method} ${path}`);
}

/** Registers every contract route not in `built`, answering 501. */
export function registerPlanned(server: Server, built: Set<string>): void {
  for (const [method, path, tier] of PLANNED) {
    if (built.has(`${method} ${path}`)) continue;
    server[method](path, ...handlersOf(method, path, tier), async (req, _res) => {
      throw new NotImplementedError(`${req.method} ${path} is not available yet`);
    });
  }
}
