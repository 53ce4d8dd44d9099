// A loopback peer speaking the OpenAI embeddings protocol (POST /v1/embeddings), computing real vectors
// with an embedder of ours: the local model when given one, else the hashing embedder (deterministic).
// Tests set it to fail, hold or check a key; bench/ingest/run.ts runs it as a process of its own:
//
//   npx tsx test/helpers/embedding-service.ts [--model-dir DIR] [--port 0]   (prints its base URL)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import type { Embedder } from '../../lib/embedding/embedder.js';
import { HashingEmbedder } from '../../lib/embedding/hashing-embedder.js';
import { ServiceEmbedder, type ServiceEmbedderOptions } from '../../lib/embedding/service-embedder.js';

export interface EmbeddingPeerOptions {
  embedder?: Embedder;
  /** Requests must carry `Authorization: Bearer <key>` (else 401). */
  key?: string;
  port?: number;
}

export interface RecordedRequest {
  model: unknown;
  input: string[];
  authorization: string | undefined;
}

export interface EmbeddingPeer {
  /** The base URL as PDI_EMBED_URL takes it (…/v1). */
  url: string;
  embedder: Embedder;
  /** Every request answered with vectors, in arrival order. */
  requests: RecordedRequest[];
  /** Every request that arrived, answered or not. */
  arrivals: number;
  /** When each request arrived (performance.now()), answered or not. */
  arrivedAt: number[];
  /** The most requests in flight at once. */
  maxInFlight: number;
  /** The next `n` requests are answered with `status` (and Retry-After when given), with `body` when given. */
  failNext(n: number, status: number, retryAfter?: string, body?: unknown): void;
  /** The next `n` requests get no answer until the peer closes. */
  holdNext(n: number): void;
  /** The next `n` requests have their connection closed with no answer (a network error to the client). */
  dropNext(n: number): void;
  /** Each answer waits this long first (to observe requests in flight). */
  delayMs: number;
  close(): Promise<void>;
}

export async function startEmbeddingPeer(opts: EmbeddingPeerOptions = {}): Promise<EmbeddingPeer> {
  const embedder = opts.embedder ?? new HashingEmbedder();
  const failures: { status: number; retryAfter?: string; body?: unknown }[] = [];
  let holds = 0;
  let drops = 0;
  let inFlight = 0;
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      peer.arrivals++;
      peer.arrivedAt.push(performance.now());
      inFlight++;
      peer.maxInFlight = Math.max(peer.maxInFlight, inFlight);
      try {
        await answer(req, res, Buffer.concat(chunks).toString('utf8'));
      } finally {
        inFlight--;
      }
    });
  });

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  async function answer(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') return send(res, 404, { error: { message: 'not found' } });
    if (drops > 0) {
      drops--;
      res.socket?.destroy();
      return;
    }
    if (holds > 0) {
      holds--;
      held.push(res);
      return;
    }
    const failure = failures.shift();
    if (failure) {
      return send(
        res,
        failure.status,
        failure.body ?? { error: { message: `failing on purpose (${failure.status})` } },
        failure.retryAfter ? { 'Retry-After': failure.retryAfter } : {},
      );
    }
    if (opts.key !== undefined && req.headers.authorization !== `Bearer ${opts.key}`) {
      return send(res, 401, { error: { message: 'invalid api key' } });
    }
    let body: { model?: unknown; input?: unknown };
    try {
      body = JSON.parse(raw);
    } catch {
      return send(res, 400, { error: { message: 'body is not JSON' } });
    }
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(input) || !input.every((s) => typeof s === 'string'))
      return send(res, 400, { error: { message: '`input` must be a string or an array of strings' } });
    if (peer.delayMs > 0) await new Promise((r) => setTimeout(r, peer.delayMs));
    peer.requests.push({ model: body.model, input, authorization: req.headers.authorization });
    const vectors = await embedder.embed(input);
    // Out of order on purpose: clients must place each vector by its `index`.
    const data = vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })).reverse();
    send(res, 200, { object: 'list', model: body.model, data, usage: { prompt_tokens: 0, total_tokens: 0 } });
  }

  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const peer: EmbeddingPeer = {
    url: `http://127.0.0.1:${port}/v1`,
    embedder,
    requests: [],
    arrivals: 0,
    arrivedAt: [],
    maxInFlight: 0,
    delayMs: 0,
    failNext: (n, status, retryAfter, body) => {
      for (let i = 0; i < n; i++) failures.push({ status, retryAfter, body });
    },
    holdNext: (n) => {
      holds += n;
    },
    dropNext: (n) => {
      drops += n;
    },
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return peer;
}

/** The embedder of a server pointed at `peer` with PDI_EMBED_* left at their defaults (30 s a request, 4 retries), `over` changed. */
export function connectToPeer(peer: EmbeddingPeer, over: Partial<ServiceEmbedderOptions> = {}): Promise<ServiceEmbedder> {
  return ServiceEmbedder.connect({
    url: peer.url,
    key: null,
    model: 'test/hashing',
    batchSize: 32,
    concurrency: 4,
    timeoutMs: 30_000,
    retries: 4,
    queryPrefix: '',
    passagePrefix: '',
    ...over,
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const modelDir = arg('--model-dir');
  const { ModelEmbedder } = await import('../../lib/embedding/model-embedder.js');
  const embedder = modelDir ? await ModelEmbedder.load(modelDir) : new HashingEmbedder();
  const peer = await startEmbeddingPeer({ embedder, port: Number(arg('--port') ?? 0) });
  process.stdout.write(`${peer.url}\n`);
}
