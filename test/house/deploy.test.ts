// The Dockerfile and docker-compose.yml, read as files: no docker daemon is needed. Where the docker CLI
// has the compose plugin, `docker compose config` validates the file as well.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { parse as parseYaml } from 'yaml';
import { REPO_ROOT } from '../helpers/paths.js';

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  image: string;
  name: string;
  body: Instruction[];
}

/** Instructions with continuation lines joined, comments dropped, and the global ARGs' defaults substituted. */
function readDockerfile(text: string): { args: Record<string, string>; stages: Stage[] } {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op, rest] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    const instruction = { op: op.toUpperCase(), args: rest.replace(/\$\{(\w+)\}/g, (_m, name: string) => args[name] ?? `\${${name}}`) };
    if (instruction.op === 'ARG' && stages.length === 0) {
      const [name, value] = rest.split('=');
      args[name] = value;
    } else if (instruction.op === 'FROM') {
      const [image, , name] = instruction.args.split(/\s+/);
      stages.push({ image, name: name ?? '', body: [] });
    } else {
      stages.at(-1)!.body.push(instruction);
    }
  }
  return { args, stages };
}

const dockerfile = readDockerfile(fs.readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8'));
const runtime = dockerfile.stages.at(-1)!;
const ops = (stage: Stage, op: string) => stage.body.filter((i) => i.op === op).map((i) => i.args);

t.test('when the Dockerfile is read, then its runtime stage is an exact Node 24 slim image, and every stage uses the same Node', async (t) => {
  t.ok(dockerfile.stages.length >= 2, 'multi-stage');
  t.match(runtime.image, /^node:24\.\d+\.\d+-bookworm-slim$/);
  const versions = new Set(dockerfile.stages.map((s) => /^node:([\d.]+)-/.exec(s.image)?.[1]));
  t.same([...versions], [/^node:([\d.]+)-/.exec(runtime.image)![1]]);
  const ci = /24\) VERSION=([\d.]+)/.exec(fs.readFileSync(path.join(REPO_ROOT, 'scripts/with-node.sh'), 'utf8'))![1];
  t.equal(/^node:([\d.]+)-/.exec(runtime.image)![1], ci, 'the Node 24 that CI runs (scripts/with-node.sh)');
});

t.test(
  'when the Dockerfile is read, then the build stage compiles dist/ and the runtime stage takes dependencies installed with --omit=dev, the compiled output and no TypeScript sources',
  async (t) => {
    const build = dockerfile.stages.find((s) => ops(s, 'RUN').some((r) => /\bnpm run build\b/.test(r)));
    t.ok(build, 'a stage runs npm run build');
    t.ok(
      ops(runtime, 'COPY').some((c) => c.startsWith(`--from=${build?.name} /app/dist `)),
      'the runtime copies dist/ from it',
    );
    const deps = dockerfile.stages.find((s) => ops(s, 'RUN').some((r) => /\bnpm ci\b.*--omit=dev/.test(r)));
    t.ok(deps, 'a stage runs npm ci --omit=dev');
    const modules = ops(runtime, 'COPY').filter((c) => / node_modules$/.test(c));
    t.same(modules, [`--from=${deps?.name} /app/node_modules node_modules`], 'node_modules comes from that stage only');
    const fromContext = ops(runtime, 'COPY')
      .filter((c) => !c.startsWith('--from='))
      .flatMap((c) => c.split(/\s+/).slice(0, -1));
    t.same(
      fromContext.filter((src) => /^(api|cli|ingest|index-mappings|lib|test)\b|\.ts$/.test(src)),
      [],
      'no sources in the runtime image',
    );
    // Everything copied from the build context is there and not excluded by .dockerignore.
    const ignored = fs
      .readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    const copied = dockerfile.stages
      .flatMap((s) => ops(s, 'COPY'))
      .filter((c) => !c.startsWith('--from='))
      .flatMap((c) => c.split(/\s+/).slice(0, -1));
    for (const src of copied) {
      t.ok(fs.existsSync(path.join(REPO_ROOT, src)), `${src} exists`);
      t.notOk(
        ignored.some((pattern) => src === pattern || src.startsWith(`${pattern}/`)),
        `${src} is in the build context`,
      );
    }
  },
);

t.test(
  'when the Dockerfile is read, then the runtime runs the compiled server as a non-root user, checks /healthz, keeps /data and /models as volumes and puts pdi on PATH',
  async (t) => {
    const users = ops(runtime, 'USER');
    t.equal(users.length, 1);
    t.notMatch(users[0], /^(root|0)(:|$)/, 'not root');
    const cmd = JSON.parse(ops(runtime, 'CMD')[0]) as string[];
    t.same(cmd, ['node', 'dist/api/server.js'], 'plain node on the compiled server');
    t.ok(fs.existsSync(path.join(REPO_ROOT, 'api/server.ts')), 'whose source exists');
    const health = ops(runtime, 'HEALTHCHECK')[0] ?? '';
    const check = JSON.parse(/CMD (\[.*\])$/.exec(health)?.[1] ?? '[]') as string[];
    t.same(check, ['node', 'bin/healthcheck.js']);
    t.match(fs.readFileSync(path.join(REPO_ROOT, 'bin/healthcheck.js'), 'utf8'), "path: '/healthz'", 'which asks /healthz');
    t.same(JSON.parse(ops(runtime, 'VOLUME')[0]), ['/data', '/models']);
    t.match(ops(runtime, 'ENV').join(' '), /PDI_DATA_DIR=\/data\b/);
    t.ok(
      ops(runtime, 'RUN').some((r) => /ln -s \/app\/bin\/pdi\.js \/usr\/local\/bin\/pdi\b/.test(r)),
      'pdi on PATH',
    );
  },
);

const compose = parseYaml(fs.readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, any>;
  volumes: Record<string, unknown>;
};

t.test('when docker-compose.yml is read, then it runs the Elasticsearch 9 that the tests run, single node, with a health check', async (t) => {
  const es = compose.services.elasticsearch;
  const tested = /ES_VERSION="\$\{PDI_ES_VERSION:-([\d.]+)\}"/.exec(fs.readFileSync(path.join(REPO_ROOT, 'scripts/elasticsearch.sh'), 'utf8'))![1];
  t.equal(es.image, `docker.elastic.co/elasticsearch/elasticsearch:${tested}`);
  t.match(tested, /^9\./);
  t.ok(es.environment.includes('discovery.type=single-node'));
  t.ok(es.healthcheck?.test, 'a health check');
  t.equal(es.restart, 'unless-stopped');
});

t.test(
  'when docker-compose.yml is read, then the API and a one-shot ingest run the image built from the Dockerfile, wait for a healthy Elasticsearch and share the data and model volumes',
  async (t) => {
    const { api, ingest } = compose.services;
    for (const [name, service] of Object.entries({ api, ingest })) {
      t.equal(service.build, '.', `${name} is built from the Dockerfile`);
      t.notOk(String(service.image ?? '').startsWith('node:'), `${name} is no stock Node image`);
      t.notMatch(JSON.stringify(service.command ?? ''), /npm (ci|install)/, `${name} installs nothing at start`);
      t.same(service.depends_on, { elasticsearch: { condition: 'service_healthy' } }, `${name} waits for Elasticsearch`);
      t.equal(service.environment.ELASTICSEARCH_URL, 'http://elasticsearch:9200');
      t.equal(service.environment.PDI_DATA_DIR, '/data');
      t.equal(service.environment.PDI_DEMO, '0', `${name}: no demo corpus`);
      // SOURCE:TARGET[:MODE], where SOURCE may hold a ${VAR:-default} with its own colon.
      const mounts = (service.volumes as string[]).map((v) => /^((?:\$\{[^}]*\}|[^:])+):([^:]+)/.exec(v)!.slice(1));
      t.same(
        mounts.filter(([, at]) => at === '/data').map(([from]) => from),
        ['pdi-data'],
        `${name}: the data volume`,
      );
      t.same(
        mounts.filter(([, at]) => at === '/models').map(([from]) => from),
        ['${PDI_MODEL_HOST_DIR:-pdi-models}'],
        `${name}: the model volume`,
      );
      t.notOk(
        mounts.some(([from]) => from === '.' || from.startsWith('./')),
        `${name} mounts no checkout`,
      );
    }
    t.equal(api.restart, 'unless-stopped');
    t.same(ingest.command, ['node', 'dist/cli/pdi.js', 'ingest', '--all']);
    t.equal(ingest.restart, 'no', 'the ingest runs once');
    t.same(Object.keys(compose.volumes).sort(), ['es-data', 'pdi-data', 'pdi-models']);
  },
);

t.test("when docker-compose.yml sets the API's environment, then every variable is one the README documents", async (t) => {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const documented = new Set([...readme.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]));
  t.ok(documented.size > 20, 'the Configuration table was read');
  t.same(
    Object.keys(compose.services.api.environment).filter((name) => !documented.has(name)),
    [],
  );
});

const hasCompose = spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0;
t.test(
  'when the docker CLI has the compose plugin, then docker compose config accepts the file',
  {
    skip: hasCompose ? false : 'docker compose is not installed here: the file was checked by the tests above only',
  },
  async (t) => {
    t.doesNotThrow(() => execFileSync('docker', ['compose', 'config', '--quiet'], { cwd: REPO_ROOT, stdio: 'pipe' }));
  },
);

t.test('when the lockfile is read, then the TypeScript loader and compiler are dev dependencies only: npm ci --omit=dev installs neither', async (t) => {
  const lock = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  for (const name of ['tsx', 'typescript', 'esbuild']) {
    t.ok(lock.packages[`node_modules/${name}`], `${name} is locked`);
    t.equal(lock.packages[`node_modules/${name}`]?.dev, true, `${name} is dev-only`);
  }
});

const HIDDEN_LOCK = path.join('node_modules', '.package-lock.json');

t.test(
  'when the lockfile is compared with the one npm install wrote into node_modules, then they agree on which packages run an install script',
  { skip: fs.existsSync(path.join(REPO_ROOT, HIDDEN_LOCK)) ? false : 'node_modules holds no lockfile of its install' },
  async (t) => {
    // npm install rewrites package-lock.json where they differ, leaving a fresh clone's tree dirty: a lockfile
    // resolved without installing missed hasInstallScript on better-sqlite3 13 (its registry manifest has it).
    const read = (file: string) =>
      JSON.parse(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8')) as { packages: Record<string, { integrity?: string; hasInstallScript?: boolean }> };
    const committed = read('package-lock.json').packages;
    const installed = Object.entries(read(HIDDEN_LOCK).packages).filter(
      ([at, e]) => committed[at]?.integrity !== undefined && committed[at]?.integrity === e.integrity,
    );
    t.ok(installed.length > 100, `the installed packages were compared (${installed.length})`);
    t.same(
      installed.filter(([at, e]) => (e.hasInstallScript === true) !== (committed[at]!.hasInstallScript === true)).map(([at]) => at),
      [],
    );
  },
);
