// Where tests go and what runs them (test/README.md): a test file sits in a feature folder the README
// places, and the runs follow from what each file uses (scripts/test-files.mjs), never from its folder:
// `npm run test:es` takes every file that reaches Elasticsearch, the runtime subset CI runs on Node 20
// and 22 every file that uses neither Elasticsearch nor Chromium.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../helpers/paths.js';

const TEST_FILES = path.join(REPO_ROOT, 'scripts', 'test-files.mjs');
const { PEERS } = (await import(TEST_FILES)) as { PEERS: Record<string, unknown> };
const run = (name: string) => execFileSync('node', [TEST_FILES, name], { cwd: REPO_ROOT, encoding: 'utf8' }).trim().split('\n');
const elasticsearch = run('elasticsearch');
const runtime = run('runtime');
const scripts = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
const readme = fs.readFileSync(path.join(REPO_ROOT, 'test/README.md'), 'utf8');
const ci = fs.readFileSync(path.join(REPO_ROOT, '.ci/run'), 'utf8');
/** Every *.test.ts under test/, as a repository path. */
const testFiles = fs
  .readdirSync(path.join(REPO_ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .map((f) => `test/${f.split(path.sep).join('/')}`)
  .filter((f) => f.endsWith('.test.ts'));
const npmTest = testFiles.filter((f) => !f.startsWith('test/reliability/'));

/** The folders of test/ the README's table places: `| \`search/\` | … |`. */
function placedFolders(text: string): string[] {
  return [...text.matchAll(/^\| `([\w-]+)\/` \|/gm)].map((m) => m[1]!);
}
/** Folders that hold no test files. */
const NO_TESTS = ['helpers', 'fixtures'];

/** The test files not at test/<folder>/<name>.test.ts with <folder> a feature folder of `folders`. */
function misplaced(files: string[], folders: string[]): string[] {
  return files.filter((f) => {
    const parts = f.split('/');
    return parts.length !== 3 || parts[0] !== 'test' || !folders.includes(parts[1]!) || NO_TESTS.includes(parts[1]!);
  });
}

t.test('when the tests are read, then test:es runs each one that reaches Elasticsearch, and none that only shares its helpers', async (t) => {
  t.equal(scripts['test:es'], 'bash scripts/test.sh $(node scripts/test-files.mjs elasticsearch)', 'the list is derived, not written down');
  const named = npmTest.filter((f) => /elasticsearch[^/]*\.test\.ts$/.test(f) && !f.endsWith('/elasticsearch-bodies.test.ts'));
  t.ok(named.length >= 10, `${named.length} files named for the engine`);
  t.same(
    named.filter((f) => !elasticsearch.includes(f)),
    [],
    'every file named for Elasticsearch (elasticsearch-bodies tests the request bodies, no node)',
  );
  for (const f of ['test/server/client-gone.test.ts', 'test/embedding/embedding-service.test.ts', 'test/ask/cpv-labels.test.ts']) {
    t.ok(elasticsearch.includes(f), `${f}: runs both engines or a proxy in front of one`);
  }
  for (const f of ['test/entities/entity-index.test.ts', 'test/server/config.test.ts', 'test/server/health.test.ts']) {
    t.notOk(elasticsearch.includes(f), `${f}: a document builder, a config key or a closed port, no node`);
  }
  t.notOk(
    elasticsearch.some((f) => f.startsWith('test/reliability/')),
    'the reliability suite runs its own',
  );
});

t.test('when test/README.md is read, then it places each folder of test/ and names every run', async (t) => {
  const folders = fs
    .readdirSync(path.join(REPO_ROOT, 'test'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  t.same(
    folders.filter((f) => !placedFolders(readme).includes(f)),
    [],
    'a row for each folder',
  );
  for (const run of ['npm test', 'npm run test:es', 'npm run test:reliability']) t.ok(readme.includes(`\`${run}\``), run);
});

t.test('when the test files are read, then each sits one level down in a feature folder the README places', async (t) => {
  t.ok(testFiles.length > 150, `the test files were found (${testFiles.length})`);
  t.same(misplaced(testFiles, placedFolders(readme)), []);
  t.same(
    placedFolders(readme).filter((f) => ['unit', 'integration', 'api', 'e2e'].includes(f)),
    [],
    'a folder is named for a feature, not for a kind of test',
  );
});

t.test('when a test file sits outside the feature folders, then it is named', async (t) => {
  const folders = ['search', 'ingest', 'helpers', 'reliability'];
  t.same(
    misplaced(
      [
        'test/search/snippet.test.ts',
        'test/reliability/limits.test.ts',
        'test/snippet.test.ts',
        'test/unit/snippet.test.ts',
        'test/ingest/sources/ted.test.ts',
        'test/helpers/app.test.ts',
      ],
      folders,
    ),
    ['test/snippet.test.ts', 'test/unit/snippet.test.ts', 'test/ingest/sources/ted.test.ts', 'test/helpers/app.test.ts'],
  );
});

/** The README's rule for the runtime subset: its command and what its files use neither of. */
function runtimeRule(text: string): { command: string; peers: string[] } | null {
  const m = /^- The runtime subset, what CI runs on Node 20 and 22 \(`\.ci\/run`\): `([^`]+)`, every file of `npm test` that uses neither (.+?)\.$/m.exec(text);
  return m ? { command: m[1]!, peers: m[2]!.split(/, | nor /) } : null;
}

/** The command .ci/run lists the runtime subset's files with. */
function ciRuntimeCommand(text: string): string | null {
  const m = /^runtime_tests\(\) \{\n(?:.*\n)*?\s*mapfile -t files < <\(\$runner (node [^)]+)\)\n/m.exec(text);
  return m ? m[1]! : null;
}

t.test('when the README and .ci/run are read, then they state one rule for the runtime subset, and the files follow it', async (t) => {
  const rule = runtimeRule(readme);
  t.ok(rule, "the README states the runtime subset's rule");
  t.equal(ciRuntimeCommand(ci), rule?.command, '.ci/run lists the files with the command the README names');
  t.same(rule?.peers, Object.keys(PEERS), 'the README names what scripts/test-files.mjs leaves out');
  for (const run of ['runtime_tests ""', 'runtime_tests "$node22"']) t.ok(ci.includes(run), `.ci/run: ${run}`);
  t.same(
    npmTest.filter((f) => !runtime.includes(f) && !elasticsearch.includes(f) && !/-chromium\.test\.ts$/.test(f)),
    [],
    'every file of npm test that uses neither is in the subset',
  );
  t.same(
    runtime.filter((f) => elasticsearch.includes(f)),
    [],
    'none that reaches Elasticsearch',
  );
  for (const f of ['test/web/explore-chromium.test.ts', 'test/search/documents-elasticsearch.test.ts', 'test/reliability/limits.test.ts']) {
    t.notOk(runtime.includes(f), `${f} is not in the subset`);
  }
  for (const f of ['test/house/lint.test.ts', 'test/search/documents-embedded.test.ts', 'test/embedded/embedded-vectors.test.ts', 'test/web/explore.test.ts']) {
    t.ok(runtime.includes(f), `${f} is in the subset`);
  }
});

t.test('when .ci/run or the README says another rule, then the check sees it', async (t) => {
  const stated =
    '- The runtime subset, what CI runs on Node 20 and 22 (`.ci/run`): `node scripts/test-files.mjs runtime`, every file of `npm test` that uses neither Elasticsearch nor Chromium.';
  t.same(runtimeRule(stated), { command: 'node scripts/test-files.mjs runtime', peers: ['Elasticsearch', 'Chromium'] });
  t.same(runtimeRule(stated.replace('nor Chromium', 'nor Chromium nor the model'))?.peers, ['Elasticsearch', 'Chromium', 'the model']);
  t.equal(runtimeRule(stated.replace('uses neither', 'needs')), null);
  const ciText = 'runtime_tests() {\n  local runner=$1 files\n  mapfile -t files < <($runner node scripts/test-files.mjs runtime)\n}\n';
  t.equal(ciRuntimeCommand(ciText), 'node scripts/test-files.mjs runtime');
  t.equal(ciRuntimeCommand(ciText.replace('$runner node scripts/test-files.mjs runtime', "find test/unit -name '*.test.ts'")), null);
});

t.test("when npm test starts a test file, then tsx loads its TypeScript and tap's TypeScript plugin (ts-node, type-checking) is not loaded", async (t) => {
  // tap builds its test class for package.json's plugins too late for the first run after an install:
  // scripts/test.sh builds it first (CI's runs each follow an npm ci).
  const loaders = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
  t.match(loaders, /--import[= ]tsx\b/);
  t.notMatch(loaders, /@tapjs\/typescript|ts-node/);
});
