// A loopback HTTP proxy in front of a real Elasticsearch: it forwards every request except those `hold`
// picks, which it keeps unanswered, as an engine busy with a long search would, noting when their
// connection closes. Lets a test see whether the API gives up an engine request nobody waits for.
import { once } from 'node:events';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

export interface HeldRequest {
  method: string;
  path: string;
  /** Resolves when the requester closes the connection. */
  closed: Promise<void>;
}

export interface HoldingProxy {
  url: string;
  /** Resolves with the next request held (one already held and not yet taken comes first). */
  nextHeld(): Promise<HeldRequest>;
}

export async function holdingProxy(t: Test, target: string, hold: (req: IncomingMessage) => boolean): Promise<HoldingProxy> {
  const held: HeldRequest[] = [];
  const waiting: ((r: HeldRequest) => void)[] = [];
  const server = createServer((req, res) => {
    if (hold(req)) {
      const entry = { method: req.method ?? '', path: req.url ?? '', closed: once(res, 'close').then(() => undefined) };
      const waiter = waiting.shift();
      if (waiter) waiter(entry);
      else held.push(entry);
      return;
    }
    const upstream = request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    nextHeld: () => {
      const first = held.shift();
      return first ? Promise.resolve(first) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}
