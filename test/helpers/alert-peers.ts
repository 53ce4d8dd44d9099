// Real loopback peers for alert deliveries: an SMTP server (smtp-server) that parses what it receives,
// and a webhook receiver that verifies X-PDI-Signature. Either can hold its answers (never reply), as a
// receiver does while the sender is killed.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { Test } from 'tap';

export interface SmtpPeer {
  url: string;
  messages: ParsedMail[];
  /** While true, a message's data is read but never acknowledged (the client waits). */
  hold: boolean;
  /** Resolves when `count` messages were received in all. */
  received(count: number): Promise<ParsedMail[]>;
}

function waiters<T>(items: T[]) {
  const pending: { count: number; resolve: (v: T[]) => void }[] = [];
  return {
    push(item: T) {
      items.push(item);
      for (const w of pending.filter((p) => items.length >= p.count)) {
        pending.splice(pending.indexOf(w), 1);
        w.resolve(items);
      }
    },
    wait(count: number): Promise<T[]> {
      if (items.length >= count) return Promise.resolve(items);
      return new Promise((resolve) => pending.push({ count, resolve }));
    },
  };
}

export async function startSmtp(t: Test): Promise<SmtpPeer> {
  const messages: ParsedMail[] = [];
  const w = waiters(messages);
  const peer: SmtpPeer = { url: '', messages, hold: false, received: (n) => w.wait(n) };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      const held = peer.hold;
      simpleParser(stream).then(
        (mail) => {
          if (held) return; // never acknowledged: the client never learns it was received
          w.push(mail);
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  peer.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return peer;
}

export interface HookRequest {
  body: string;
  json: any;
  signature: string;
  /** Whether the signature verifies with the secret the receiver was given. */
  verified: boolean;
  status: number;
}

export interface WebhookPeer {
  url: string;
  requests: HookRequest[];
  /** The secret signatures are verified with (set once the profile is created). */
  secret: string;
  /** The status of each next answer, in order; 200 when empty. 0 holds the request unanswered. */
  statuses: number[];
  answered(count: number): Promise<HookRequest[]>;
}

/** The verification docs/webhooks.md shows: HMAC-SHA256 of "<t>.<body>", compared in constant time. */
export function verifySignature(header: string, body: string, secret: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!m) return false;
  const expected = createHmac('sha256', secret).update(`${m[1]}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(m[2]!, 'hex'));
}

export async function startWebhookReceiver(t: Test): Promise<WebhookPeer> {
  const requests: HookRequest[] = [];
  const w = waiters(requests);
  const peer: WebhookPeer = { url: '', requests, secret: '', statuses: [], answered: (n) => w.wait(n) };
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const status = peer.statuses.shift() ?? 200;
      if (status === 0) {
        held.push(res);
        return;
      }
      const signature = String(req.headers['x-pdi-signature'] ?? '');
      res.writeHead(status);
      res.end();
      w.push({ body, json: JSON.parse(body), signature, verified: verifySignature(signature, body, peer.secret), status });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  peer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  t.teardown(() => {
    for (const res of held) res.destroy();
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return peer;
}

/** Polls `read` until it returns a value (each poll is the event awaited: a state in another store). */
export async function until<T>(read: () => T | undefined | null | false | Promise<T | undefined | null | false>, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface DripPeer {
  url: string;
  /** Requests received so far. */
  received: number;
  /** Connections it is dripping into now. */
  dripping: number;
}

/**
 * A receiver that reads each request and then answers one byte of a status line every `everyMs`, never
 * finishing it: a socket that is never idle long, and an answer that never comes.
 */
export async function startDripReceiver(t: Test, everyMs: number): Promise<DripPeer> {
  const peer: DripPeer = { url: '', received: 0, dripping: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let timer: NodeJS.Timeout | undefined;
    socket.once('data', () => {
      peer.received++;
      peer.dripping++;
      const line = 'HTTP/1.1 200 OK\r\nX-Padding: ';
      let i = 0;
      timer = setInterval(() => socket.write(i < line.length ? line[i++]! : 'a'), everyMs);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      if (timer) {
        clearInterval(timer);
        peer.dripping--;
      }
      sockets.delete(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  peer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return peer;
}
