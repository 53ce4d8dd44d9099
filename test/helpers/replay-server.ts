// A loopback HTTP server that plays an upstream: each request is answered by a handler the test gives.
import http from 'node:http';
import type { Test } from 'tap';

export interface Replay {
  url: string;
  requests: { method: string; url: string; body: string }[];
}

export type ReplayHandler = (req: { method: string; url: string; body: string }, res: http.ServerResponse) => void | Promise<void>;

export async function replayServer(t: Test, handler: ReplayHandler): Promise<Replay> {
  const requests: Replay['requests'] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const r = { method: req.method ?? 'GET', url: req.url ?? '/', body };
      requests.push(r);
      void Promise.resolve(handler(r, res)).catch((err) => {
        res.statusCode = 500;
        res.end(String(err));
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    server.close(() => resolve());
  }));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, requests };
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const data = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': data.length });
  res.end(data);
}
