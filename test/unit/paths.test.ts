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

t.test('when a worker is started from a TypeScript module, then its JavaScript entry (which registers tsx) is used; from a compiled one, the compiled worker itself', async (t) => {
  t.equal(workerModule('read-worker', 'file:///app/lib/search/embedded/read-pool.ts').href, 'file:///app/lib/search/embedded/read-worker-entry.js');
  t.equal(workerModule('read-worker', 'file:///app/dist/lib/search/embedded/read-pool.js').href, 'file:///app/dist/lib/search/embedded/read-worker.js');
  t.ok(fs.existsSync(new URL(workerModule('entity-reader-worker', new URL('../../lib/entity-readers.ts', import.meta.url).href))), 'the entity reader entry exists beside its module');
});
