// POST /mcp: the MCP server over Streamable HTTP (Enterprise), stateless: each request gets a fresh
// server and transport, so any API process can answer any request. The key is checked as on /v1;
// refusals are JSON-RPC errors (what MCP clients read) that also carry the API's `detail`. The
// request itself counts nothing: each tools/call counts once against the key's daily quota, on the
// counter /v1 requests use. An MCP request is in flight for its key and organization as a /v1 request
// is (the same caps), and every answer carries the /v1 answers' security headers.
import type { ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Next, Request, Response, Server } from 'restify';
import type { Principal } from '../db/keys.js';
import type { AppContext } from '../context.js';
import { identify, quotaCounter, quotaExceeded, type QuotaUse } from '../middleware/admission.js';
import type { InFlight } from '../middleware/in-flight.js';
import { afterPause, type RefusalPacer } from '../middleware/refusal-pacing.js';
import { declaredTooLarge, readJsonBody, TOO_LARGE } from '../middleware/json-body.js';
import { NO_STORE, SECURITY_HEADERS } from '../middleware/reply.js';
import { PayloadTooLargeError, TooManyInFlightError } from '../../lib/errors.js';
import { tierAllows, withArticle } from '../tiers.js';
import { mcpServer } from './tools.js';

export const MCP_PATH = '/mcp';

/** A refusal before any MCP message is read: HTTP status plus a JSON-RPC error body. */
function refuse(res: ServerResponse, status: number, detail: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: detail }, id: null, detail });
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

function isToolCall(message: JSONRPCMessage): message is JSONRPCMessage & { method: 'tools/call'; id: string | number } {
  return 'method' in message && message.method === 'tools/call' && 'id' in message;
}

export function registerMcp(server: Server, ctx: AppContext, inFlight: InFlight, pacer: RefusalPacer): void {
  const count = quotaCounter(ctx.usage, ctx.clock);
  const forbidden = `This feature requires ${withArticle('enterprise')} subscription`;

  const admit = (req: Request, res: Response, next: Next): void => {
    // Set before anything is written: Node merges them into the SDK transport's writeHead too.
    res.setHeader(SECURITY_HEADERS[0], SECURITY_HEADERS[1]);
    res.setHeader(NO_STORE[0], NO_STORE[1]);
    const principal = identify(ctx.keys, req);
    if (typeof principal === 'string') {
      refuse(res, 401, principal, { 'WWW-Authenticate': principal === 'Missing API key' ? 'Bearer' : 'Bearer error="invalid_token"' });
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
      return afterPause(err, () => {
        refuse(res, 429, err.message, { 'Retry-After': String(err.retryAfterSeconds) });
        next(false);
      });
    }
    req.principal = principal;
    next();
  };
  // The body is read as /v1 reads one (1 MiB at most): the SDK's transport would read any size.
  server.post(MCP_PATH, admit, readJsonBody, (req: Request, res: Response, next: Next) => {
    serve(ctx, req.principal!, count, req, res).then(() => next(false), (err: unknown) => {
      ctx.log.error({ err }, 'MCP request failed');
      if (!res.headersSent) refuse(res, 500, 'Internal server error');
      else res.destroy();
      next(false);
    });
  });
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

async function serve(ctx: AppContext, principal: Principal, count: (p: Principal) => QuotaUse, req: Request, res: Response): Promise<void> {
  const mcp = mcpServer(ctx, principal.keyId);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.once('close', () => {
    void transport.close();
    void mcp.close();
  });
  await mcp.connect(transport);
  // Counted where every tools/call passes, before the tool's arguments are checked (as /v1 counts a 422).
  const deliver = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    if (isToolCall(message)) {
      const use = count(principal);
      if (!use.allowed) {
        const text = quotaExceeded(use).message;
        void transport.send({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }], isError: true } });
        return;
      }
    }
    deliver(message, extra);
  };
  await transport.handleRequest(req, res, req.body);
}
