// The server and the pdi command on the Node that runs the tests (CI: 20, 22 and 24) print no warning of
// Node's own: restify 11 reached process.binding('http_parser') (DEP0111), which every start hid with a
// flag, and cannot start at all on Node 24.
import { spawn } from 'node:child_process';
import t from 'tap';
import { request, tempDir } from '../helpers/app.js';
import { cliEnv, pdi } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';

/** Node writes every process warning (deprecations included) as "(node:PID) …" on stderr. */
const NODE_WARNING = /\(node:\d+\)|DeprecationWarning|ExperimentalWarning/;

t.test(`when the server starts, loads the demo corpus and answers, then Node ${process.version} prints no warning`, async (t) => {
  const dir = tempDir(t);
  const created = await pdi(dir, ['keys', 'create', '--org', 'Acme', '--tier', 'enterprise']);
  t.equal(created.code, 0, created.stderr);
  t.notMatch(created.stderr, NODE_WARNING, 'pdi keys create');
  const key = /pdi_live_\w+/.exec(created.stdout)![0];

  // npm start, as an operator starts it: the flags of package.json's start script included. The demo
  // load runs the ingest pipeline and the reader threads, so their modules are loaded too.
  const npm = spawn('npm', ['start'], {
    cwd: REPO_ROOT,
    env: cliEnv({ PDI_DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => {
    try {
      process.kill(-npm.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  });
  let out = '';
  let stderr = '';
  npm.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const loaded = new Promise<string>((resolve) => {
    npm.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /"url":"([^"]+)"/.exec(out)?.[1];
      if (url && out.includes('"msg":"demo corpus loaded"')) resolve(url);
    });
  });
  const url = await loaded;
  t.equal((await request(url, '/v1/search?q=σύμβαση', { key })).status, 200);
  t.equal((await request(url, '/v1/stats', { key })).status, 200);
  const exited = new Promise<number | null>((resolve) => npm.once('exit', resolve));
  process.kill(npm.pid!, 'SIGTERM');
  t.equal(await exited, 0);
  t.notMatch(stderr, NODE_WARNING, 'the server');

  // Its exit code says whether the engine answered within 5 s, which a loaded machine may miss.
  const status = await pdi(dir, ['status']);
  t.match(status.stdout, /^engine embedded; /m, status.stderr);
  t.notMatch(status.stderr, NODE_WARNING, 'pdi status');
});
