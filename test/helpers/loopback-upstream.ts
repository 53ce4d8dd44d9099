// A loopback HTTP server that plays an upstream API for fetcher tests: every request is recorded and
// answered by a test-supplied function (status, headers, body). No network beyond 127.0.0.1.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { pino } from 'pino';
import { HttpClient } from '../../ingest/http.js';
import type { Checkpoint, FetchContext, FetchedPage } from '../../ingest/sources/types.js';

export interface UpstreamRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
  /** The body as JSON, or undefined when it is not JSON. */
  json: any;
}

export interface UpstreamReply {
  status?: number;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
}

/**
 * Says what to answer. Returning null means the responder took `res` over itself (to cut a body short,
 * or to never answer); close() ends such connections.
 */
export type Responder = (req: UpstreamRequest, index: number, res: ServerResponse) => UpstreamReply | null | Promise<UpstreamReply | null>;

export interface Upstream {
  url: string;
  requests: UpstreamRequest[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startUpstream(respond: Responder): Promise<Upstream> {
  const requests: UpstreamRequest[] = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = await readBody(req);
    let json: unknown;
    try {
      json = body ? JSON.parse(body) : undefined;
    } catch {
      json = undefined;
    }
    const recorded: UpstreamRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, body, json };
    requests.push(recorded);
    let reply: UpstreamReply | null;
    try {
      reply = await respond(recorded, requests.length - 1, res);
    } catch (err) {
      reply = { status: 599, body: `responder failed: ${(err as Error).message}` };
    }
    if (reply === null) return;
    const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? null);
    // Header names are case-insensitive: the reply's own content-type replaces the default.
    const headers: Record<string, string> = { 'content-type': 'application/json;charset=UTF-8' };
    for (const [name, value] of Object.entries(reply.headers ?? {})) headers[name.toLowerCase()] = value;
    res.writeHead(reply.status ?? 200, headers);
    res.end(text);
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface Harness {
  ctx: FetchContext;
  /** Every delay the HTTP client asked to sleep, in ms (nothing really sleeps). */
  sleeps: number[];
  /** Log lines at warn level and above, parsed. */
  logs: Record<string, any>[];
}

/** A FetchContext against `baseUrl` whose client records its backoff instead of sleeping. */
export function harness(baseUrl: string, opts: { since?: string | null; checkpoint?: Checkpoint | null; now: Date }): Harness {
  const sleeps: number[] = [];
  const logs: Record<string, any>[] = [];
  const http = new HttpClient({
    retries: 3,
    concurrency: 1,
    intervalCap: 1_000,
    intervalMs: 1_000,
    timeoutMs: 5_000,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  const log = pino({ level: 'warn' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  return {
    ctx: { http, baseUrl, since: opts.since ?? null, checkpoint: opts.checkpoint ?? null, now: opts.now, log },
    sleeps,
    logs,
  };
}

export async function collect(pages: AsyncIterable<FetchedPage>): Promise<FetchedPage[]> {
  const out: FetchedPage[] = [];
  for await (const p of pages) out.push(p);
  return out;
}
