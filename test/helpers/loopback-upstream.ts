// A loopback HTTP server that plays an upstream API for fetcher tests: every request is recorded and
// answered by a test-supplied function (status, headers, body). No network beyond 127.0.0.1.
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
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

export type Responder = (req: UpstreamRequest, index: number) => UpstreamReply;

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
    let reply: UpstreamReply;
    try {
      reply = respond(recorded, requests.length - 1);
    } catch (err) {
      reply = { status: 599, body: `responder failed: ${(err as Error).message}` };
    }
    const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? null);
    res.writeHead(reply.status ?? 200, { 'Content-Type': 'application/json;charset=UTF-8', ...reply.headers });
    res.end(text);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
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
