// A loopback listener that accepts every connection and never sends a byte: a frozen Elasticsearch node
// or a stuck embedding service as an operator meets them (the port answers, the service does not).
import net from 'node:net';
import type { Test } from 'tap';

export interface SilentPeer {
  /** http://127.0.0.1:PORT */
  url: string;
  /** Connections accepted so far. */
  accepted: number;
}

export async function silentPeer(t: Test): Promise<SilentPeer> {
  const sockets = new Set<net.Socket>();
  const peer: SilentPeer = { url: '', accepted: 0 };
  const server = net.createServer((socket) => {
    peer.accepted++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  peer.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return peer;
}
