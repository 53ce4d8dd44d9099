// Where tests go and what runs them (test/README.md): `npm run test:es` runs every test of the npm test
// tier that reaches Elasticsearch, found by scripts/elasticsearch-tests.mjs from what each uses.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../helpers/paths.js';

const found = execFileSync('node', ['scripts/elasticsearch-tests.mjs'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim().split('\n');
const scripts = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;

t.test('when the tests are read, then test:es runs each one that reaches Elasticsearch, and none that only shares its helpers', async (t) => {
  t.equal(scripts['test:es'], 'bash scripts/test.sh $(node scripts/elasticsearch-tests.mjs)', 'the list is derived, not written down');
  const named = fs
    .readdirSync(path.join(REPO_ROOT, 'test'), { recursive: true, encoding: 'utf8' })
    .map((f) => `test/${f.split(path.sep).join('/')}`)
    .filter((f) => /^test\/(integration|api)\/.*elasticsearch[^/]*\.test\.ts$/.test(f));
  t.ok(named.length >= 6, `${named.length} files named for the engine`);
  t.same(
    named.filter((f) => !found.includes(f)),
    [],
    'every integration and API file named for Elasticsearch (unit/search/ tests its request bodies, no node)',
  );
  for (const f of ['test/server/client-gone.test.ts', 'test/embedding/embedding-service.test.ts', 'test/ask/cpv-labels.test.ts']) {
    t.ok(found.includes(f), `${f}: runs both engines or a proxy in front of one`);
  }
  for (const f of ['test/entities/entity-index.test.ts', 'test/server/config.test.ts', 'test/server/health.test.ts']) {
    t.notOk(found.includes(f), `${f}: a document builder, a config key or a closed port, no node`);
  }
  t.notOk(
    found.some((f) => f.startsWith('test/reliability/')),
    'the reliability suite runs its own',
  );
});

t.test('when test/README.md is read, then it places each folder of test/ and names both runs', async (t) => {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'test/README.md'), 'utf8');
  const folders = fs
    .readdirSync(path.join(REPO_ROOT, 'test'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  t.same(
    folders.filter((f) => !readme.includes(`| \`${f}/\` |`)),
    [],
    'a row for each folder',
  );
  for (const run of ['npm test', 'npm run test:es', 'npm run test:reliability']) t.ok(readme.includes(`\`${run}\``), run);
});
