// The API Tokens page at /dashboard, for the operator: sign in with PDI_ADMIN_TOKEN, create keys (each
// shown once), list and revoke them, see their use. Unset, no /dashboard route exists (404 like any
// unknown path). Keys are created and revoked through the KeyStore that admission reads, so a
// revocation here clears its cache and the key's very next request is refused.
// Every POST but the sign-in needs the session's synchronizer token (the sign-in form carries the
// admin token itself, which no other site can know); the cookie is SameSite=Strict besides.
import type { Request, RequestHandler, Response, Server } from 'restify';
import { utcDay } from '../../lib/clock.js';
import { clientBlock, TrustedProxies } from '../../lib/client-address.js';
import { publicOverHttps } from '../../lib/config.js';
import { AppError, ForbiddenError, NotFoundError, UnauthorizedError } from '../../lib/errors.js';
import type { AppContext } from '../context.js';
import { TIERS, type Tier } from '../db/keys.js';
import { reply } from '../middleware/reply.js';
import { lastDays } from './chart.js';
import { BASE, clearCookie, readForm, redirect, sendPage, sessionCookie, setCookie } from './http.js';
import { keysPage, messagePage, signInPage, type KeysView } from './pages.js';
import { sameSecret, Sessions, SignInThrottle, type Session } from './sessions.js';
import { STYLESHEET } from './style.js';

const CHART_DAYS = 30;

const TITLES: Record<number, string> = { 401: 'Not signed in', 403: 'Refused', 404: 'Not found', 413: 'Form too large', 415: 'Not a form' };

type Handler = (req: Request, res: Response) => Promise<void>;

/** Our refusals become a page the operator can read; anything else goes to the JSON error path (5xx masked). */
function page(handler: Handler): RequestHandler {
  return async (req, res) => {
    try {
      await handler(req, res);
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
      // A form not read to its end: closing is cheaper than reading the rest.
      if (!req.complete) res.setHeader('Connection', 'close');
      sendPage(res, err.statusCode, messagePage(TITLES[err.statusCode] ?? 'Refused', err.message));
    }
  };
}

export function registerDashboard(server: Server, ctx: AppContext): void {
  const adminToken = ctx.config.adminToken;
  if (adminToken === null) return;
  const log = ctx.logFor('dashboard');
  const sessions = new Sessions(ctx.clock);
  const throttle = new SignInThrottle(ctx.clock);
  const proxies = new TrustedProxies(ctx.config.trustProxy);
  const behindHttps = publicOverHttps(ctx.config);

  const sessionOf = (req: Request): Session | null => sessions.find(sessionCookie(req));

  /** The signed-in session and the form it posted, after its CSRF token was checked. */
  async function signedForm(req: Request): Promise<{ session: Session; fields: URLSearchParams }> {
    const session = sessionOf(req);
    if (!session) throw new UnauthorizedError('You are not signed in, or your session has expired: sign in again.');
    const fields = await readForm(req);
    if (!sameSecret(fields.get('csrf') ?? '', session.csrf)) {
      throw new ForbiddenError("The form's CSRF token is missing or wrong: reload the dashboard page and submit the form again.");
    }
    return { session, fields };
  }

  function keysView(session: Session): KeysView {
    const today = utcDay(ctx.clock());
    const chartDays = lastDays(today, CHART_DAYS);
    const counts = ctx.usage.countsSince(chartDays[0]!);
    const lastUsed = ctx.usage.lastUsedDays();
    const keys = ctx.keys
      .list()
      .reverse()
      .map((k) => ({
        ...k,
        today: counts.get(k.id)?.get(today) ?? 0,
        lastUsed: lastUsed.get(k.id) ?? null,
        days: counts.get(k.id),
      }));
    return { csrf: session.csrf, keys, chartDays };
  }

  const home = page(async (req, res) => {
    const session = sessionOf(req);
    if (!session) return redirect(res, `${BASE}/sign-in`);
    const view = keysView(session);
    // Shown on this one page, then forgotten: a reload no longer shows it (a HEAD shows nothing).
    view.newKey = session.newKey;
    if (req.method === 'GET') delete session.newKey;
    sendPage(res, 200, keysPage(view));
  });

  const signInForm = page(async (req, res) => {
    if (sessionOf(req)) return redirect(res, BASE);
    sendPage(res, 200, signInPage());
  });

  const signIn = page(async (req, res) => {
    // The client's address (behind PDI_TRUST_PROXY's proxies, the one they saw), counted by its block
    // (an IPv6 client by its /64).
    const address = proxies.client(req.socket.remoteAddress ?? '', req.headers['x-forwarded-for']);
    const block = clientBlock(address);
    const wait = throttle.reserve(block);
    if (wait > 0) {
      res.setHeader('Connection', 'close');
      return sendPage(res, 429, signInPage(`Too many failed sign-ins: try again in ${wait} s.`), ['Retry-After', String(wait)]);
    }
    let fields: URLSearchParams;
    try {
      fields = await readForm(req);
    } catch (err) {
      throttle.release(block);
      throw err;
    }
    if (!sameSecret(fields.get('token') ?? '', adminToken)) {
      throttle.failed(block);
      log.warn({ address }, 'dashboard sign-in refused: wrong admin token');
      return sendPage(res, 401, signInPage('Wrong admin token.'));
    }
    throttle.succeeded(block);
    // A new session id at every sign-in: an id planted before it is worth nothing after.
    const old = sessionOf(req);
    if (old) sessions.close(old.id);
    const session = sessions.open();
    log.info({ address }, 'dashboard sign-in');
    redirect(res, BASE, ['Set-Cookie', setCookie(req, session.id, behindHttps)]);
  });

  const signOut = page(async (req, res) => {
    const { session } = await signedForm(req);
    sessions.close(session.id);
    redirect(res, `${BASE}/sign-in`, ['Set-Cookie', clearCookie(req, behindHttps)]);
  });

  const createKey = page(async (req, res) => {
    const { session, fields } = await signedForm(req);
    const org = (fields.get('org') ?? '').trim();
    const tier = fields.get('tier') ?? '';
    let problem: string | null = null;
    if (!(TIERS as readonly string[]).includes(tier)) problem = `The tier must be one of ${TIERS.join(', ')}.`;
    else {
      try {
        const k = ctx.keys.create(org, tier as Tier);
        session.newKey = { id: k.id, key: k.key, org: k.org, tier: k.tier };
        log.info({ keyId: k.id, tier: k.tier }, 'key created on the dashboard');
        return redirect(res, BASE);
      } catch (err) {
        // The store's own check of the name (the same as `pdi keys create`'s).
        if (!(err instanceof RangeError)) throw err;
        problem = `The ${err.message}.`;
      }
    }
    sendPage(res, 422, keysPage({ ...keysView(session), problem: { message: problem, org, tier } }));
  });

  const revokeKey = page(async (req, res) => {
    await signedForm(req);
    const id = req.params.id as string;
    if (!ctx.keys.revoke(id)) throw new NotFoundError(`No key has the id ${id}.`);
    log.info({ keyId: id }, 'key revoked on the dashboard');
    redirect(res, BASE);
  });

  const style: RequestHandler = async (_req, res) => {
    reply(res, 200, 'text/css; charset=utf-8', STYLESHEET, ['Cache-Control', 'no-cache']);
  };

  for (const [path, handler] of [
    [BASE, home],
    [`${BASE}/sign-in`, signInForm],
    [`${BASE}/style.css`, style],
  ] as const) {
    server.get(path, handler);
    server.head(path, handler);
  }
  server.post(`${BASE}/sign-in`, signIn);
  server.post(`${BASE}/sign-out`, signOut);
  server.post(`${BASE}/keys`, createKey);
  server.post(`${BASE}/keys/:id/revoke`, revokeKey);
}
