// The production build (`npm run build`, scripts/build.mjs): the server and the `pdi` command run the
// compiled JavaScript in dist/ with plain node, find what they read by path (docs/openapi.json, worker
// modules), and answer. scripts/test.sh builds once before the tests when dist/ is stale; run alone,
// this file builds it.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { request, tempDir } from '../helpers/app.js';
import { cliEnv } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';

const exec = promisify(execFile);
const DIST = path.join(REPO_ROOT, 'dist');
const WATCH = path.join(REPO_ROOT, 'test/helpers/loader-watch.mjs');
/** Plain node: no flags of this test process (tap's --import=tsx) and none from the environment. */
const plainEnv = (env: Record<string, string>) => ({ ...cliEnv(env), NODE_OPTIONS: '' });

t.before(async () => {
  await exec(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: REPO_ROOT });
});

t.test('when the build has run, then dist/ holds the server, the CLI and the worker modules, and nothing in it imports tsx or a .ts file', async (t) => {
  for (const file of ['api/server.js', 'cli/pdi.js', 'lib/search/embedded/read-worker.js', 'lib/reports/render-worker.js']) {
    t.ok(fs.existsSync(path.join(DIST, file)), file);
  }
  const js = fs.readdirSync(DIST, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
  t.ok(js.length > 100, `${js.length} modules`);
  const loaderImports = js.filter((f) => /(?:from\s*|import\s*\(\s*)['"](?:tsx[/'"]|[^'"]*\.ts['"])/.test(fs.readFileSync(path.join(DIST, f), 'utf8')));
  t.same(loaderImports, []);
});

t.test(
  "when the compiled pdi creates a key and the compiled server starts, then /healthz, /openapi.json, /explore, /v1 and the image's health check answer, with no TypeScript loader in either process",
  async (t) => {
    const dataDir = tempDir(t);
    const created = await exec(process.execPath, ['--import', WATCH, 'bin/pdi.js', 'keys', 'create', '--org', 'Acme', '--tier', 'enterprise', '--json'], {
      cwd: REPO_ROOT,
      env: plainEnv({ PDI_DATA_DIR: dataDir }),
    });
    t.notMatch(created.stderr, /LOADER-IMPORT/, 'pdi ran without tsx');
    t.notMatch(created.stderr, /Warning/, 'and printed no deprecation or experimental warning');
    const { key } = JSON.parse(created.stdout) as { key: string };
    t.match(key, /^pdi_live_/);

    const server = spawn(process.execPath, ['--import', WATCH, 'dist/api/server.js'], {
      cwd: REPO_ROOT,
      env: plainEnv({ PDI_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', PDI_DEMO: '0', LOG_LEVEL: 'info' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    t.teardown(() => {
      server.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    server.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      server.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const found = /"url":"([^"]+)"/.exec(stdout)?.[1];
        if (found) resolve(found);
      });
      void exited.then((code) => reject(new Error(`the server exited (${code}): ${stderr}`)));
    });

    const health = await request(url, '/healthz');
    t.equal(health.status, 200);
    t.equal(health.body.status, 'ok');
    const openapi = await request(url, '/openapi.json');
    t.equal(openapi.status, 200, 'docs/openapi.json is found from dist/');
    t.match(openapi.body.openapi, /^3\.1/);
    // The explore page's script is copied beside the compiled modules, and served.
    const explore = await request(url, '/explore');
    t.equal(explore.status, 200);
    const script = /src="([^"]+\/main\.js)"/.exec(explore.text)?.[1] ?? '';
    const main = await request(url, script);
    t.equal(main.status, 200, `${script} is found in dist/`);
    t.match(main.headers.get('content-type'), /^text\/javascript/);
    const sources = await request(url, '/v1/sources', { key });
    t.equal(sources.status, 200);
    t.equal(sources.body.length, 8, 'every source listed');
    // The embedded engine's searches run on reader threads: their compiled module starts.
    const search = await request(url, '/v1/search?q=%CF%83%CF%8D%CE%BC%CE%B2%CE%B1%CF%83%CE%B7', { key });
    t.equal(search.status, 200, search.text);
    t.same([search.body.total, search.body.results], [0, []], 'an empty index finds nothing');
    // Entity resolution runs on the same reader threads.
    const entity = await request(url, '/v1/entity/094014201?type=afm', { key });
    t.equal(entity.status, 200, entity.text);
    t.equal(entity.body.total, 0, 'no document names it');
    // A report is made on a thread of its own: its compiled module starts too.
    const asked = await request(url, `/v1/reports`, { key, method: 'POST', body: { entity_identifier: '094014201', identifier_type: 'afm' } });
    t.equal(asked.status, 201, asked.text);
    let report = asked.body as { id: string; status: string; error_message?: string | null };
    while (report.status === 'pending') {
      await new Promise((r) => setTimeout(r, 50));
      report = (await request(url, `/v1/reports/${report.id}`, { key })).body;
    }
    t.equal(report.status, 'completed', report.error_message ?? '');

    // The image's HEALTHCHECK command.
    const healthcheck = () =>
      exec(process.execPath, ['bin/healthcheck.js'], { cwd: REPO_ROOT, env: plainEnv({ PORT: new URL(url).port, HOST: '127.0.0.1' }) }).then(
        () => 0,
        (err: { code: number }) => err.code,
      );
    t.equal(await healthcheck(), 0, 'the health check passes while the server answers');

    server.kill('SIGTERM');
    t.equal(await exited, 0, 'stops gracefully');
    t.notMatch(stderr, /LOADER-IMPORT/, 'the server ran without tsx');
    t.notMatch(stderr, /Warning/, 'and printed no deprecation or experimental warning');
    t.equal(await healthcheck(), 1, 'and fails once it is gone');
  },
);

t.test(
  'when a source, a source folder or a tsconfig changes after the build, then dist/ is stale (bin/pdi.js then runs the sources), and not before',
  async (t) => {
    const root = tempDir(t);
    for (const dir of ['api', 'cli', 'ingest', 'index-mappings', 'lib/search', 'dist']) fs.mkdirSync(path.join(root, dir), { recursive: true });
    for (const file of ['api/app.ts', 'lib/search/provider.ts', 'tsconfig.json', 'tsconfig.build.json']) fs.writeFileSync(path.join(root, file), '');
    const stale = async () =>
      (
        await exec(process.execPath, [
          '--input-type=module',
          '-e',
          `import { distStale } from ${JSON.stringify(path.join(REPO_ROOT, 'scripts/build.mjs'))}; console.log(distStale(${JSON.stringify(root)}))`,
        ])
      ).stdout.trim();
    const stampAt = (seconds: number) => {
      const stamp = path.join(root, 'dist/.build-stamp');
      fs.writeFileSync(stamp, '');
      fs.utimesSync(stamp, seconds, seconds);
    };
    const now = Date.now() / 1000;
    t.equal(await stale(), 'true', 'no build yet');
    stampAt(now + 60);
    t.equal(await stale(), 'false', 'built after every change');
    fs.utimesSync(path.join(root, 'lib/search/provider.ts'), now + 120, now + 120);
    t.equal(await stale(), 'true', 'a source edited since');
    stampAt(now + 180);
    fs.writeFileSync(path.join(root, 'lib/search/new.ts'), '');
    fs.utimesSync(path.join(root, 'lib/search/new.ts'), now, now);
    fs.utimesSync(path.join(root, 'lib/search'), now + 240, now + 240);
    t.equal(await stale(), 'true', 'a file added (its folder changed)');
    stampAt(now + 300);
    fs.utimesSync(path.join(root, 'tsconfig.build.json'), now + 360, now + 360);
    t.equal(await stale(), 'true', 'a tsconfig changed');
  },
);
