import { spawn } from 'node:child_process';
import net from 'node:net';
import { pino } from 'pino';
import t from 'tap';
import { connectionLimit, startServer } from '../../api/server.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { request, tempDir } from '../helpers/app.js';
import { cliEnv } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { SERVER_ARGS } from '../helpers/server-process.js';

t.test('when the server stops during a request, then the request finishes and the database closes', async (t) => {
  const dir = tempDir(t);
  const config = loadConfig({ PDI_DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', PDI_DEMO: '0' });
  const running = await startServer(config, createLogger('silent'));
  // A slow route: the request in flight must survive stop().
  let release!: () => void;
  let arrived!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const arrival = new Promise<void>((r) => (arrived = r));
  running.app.server.get('/test/slow', async (_req, res) => {
    arrived();
    await gate;
    res.send({ done: true });
  });
  const inflight = request(running.url, '/test/slow');
  await arrival;
  const stopped = running.stop();
  let stoppedYet = false;
  void stopped.then(() => (stoppedYet = true));
  await new Promise((r) => setTimeout(r, 50));
  t.equal(stoppedYet, false, 'stop waits for the request in flight');
  release();
  const res = await inflight;
  t.equal(res.status, 200);
  t.same(res.body, { done: true });
  await stopped;
  t.equal(stoppedYet, true);
  await t.rejects(request(running.url, '/v1/models'), 'no longer accepting');
});

t.test('when Elasticsearch is unreachable at start, then the API starts and index routes answer 503', async (t) => {
  const dir = tempDir(t);
  // A port nothing listens on: connection refused.
  const config = loadConfig({ PDI_DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', PDI_DEMO: '0', ELASTICSEARCH_URL: 'http://127.0.0.1:9' });
  const running = await startServer(config, createLogger('silent'));
  t.teardown(() => running.stop());
  const key = running.app.context.keys.create('Acme', 'pro').key;
  const stats = await request(running.url, '/v1/stats', { key });
  t.equal(stats.status, 503);
  t.same(stats.body, { detail: 'The search engine (elasticsearch) is unavailable; try again shortly' });
  const usage = await request(running.url, '/v1/usage', { key });
  t.equal(usage.status, 200, 'routes that do not need the engine keep working');
});

t.test('when npm start alone is sent SIGTERM, then the server it runs stops gracefully and exits', async (t) => {
  const dir = tempDir(t);
  // Its own process group, so the signal reaches npm only, as from a supervisor that signals the main pid.
  const npm = spawn('npm', ['start'], {
    cwd: REPO_ROOT,
    env: cliEnv({ PDI_DATA_DIR: dir, PDI_DEMO: '0', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => {
    try {
      process.kill(-npm.pid!, 'SIGKILL');
    } catch {
      // The group is gone: nothing left behind.
    }
  });
  let out = '';
  const listening = new Promise<string>((resolve) => {
    npm.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /"url":"([^"]+)"/.exec(out)?.[1];
      if (url) resolve(url);
    });
  });
  const url = await listening;
  t.equal((await request(url, '/v1/models')).status, 200);
  const exited = new Promise<number | null>((resolve) => npm.once('exit', resolve));
  process.kill(npm.pid!, 'SIGTERM');
  t.equal(await exited, 0, 'npm exits once the server has');
  t.match(out, /"msg":"stopped"/, 'the server drained and closed its databases');
  const after = await fetch(`${url}/v1/models`).then(
    () => 'answered',
    (err: Error) => (err.cause as { code?: string })?.code ?? err.message,
  );
  t.equal(after, 'ECONNREFUSED', 'nothing listens any more');
});

t.test('when the port is taken, then start fails with a message naming PORT, not an unhandled error event', async (t) => {
  const dir = tempDir(t);
  const first = await startServer(loadConfig({ PDI_DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', PDI_DEMO: '0' }), createLogger('silent'));
  t.teardown(() => first.stop());
  const port = new URL(first.url).port;
  const second = startServer(
    loadConfig({ PDI_DATA_DIR: tempDir(t), PORT: port, HOST: '127.0.0.1', LOG_LEVEL: 'silent', PDI_DEMO: '0' }),
    createLogger('silent'),
  );
  await t.rejects(second, { message: `PORT ${port} is already in use on HOST 127.0.0.1` });
});

t.test('when a second server starts on the same data directory, then it fails naming PDI_DATA_DIR and the holder, and the first keeps serving', async (t) => {
  const dir = tempDir(t);
  const env = { PDI_DATA_DIR: dir, PDI_DEMO: '0', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' };
  const first = await startServer(loadConfig(env), createLogger('silent'));
  t.teardown(() => first.stop());
  // Another process, as an operator's second `npm start` would be (the lock is the OS's, per process).
  const second = await runServerProcess(env);
  t.equal(second.code, 1);
  t.equal(
    second.stderr.trim(),
    `Failed to start: another API server (pid ${process.pid}) is running on PDI_DATA_DIR ${dir}; ` +
      'quotas are counted in one process, so run one server per data directory',
  );
  t.equal((await request(first.url, '/v1/models')).status, 200, 'the first server is untouched');
  await first.stop();
  const third = await startServer(loadConfig(env), createLogger('silent'));
  t.equal((await request(third.url, '/v1/models')).status, 200, 'a clean stop releases the data directory');
  await third.stop();
});

t.test('when the server holding a data directory is killed, then the next one starts there without cleanup', async (t) => {
  const dir = tempDir(t);
  const env = { PDI_DATA_DIR: dir, PDI_DEMO: '0', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' };
  const child = spawn(process.execPath, [...SERVER_ARGS], { cwd: REPO_ROOT, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => child.kill('SIGKILL'));
  let out = '';
  await new Promise<void>((resolve) =>
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('"msg":"listening"')) resolve();
    }),
  );
  const killed = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await killed;
  const next = await startServer(loadConfig(env), createLogger('silent'));
  t.equal((await request(next.url, '/v1/models')).status, 200, 'no stale lock from the killed process');
  await next.stop();
});

/** Runs the server's entry point in a process of its own until it exits (it is expected to fail). */
function runServerProcess(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [...SERVER_ARGS], { cwd: REPO_ROOT, env: cliEnv(env), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

t.test(
  'when the connections would exceed the open files the process may have, then new ones are closed at once, said once in the log, and the server keeps serving',
  async (t) => {
    const dir = tempDir(t);
    // 600 open files: 88 connections after the server's own 512.
    const child = spawn('sh', ['-c', `ulimit -n 600 && exec "${process.execPath}" ${SERVER_ARGS.join(' ')}`], {
      cwd: REPO_ROOT,
      env: cliEnv({ PDI_DATA_DIR: dir, PDI_DEMO: '0', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', PDI_EMBEDDED_READERS: '0' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.teardown(() => child.kill('SIGKILL'));
    let out = '';
    const url = await new Promise<string>((resolve) =>
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = /"url":"([^"]+)"/.exec(out)?.[1];
        if (found) resolve(found);
      }),
    );
    const { hostname, port } = new URL(url);
    const open = async (n: number) =>
      Promise.all(
        Array.from(
          { length: n },
          () =>
            new Promise<net.Socket>((resolve, reject) => {
              const socket = net.connect(Number(port), hostname, () => resolve(socket));
              socket.on('error', reject);
            }),
        ),
      );
    const held = await open(88);
    const extra = await open(5);
    const closed = await Promise.all(
      extra.map(
        (s) =>
          new Promise<boolean>((resolve) => {
            s.once('close', () => resolve(true));
            setTimeout(() => resolve(false), 5_000).unref();
          }),
      ),
    );
    t.same(closed, [true, true, true, true, true], 'connections past the limit are closed by the server');
    await new Promise((r) => setTimeout(r, 100));
    t.equal(out.split('\n').filter((line) => line.includes('connection limit reached')).length, 1, 'logged once');
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 200));
    t.equal((await request(url, '/v1/models')).status, 200, 'served again once connections end');
  },
);

t.test('when the server starts, then slow clients get 15 s for their headers and 60 s for a request', async (t) => {
  const running = await startServer(
    loadConfig({ PDI_DATA_DIR: tempDir(t), PDI_DEMO: '0', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }),
    createLogger('silent'),
  );
  t.teardown(() => running.stop());
  const http = running.app.server.server;
  t.equal(http.headersTimeout, 15_000);
  t.equal(http.requestTimeout, 60_000);
  t.equal(
    connectionLimit(
      'Limit                     Soft Limit           Hard Limit           Units\nMax open files            20000                20000                files\n',
    ),
    19_488,
  );
  t.equal(connectionLimit('Max open files            100                  100                  files'), 64, 'never below 64');
  t.equal(connectionLimit(null), null, 'no /proc: no cap');
});

t.test('when the server listens on any address, then the listening line names the address bound and its port', async (t) => {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const running = await startServer(loadConfig({ PDI_DATA_DIR: tempDir(t), PDI_DEMO: '0', PORT: '0', HOST: '0.0.0.0', LOG_LEVEL: 'info' }), logger);
  t.teardown(() => running.stop());
  const port = new URL(running.url).port;
  t.match(
    lines.find((l) => l.msg === 'listening'),
    { address: `0.0.0.0:${port}`, url: `http://127.0.0.1:${port}` },
  );
});
