import { pino } from 'pino';
import t from 'tap';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { startTestApp } from '../helpers/app.js';

t.test('when the body is not JSON, then 400 with a detail', async (t) => {
  const app = await startTestApp(t);
  const res = await app.request('/v1/alerts/profiles', {
    key: app.key('pro'),
    method: 'POST',
    rawBody: '{"name": broken',
    headers: { 'Content-Type': 'application/json' },
  });
  t.equal(res.status, 400);
  t.same(res.body, { detail: 'Request body is not valid JSON' });
});

t.test('when the body is in another media type, then 400 with a detail', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('pro');
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
    const res = await app.request('/v1/alerts/profiles', { key, method: 'POST', rawBody: 'name=x', headers: { 'Content-Type': type } });
    t.equal(res.status, 400, type);
    t.same(res.body, { detail: 'Request body must be JSON (Content-Type: application/json)' }, type);
  }
});

t.test('when the body has a content coding, then 415 with a detail and the server keeps serving', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('enterprise');
  const json = JSON.stringify({ name: 'x' });
  const cases: [string, Buffer | string][] = [
    // Not gzip at all: restify's gunzip raised an unhandled stream error on this and the process died.
    ['gzip', json],
    // Well-formed gzip: restify counted the 1 MiB limit on the compressed bytes.
    ['gzip', gzipSync(JSON.stringify({ name: 'x'.repeat(5 * 1024 * 1024) }))],
    ['gzip', gzipSync(json).subarray(0, 12)],
    ['gzip', ''],
    ['br', json],
    ['deflate, gzip', json],
  ];
  for (const [coding, body] of cases) {
    const res = await app.request('/v1/alerts/profiles', {
      key,
      method: 'POST',
      rawBody: body,
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': coding },
    });
    t.equal(res.status, 415, coding);
    t.same(res.body, { detail: 'Content-Encoding is not supported; send the request body uncompressed' }, coding);
    t.equal((await app.request('/v1/models')).status, 200, 'still serving');
  }
  const identity = await app.request('/v1/alerts/profiles', {
    key,
    method: 'POST',
    rawBody: '{"name": broken',
    headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'identity' },
  });
  t.equal(identity.status, 400, 'identity is no coding: the body is read as it is');
});

t.test('when the body is over 1 MiB, then 413 with a detail', async (t) => {
  const app = await startTestApp(t);
  const res = await app.request('/v1/alerts/profiles', {
    key: app.key('pro'),
    method: 'POST',
    rawBody: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }),
    headers: { 'Content-Type': 'application/json' },
  });
  t.equal(res.status, 413);
  t.same(res.body, { detail: 'Request body exceeds the 1 MiB limit' });
});

t.test('when a body far over 1 MiB is still arriving, then the 413 closes the connection instead of reading the rest', async (t) => {
  const app = await startTestApp(t);
  const { hostname, port } = new URL(app.url);
  const socket = net.connect(Number(port), hostname);
  const declared = 200 * 1024 * 1024;
  socket.write(
    `POST /v1/alerts/profiles HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${app.key('pro')}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
  );
  socket.write(Buffer.alloc(2 * 1024 * 1024, 0x20));
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
  // The server ends the connection with 198 MiB unsent; before, it waited to read (and drop) them all.
  const ended = await Promise.race([
    new Promise<string>((resolve) => socket.once('close', () => resolve('closed by the server'))),
    new Promise<string>((resolve) => setTimeout(() => resolve('still open after 10 s'), 10_000).unref()),
  ]);
  socket.destroy();
  t.match(answer, /^HTTP\/1\.1 413 /);
  t.match(answer, /\r\nconnection: close\r\n/i);
  t.equal(ended, 'closed by the server');
});

t.test('when the route does not exist, then 404 with a detail, counted against the key', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('free');
  const res = await app.request('/v1/nope', { key });
  t.equal(res.status, 404);
  t.same(res.body, { detail: 'Not found: GET /v1/nope' });
  t.equal(res.headers.get('x-ratelimit-remaining'), '4');
  const root = await app.request('/v1', { key });
  t.equal(root.status, 404);
  t.same(root.body, { detail: 'Not found: GET /v1' });
  t.equal(root.headers.get('x-ratelimit-remaining'), '3', '/v1 itself is an API path: counted');
  t.equal((await app.request('/v1')).status, 401, 'and needs a key');
  const outside = await app.request('/favicon.ico');
  t.equal(outside.status, 404);
  t.same(outside.body, { detail: 'Not found: GET /favicon.ico' });
});

t.test('when the path does not decode as percent-encoded UTF-8, then 422 says so, not an unknown route', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('enterprise');
  for (const path of ['/v1/documents/%FF/content', '/v1/documents/ted%3A%E0%A4%A/content', '/v1/diavgeia%C3/documents']) {
    const res = await app.request(path, { key });
    t.equal(res.status, 422, path);
    t.same(res.body, { detail: 'The URL path is not valid percent-encoded UTF-8' }, path);
  }
  t.equal((await app.request('/v1/documents/ted%3A1/content', { key })).status, 404, 'a path that decodes is looked up');
  t.equal((await app.request('/v1/documents/100%25/content', { key })).status, 404, 'an encoded percent sign is fine');
});

t.test('when the method is not allowed, then 405 with a detail', async (t) => {
  const app = await startTestApp(t);
  const res = await app.request('/v1/sources', { key: app.key('free'), method: 'DELETE' });
  t.equal(res.status, 405);
  t.same(res.body, { detail: 'Method DELETE is not allowed on /v1/sources' });
});

t.test('when HEAD is sent to a GET route, then its status and quota headers without a body, gated and counted like a GET', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('free');
  // restify leaves out Content-Type and Content-Length, which RFC 9110 allows for HEAD.
  const head = await app.request('/v1/sources', { key, method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(head.text, '');
  t.equal(head.headers.get('x-tier'), 'free');
  t.equal(head.headers.get('x-ratelimit-remaining'), '4', 'counted');
  t.equal((await app.request('/v1/search?q=x', { key, method: 'HEAD' })).status, 403, 'the tier applies');
  t.equal((await app.request('/v1/sources', { method: 'HEAD' })).status, 401, 'a key is needed');
  const models = await app.request('/v1/models', { method: 'HEAD' });
  t.equal(models.status, 200, '/v1/models needs none');
  t.equal(models.text, '');
});

t.test('when an async handler throws, then 500 with the message masked', async (t) => {
  const app = await startTestApp(t);
  app.app.server.get('/v1/test-async-throw', async () => {
    throw new Error('secret database path /var/x');
  });
  const res = await app.request('/v1/test-async-throw', { key: app.key('free') });
  t.equal(res.status, 500);
  t.same(res.body, { detail: 'Internal server error' });
});

t.test('when a handler throws before its first await, then 500 and the process keeps serving', async (t) => {
  const app = await startTestApp(t);
  app.app.server.get('/v1/test-sync-throw', async (req) => {
    (req as unknown as { nothing: { here: () => void } }).nothing.here();
  });
  const key = app.key('pro');
  const res = await app.request('/v1/test-sync-throw', { key });
  t.equal(res.status, 500);
  t.same(res.body, { detail: 'Internal server error' });
  t.equal((await app.request('/v1/usage', { key })).status, 200);
});

t.test('when a path id names nothing, then 404 with a detail naming it, after the tier gate', async (t) => {
  const app = await startTestApp(t);
  const denied = await app.request('/v1/monitor/entities/ent%3AABC/report', { key: app.key('pro') });
  t.equal(denied.status, 403);
  const param = await app.request('/v1/monitor/entities/ent%3AABC/report', { key: app.key('enterprise') });
  t.equal(param.status, 404);
  t.same(param.body, { detail: 'Monitored entity not found: ent:ABC' });
});

t.test('when the client asks for HTML, then errors are still JSON', async (t) => {
  const app = await startTestApp(t);
  const res = await app.request('/v1/nope', { headers: { Accept: 'text/html' }, key: app.key('free') });
  t.equal(res.status, 404);
  t.equal(res.headers.get('content-type'), 'application/json');
  t.same(res.body, { detail: 'Not found: GET /v1/nope' });
});

/** Sends raw bytes on a fresh connection and returns what the server answered before closing. */
async function rawExchange(url: string, bytes: Buffer): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  socket.end(bytes);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const [head, body = ''] = text.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body };
}

t.test('when the request line carries raw non-ASCII bytes (curl "…?q=σύμβαση"), then 400 with a detail', async (t) => {
  const app = await startTestApp(t);
  const res = await rawExchange(app.url, Buffer.from('GET /v1/search?q=σύμβαση HTTP/1.1\r\nHost: x\r\n\r\n', 'utf8'));
  t.equal(res.status, 400);
  t.match(res.headers, /content-type: application\/json/i);
  t.same(JSON.parse(res.body), {
    detail: 'Malformed HTTP request; percent-encode non-ASCII characters in the URL (e.g. curl --get --data-urlencode "q=σύμβαση")',
  });
});

t.test('when the method is unknown to HTTP or a header is malformed, then 501 or 400 with a detail that says so', async (t) => {
  const app = await startTestApp(t);
  const method = await rawExchange(app.url, Buffer.from('FOO /v1/sources HTTP/1.1\r\nHost: x\r\n\r\n'));
  t.equal(method.status, 501);
  t.same(JSON.parse(method.body), { detail: 'Unknown HTTP method' });
  const header = await rawExchange(app.url, Buffer.from('GET /v1/sources HTTP/1.1\r\nHost x\r\n\r\n'));
  t.equal(header.status, 400);
  t.same(JSON.parse(header.body), { detail: 'Malformed HTTP request' });
});

t.test('when the URL alone is too long, then 414 with a detail that says so, not 431', async (t) => {
  const app = await startTestApp(t);
  const res = await rawExchange(app.url, Buffer.from(`GET /v1/search?q=${'a'.repeat(40_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
  t.equal(res.status, 414);
  t.same(JSON.parse(res.body), { detail: 'Request URL is too long' });
});

t.test('when the URL holds an ASCII control byte, then 400 says to percent-encode it, without blaming non-ASCII', async (t) => {
  const app = await startTestApp(t);
  const res = await rawExchange(app.url, Buffer.from('GET /v1/sources\x00 HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1'));
  t.equal(res.status, 400);
  t.same(JSON.parse(res.body), { detail: 'Malformed HTTP request; percent-encode control characters and spaces in the URL' });
});

t.test('when the URL holds a raw space, then 400 says to percent-encode it', async (t) => {
  const app = await startTestApp(t);
  for (const line of ['GET /v1/search?q=a b HTTP/1.1', 'GET /v1/search?q=a b c HTTP/1.1']) {
    const res = await rawExchange(app.url, Buffer.from(`${line}\r\nHost: x\r\n\r\n`));
    t.equal(res.status, 400, line);
    t.same(JSON.parse(res.body), { detail: 'Malformed HTTP request; percent-encode control characters and spaces in the URL' }, line);
  }
});

t.test('when a route without a body is sent a Content-Length over 1 MiB, then 413 at once and the connection closed, not the body read', async (t) => {
  const app = await startTestApp(t);
  const { hostname, port } = new URL(app.url);
  const socket = net.connect(Number(port), hostname);
  // Headers and a first piece of the 2 MiB announced: the answer must come without the rest.
  socket.write(
    `GET /v1/usage HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${app.key('free')}\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n${'x'.repeat(1000)}`,
  );
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const [head, body] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
  t.match(head, /^HTTP\/1\.1 413 /);
  t.match(head, /connection: close/i);
  t.same(JSON.parse(body!), { detail: 'Request body exceeds the 1 MiB limit' });
});

t.test('when a request says Expect other than 100-continue, or uses CONNECT, then the error has a detail', async (t) => {
  const app = await startTestApp(t);
  const expect = await rawExchange(app.url, Buffer.from('GET /v1/models HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n'));
  t.equal(expect.status, 417);
  t.same(JSON.parse(expect.body), { detail: 'Expect: foo is not supported' });
  const connect = await rawExchange(app.url, Buffer.from('CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n'));
  t.equal(connect.status, 405);
  t.same(JSON.parse(connect.body), { detail: 'Method CONNECT is not allowed: this is no proxy' });
});

t.test('when an HTTP/1.1 request has no Host header, then 400 with a detail, and HTTP/1.0 needs none', async (t) => {
  const app = await startTestApp(t);
  const res = await rawExchange(app.url, Buffer.from('GET /v1/models HTTP/1.1\r\nConnection: close\r\n\r\n'));
  t.equal(res.status, 400);
  t.match(res.headers, /content-type: application\/json/i);
  t.same(JSON.parse(res.body), { detail: 'An HTTP/1.1 request needs a Host header' });
  const old = await rawExchange(app.url, Buffer.from('GET /v1/models HTTP/1.0\r\n\r\n'));
  t.match(old.headers, /^HTTP\/1\.1 200 /);
  t.ok(Array.isArray(JSON.parse(old.body).models), 'the models answered');
});

t.test('when a client drops its connection in the middle of a request body, then the server logs it as gone, not as a failure with a stack', async (t) => {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const app = await startTestApp(t, { logger });
  const { hostname, port } = new URL(app.url);
  const socket = net.connect(Number(port), hostname);
  socket.write(
    `POST /v1/reports HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${app.key('pro')}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":`,
  );
  await new Promise((r) => setTimeout(r, 200));
  socket.destroy();
  await new Promise((r) => setTimeout(r, 200));
  t.same(
    lines.filter((l) => l.level >= 50).map((l) => l.msg),
    [],
    'nothing at error level',
  );
  t.ok(
    lines.some((l) => l.msg === 'client went away; its engine read was dropped'),
    'logged as a client gone',
  );
  t.equal((await app.request('/v1/usage', { key: app.key('pro') })).status, 200);
});

t.test('when the request headers are too large, then 431 with a detail', async (t) => {
  const app = await startTestApp(t);
  const res = await rawExchange(app.url, Buffer.from(`GET /v1/sources HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`));
  t.equal(res.status, 431);
  t.same(JSON.parse(res.body), { detail: 'Request headers are too large' });
});

t.test('when a write finds the disk full, then the answer is 507 with a detail, nothing is saved, and the write works once there is room', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('pro');
  // SQLite's own cap on the file's pages: a write past it fails as on a full disk (SQLITE_FULL).
  const pages = app.db.pragma('page_count', { simple: true }) as number;
  app.db.pragma(`max_page_count = ${pages}`);
  const body = {
    name: 'Tenders',
    channels: ['email'],
    notify_email: 'ops@example.com',
    filters: { keywords: Array.from({ length: 20 }, (_, i) => `${i}`.repeat(100)) },
  };
  let created = 0;
  let full: Awaited<ReturnType<typeof app.request>> | undefined;
  // The pages left fill up after a few profiles.
  while (!full && created < 1_000) {
    const res = await app.request('/v1/alerts/profiles', { key, method: 'POST', body });
    if (res.status === 201) created++;
    else full = res;
  }
  t.equal(full?.status, 507);
  t.same(full?.body, { detail: "The server's storage is full: nothing was saved; try again later" });
  t.equal((await app.request('/v1/alerts/profiles', { key })).body.total, created, 'nothing of the refused write saved; reads work');
  app.db.pragma(`max_page_count = ${pages * 100}`);
  t.equal((await app.request('/v1/alerts/profiles', { key, method: 'POST', body })).status, 201);
});
