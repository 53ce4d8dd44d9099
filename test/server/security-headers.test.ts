// Headers every answer carries, errors included: no MIME sniffing, no caching of what one key was
// sent, and nothing that names the server software.
import net from 'node:net';
import t, { type Test } from 'tap';
import { startServer } from '../../api/server.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { request, tempDir, type TestResponse } from '../helpers/app.js';

function checkHeaders(t: Test, res: TestResponse, what: string): void {
  t.equal(res.headers.get('x-content-type-options'), 'nosniff', `${what}: nosniff`);
  t.equal(res.headers.get('cache-control'), 'no-store', `${what}: no-store`);
  t.equal(res.headers.get('server'), null, `${what}: no Server`);
  t.equal(res.headers.get('x-powered-by'), null, `${what}: no X-Powered-By`);
}

t.test('when the API answers a 200, a 4xx and a 5xx, then each carries nosniff and no-store, and no Server or X-Powered-By', async (t) => {
  // Elasticsearch on a port nothing listens on: the index routes answer 503, the others keep working.
  const config = loadConfig({
    PDI_DATA_DIR: tempDir(t),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    PDI_DEMO: '0',
    ELASTICSEARCH_URL: 'http://127.0.0.1:9',
  });
  const running = await startServer(config, createLogger('silent'));
  t.teardown(() => running.stop());
  const key = running.app.context.keys.create('Acme', 'pro').key;

  const ok = await request(running.url, '/v1/usage', { key });
  t.equal(ok.status, 200);
  checkHeaders(t, ok, '200');
  for (const [path, opts, status] of [
    ['/v1/usage', {}, 401],
    ['/v1/nope', { key }, 404],
    ['/v1/search', { key }, 422],
    ['/elsewhere', {}, 404],
  ] as const) {
    const res = await request(running.url, path, opts);
    t.equal(res.status, status, path);
    checkHeaders(t, res, `${status} ${path}`);
  }
  const down = await request(running.url, '/v1/stats', { key });
  t.equal(down.status, 503);
  checkHeaders(t, down, '503');

  // The public model list may be kept by shared caches; it is still never sniffed.
  const models = await request(running.url, '/v1/models');
  t.equal(models.status, 200);
  t.equal(models.headers.get('cache-control'), 'public, max-age=60');
  t.equal(models.headers.get('x-content-type-options'), 'nosniff');
  t.equal(models.headers.get('server'), null);

  // Refused by Node's HTTP parser, answered on the bare socket.
  const raw = await new Promise<string>((resolve) => {
    const socket = net.connect(Number(new URL(running.url).port), '127.0.0.1', () =>
      socket.write('GET /v1/search?q=\xcf\x83 HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1'),
    );
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    socket.on('close', () => resolve(text));
  });
  t.match(raw, /^HTTP\/1\.1 400 /);
  t.match(raw, /\r\nX-Content-Type-Options: nosniff\r\n/);
  t.match(raw, /\r\nCache-Control: no-store\r\n/);
});
