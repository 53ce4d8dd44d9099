import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { PROJECT_ROOT, projectPath, workerModule } from '../../lib/paths.js';
import { REPO_ROOT } from '../helpers/paths.js';

t.test('when the code runs from its sources, then the project root is the checkout and its files are found', async (t) => {
  t.equal(PROJECT_ROOT, REPO_ROOT);
  t.ok(fs.existsSync(projectPath('docs', 'openapi.json')));
  t.equal(projectPath('data', 'demo'), path.join(REPO_ROOT, 'data', 'demo'));
});

t.test(
  'when a worker is started from a TypeScript module, then its JavaScript entry (which registers tsx) is used; from a compiled one, the compiled worker itself',
  async (t) => {
    t.equal(workerModule('read-worker', 'file:///app/lib/search/embedded/read-pool.ts').href, 'file:///app/lib/search/embedded/read-worker-entry.js');
    t.equal(workerModule('read-worker', 'file:///app/dist/lib/search/embedded/read-pool.js').href, 'file:///app/dist/lib/search/embedded/read-worker.js');
    t.ok(
      fs.existsSync(new URL(workerModule('render-worker', new URL('../../lib/reports/render.ts', import.meta.url).href))),
      'the report thread entry exists beside its module',
    );
  },
);

const SOURCE_DIRS = ['api', 'cli', 'ingest', 'index-mappings', 'lib'];
/** The folders of static files that scripts/build.mjs copies beside the compiled modules (its STATIC_DIRS). */
const STATIC_DIRS = JSON.parse(
  (/const STATIC_DIRS = (\[[^\]]*\])/.exec(fs.readFileSync(path.join(REPO_ROOT, 'scripts', 'build.mjs'), 'utf8'))?.[1] ?? '[]').replaceAll("'", '"'),
) as string[];
const sourceFiles = () =>
  SOURCE_DIRS.flatMap((dir) => fs.readdirSync(path.join(REPO_ROOT, dir), { recursive: true, encoding: 'utf8' }).map((f) => path.join(dir, f))).filter((f) =>
    fs.statSync(path.join(REPO_ROOT, f)).isFile(),
  );

t.test(
  'when the sources are read, then every file besides TypeScript is a worker entry for the sources, or in a folder the build copies: tsc copies nothing else into dist/',
  async (t) => {
    const files = sourceFiles();
    t.ok(files.length > 100);
    t.ok(STATIC_DIRS.length > 0, 'the build names its static folders');
    t.same(
      files.filter((f) => !f.endsWith('.ts') && !f.endsWith('-entry.js') && !STATIC_DIRS.some((dir) => f.startsWith(`${dir}${path.sep}`))),
      [],
    );
  },
);

t.test(
  'when the sources are read, then import.meta.url serves only to resolve packages, worker modules and the static files the build copies beside them: files are found with projectPath, which holds from dist/ too',
  async (t) => {
    const allowed =
      /createRequire\(import\.meta\.url\)|workerModule\([^)]*import\.meta\.url\)|import\.meta\.url === pathToFileURL\(process\.argv\[1\]|new URL\('\.\/assets\/', import\.meta\.url\)/;
    const found = sourceFiles()
      .filter((f) => f.endsWith('.ts') && f !== path.join('lib', 'paths.ts'))
      .flatMap((f) =>
        fs
          .readFileSync(path.join(REPO_ROOT, f), 'utf8')
          .split('\n')
          .filter((line) => line.includes('import.meta.url') && !allowed.test(line))
          .map((line) => `${f}: ${line.trim()}`),
      );
    t.same(found, []);
  },
);
