// The contract's routes with their tiers: the one place a route's tier is declared (GET /v1/models,
// public, is the one route outside it). Every route registers through ContractRoutes, which puts the
// gate (admission, then the tier) in front and, for bodies, the JSON parser.
import type { RequestHandler, Server } from 'restify';
import { NotImplementedError } from '../../lib/errors.js';
import type { Tier } from '../db/keys.js';
import type { Admit } from '../middleware/admission.js';
import { gate, type Step } from '../middleware/gate.js';
import { readJsonBody, checkBodyHeaders } from '../middleware/json-body.js';

export type Method = 'get' | 'post' | 'put' | 'del';

export const CONTRACT_ROUTES: [Method, string, Tier][] = [
  ['get', '/v1/sources', 'free'],
  ['get', '/v1/usage', 'free'],
  ['get', '/v1/search', 'pro'],
  ['get', '/v1/aggregate', 'pro'],
  ['get', '/v1/export', 'pro'],
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

/** The chain of a contract route: the gate wraps its first step; routes with a body parse JSON first. */
function chainOf(admit: Admit, method: Method, path: string, tier: Tier, handler: Step): RequestHandler[] {
  const takesBody = (method === 'post' || method === 'put') && !path.endsWith('/acknowledge');
  return takesBody ? [gate(admit, tier, checkBodyHeaders), readJsonBody, handler] : [gate(admit, tier, handler)];
}

/**
 * The one way routes of the contract are registered: each gets admission and its tier from
 * CONTRACT_ROUTES. `finish` registers the routes not built yet, answering 501 after their gate.
 */
export class ContractRoutes {
  private readonly built = new Set<string>();

  constructor(
    private readonly server: Server,
    private readonly admit: Admit,
  ) {}

  add(method: Method, path: string, handler: Step): void {
    const entry = CONTRACT_ROUTES.find(([m, p]) => m === method && p === path);
    if (!entry) throw new Error(`${method} ${path} is not a route of the contract`);
    this.register(method, path, chainOf(this.admit, method, path, entry[2], handler));
    this.built.add(`${method} ${path}`);
  }

  finish(): void {
    for (const [method, path, tier] of CONTRACT_ROUTES) {
      if (this.built.has(`${method} ${path}`)) continue;
      this.register(
        method,
        path,
        chainOf(this.admit, method, path, tier, async (req) => {
          // The path as the client sent it (without its query), not the route's `:param` template.
          throw new NotImplementedError(`${req.method} ${req.getPath()} is not available yet`);
        }),
      );
    }
  }

  /** A GET route answers HEAD too (RFC 9110 9.3.2): the same steps, gate and quota; Node drops the body. */
  private register(method: Method, path: string, chain: RequestHandler[]): void {
    this.server[method](path, ...chain);
    if (method === 'get') this.server.head(path, ...chain);
  }
}
