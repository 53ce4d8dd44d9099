// POST /mcp: the MCP server over Streamable HTTP (Enterprise), stateless: each request gets a fresh
// server and transport, so any API process can answer any request. The key is checked as on /v1;
// refusals are JSON-RPC errors (what MCP clients read) that also carry the API's `detail`. The
// request itself counts nothing: each tools/call counts once against the key's daily quota, on the
// counter /v1 requests use (initialize, tools/list and ping count nothing, so they work with the quota
// spent). Every call is in flight for its key and organization as a /v1 request is (the same caps): a
// batch's first call holds the request's slot, each other call one of its own until it is answered;
// a call past a cap is answered with the 429's detail as a JSON-RPC error. Every answer carries the
// /v1 answers' security and X-RateLimit headers.
import type { ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Next, Request, Response, Server } from 'restify';
import type { Principal } from '../db/keys.js';
import type { AppContext } from '../context.js';
import { identify, quotaCounter, quotaExceeded, quotaHeaders, quotaStanding } from '../middleware/admission.js';
import type { InFlight } from '../middleware/in-flight.js';
import { afterPause, type RefusalPacer } from '../middleware/refusal-pacing.js';
import { declaredTooLarge, readJsonBody, TOO_LARGE } from '../middleware/json-body.js';
import { NO_STORE, SECURITY_HEADERS } from '../middleware/reply.js';
import { PayloadTooLargeError, TooManyInFlightError } from '../../lib/errors.js';
import { tierAllows, withArticle } from '../tiers.js';
import { mcpServer } from './tools.js';

export const MCP_PATH = '/mcp';
const OAUTH_DISCOVERY = [
  '/.well-known/oauth-protected-resource',
  `/.well-known/oauth-protected-resource${MCP_PATH}`,
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
];
const STATIC_KEYS = 'This server takes static API keys, not OAuth: send Authorization: Bearer pdi_live_… (an Enterprise key)';

/** A refusal before any MCP message is read: HTTP status plus a JSON-RPC error body. */
function refuse(res: ServerResponse, status: number, detail: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: detail }, id: null, detail });
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

type Call = JSONRPCMessage & { method: string; id: string | number };

/** A request (it has an id and is answered), as opposed to a notification or a response. */
function isCall(message: JSONRPCMessage): message is Call {
  return 'method' in message && 'id' in message;
}

/** Sets `headers` (name, value, name, value…) on an answer not yet written. */
function setHeaders(res: ServerResponse, headers: string[]): void {
  if (res.headersSent) return;
  for (let i = 0; i < headers.length; i += 2) res.setHeader(headers[i]!, headers[i + 1]!);
}

export function registerMcp(server: Server, ctx: AppContext, inFlight: InFlight, pacer: RefusalPacer): void {
  const count = quotaCounter(ctx.usage, ctx.clock);
  const standing = quotaStanding(ctx.usage, ctx.clock);
  const forbidden = `This feature requires ${withArticle('enterprise')} subscription`;

  const admit = (req: Request, res: Response, next: Next): void => {
    // Set before anything is written: Node merges them into the SDK transport's writeHead too.
    res.setHeader(SECURITY_HEADERS[0], SECURITY_HEADERS[1]);
    res.setHeader(NO_STORE[0], NO_STORE[1]);
    const principal = identify(ctx.keys, req);
    if (typeof principal === 'string') {
      refuse(res, 401, principal, { 'WWW-Authenticate': principal === 'Missing API key' ? 'Bearer realm="mcp"' : 'Bearer realm="mcp", error="invalid_token"' });
      return next(false);
    }
    if (!tierAllows(principal.tier, 'enterprise')) {
      refuse(res, 403, forbidden);
      return next(false);
    }
    if (declaredTooLarge(req)) return next(new PayloadTooLargeError(TOO_LARGE));
    try {
      inFlight.enter(principal, res);
    } catch (err) {
      if (!(err instanceof TooManyInFlightError)) throw err;
      pacer.pace(principal, err);
      setHeaders(res, standing(principal));
      return afterPause(err, () => {
        refuse(res, 429, err.message, { 'Retry-After': String(err.retryAfterSeconds) });
        next(false);
      });
    }
    req.principal = principal;
    setHeaders(res, standing(principal));
    next();
  };
  // The body is read as /v1 reads one (1 MiB at most): the SDK's transport would read any size.
  server.post(MCP_PATH, admit, readJsonBody, (req: Request, res: Response, next: Next) => {
    serve(ctx, req.principal!, { count, inFlight, pacer }, req, res).then(
      () => next(false),
      (err: unknown) => {
        ctx.log.error({ err }, 'MCP request failed');
        if (!res.headersSent) refuse(res, 500, 'Internal server error');
        else res.destroy();
        next(false);
      },
    );
  });
  // The challenge names no resource_metadata: keys are static, there is no OAuth authorization server.
  // A client that looks for one anyway (RFC 9728, RFC 8414 discovery) reads why in JSON, not a bare 404.
  for (const path of OAUTH_DISCOVERY) {
    server.get(path, (_req: Request, res: Response, next: Next) => {
      refuse(res, 404, STATIC_KEYS);
      next(false);
    });
  }
  // Stateless: no server-to-client stream (GET) and no session to end (DELETE).
  for (const method of ['get', 'del'] as const) {
    server[method](MCP_PATH, (_req: Request, res: Response, next: Next) => {
      res.setHeader(SECURITY_HEADERS[0], SECURITY_HEADERS[1]);
      res.setHeader(NO_STORE[0], NO_STORE[1]);
      refuse(res, 405, `Method not allowed on ${MCP_PATH}: send JSON-RPC messages with POST`, { Allow: 'POST' });
      next(false);
    });
  }
}

interface Admission {
  count: ReturnType<typeof quotaCounter>;
  inFlight: InFlight;
  pacer: RefusalPacer;
}

/** The id a batch's requests share, if two do: the transport answers a batch by id, so each must be distinct. */
export function repeatedId(body: unknown): string | number | undefined {
  if (!Array.isArray(body)) return undefined;
  const seen = new Set<unknown>();
  for (const member of body) {
    if (member === null || typeof member !== 'object' || !('method' in member) || !('id' in member)) continue;
    const { id } = member as { id: unknown };
    if (typeof id !== 'string' && typeof id !== 'number') continue;
    if (seen.has(id)) return id;
    seen.add(id);
  }
  return undefined;
}

/**
 * A batch refused whole (400), one JSON-RPC error per member in its order (id null for a member that
 * has none), each with the API's status and detail as a refused call's have them.
 */
function refuseBatch(res: ServerResponse, members: unknown[], detail: string): void {
  const error = { code: -32600, message: detail, data: { status: 400, detail } };
  const ids = members.map((m) => (m !== null && typeof m === 'object' && 'id' in m ? (m as { id: unknown }).id : null));
  const body = JSON.stringify(ids.map((id) => ({ jsonrpc: '2.0', id: typeof id === 'string' || typeof id === 'number' ? id : null, error })));
  res.writeHead(400, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}

/**
 * The slots of a batch's calls after its first: each call's own, given back when its answer is sent,
 * and every one still held when the HTTP answer closes or the request ends however it ends. Kept in a
 * list per id, so that no release can be overwritten (a lost release held the slot until a restart).
 */
class BatchSlots {
  private readonly byId = new Map<string | number, (() => void)[]>();
  private over = false;

  /** False once the answer closed: a call then takes no slot (nothing would give it back). */
  get open(): boolean {
    return !this.over;
  }

  hold(id: string | number, release: () => void): void {
    const held = this.byId.get(id);
    if (held) held.push(release);
    else this.byId.set(id, [release]);
  }

  answered(id: string | number): void {
    const held = this.byId.get(id);
    held?.shift()?.();
    if (held?.length === 0) this.byId.delete(id);
  }

  releaseAll(): void {
    this.over = true;
    for (const held of this.byId.values()) for (const release of held) release();
    this.byId.clear();
  }
}

async function serve(ctx: AppContext, principal: Principal, { count, inFlight, pacer }: Admission, req: Request, res: Response): Promise<void> {
  const repeated = repeatedId(req.body);
  if (repeated !== undefined) {
    refuseBatch(res, req.body as unknown[], `Invalid Request: the requests of a batch must have distinct ids; id ${JSON.stringify(repeated)} is repeated`);
    return;
  }
  const mcp = mcpServer(ctx, principal.keyId);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  const slots = new BatchSlots();
  const end = () => {
    slots.releaseAll();
    void transport.close();
    void mcp.close();
  };
  // The client may have gone while the body was read: 'close' is then already past.
  if (res.destroyed) return end();
  res.once('close', end);
  await mcp.connect(transport);
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const id = 'id' in message ? message.id : undefined;
    if (id !== undefined && !('method' in message)) slots.answered(id);
    return send(message, options);
  };
  let calls = 0;
  const deliver = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    if (!isCall(message)) return deliver(message, extra);
    if (!slots.open) return;
    if (calls++ > 0) {
      try {
        slots.hold(message.id, inFlight.take(principal));
      } catch (err) {
        if (!(err instanceof TooManyInFlightError)) throw err;
        const data = { status: 429, detail: err.message, retry_after: err.retryAfterSeconds };
        // Paced as a /v1 refusal: a client resending its batch at once would keep the event loop
        // busy answering refusals (the batch's answer waits for this one).
        pacer.pace(principal, err);
        afterPause(err, () => void transport.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: err.message, data } }).catch(() => {}));
        return;
      }
    }
    // Counted where every tools/call passes, before the tool's arguments are checked (as /v1 counts a 422).
    if (message.method === 'tools/call') {
      const use = count(principal);
      setHeaders(res, quotaHeaders(principal, use.quota - use.used, use.resetHeader));
      if (!use.allowed) {
        const text = quotaExceeded(use).message;
        void transport.send({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }], isError: true } });
        return;
      }
    }
    deliver(message, extra);
  };
  acceptJson(req);
  try {
    await transport.handleRequest(req, res, req.body);
  } finally {
    // The answer is written (or failed): whatever a call still holds is given back now.
    slots.releaseAll();
  }
}

const ACCEPT_BOTH = 'application/json, text/event-stream';

/**
 * The SDK's transport refuses (406) a client whose Accept does not list text/event-stream, but every
 * answer here is JSON (enableJsonResponse): a plain JSON client is served as if it had listed both.
 */
function acceptJson(req: Request): void {
  req.headers.accept = ACCEPT_BOTH;
  const raw: string[] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i]!.toLowerCase() !== 'accept') raw.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  req.rawHeaders.splice(0, req.rawHeaders.length, ...raw, 'Accept', ACCEPT_BOTH);
}
