// The layout's boundaries (README "Layout"), read from the imports themselves.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../helpers/paths.js';

const CODE = ['api', 'cli', 'ingest', 'index-mappings', 'lib'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|js)$/.test(e.name))
    .map((e) => path.relative(REPO_ROOT, path.join(e.parentPath, e.name)));
}

/** The top-level folder of each of our files `file` imports (static, re-exported or dynamic). */
function importedFolders(file: string, text: string): { spec: string; folder: string }[] {
  const found: { spec: string; folder: string }[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.[^'"]*)['"]/gm)) {
    const target = path.normalize(path.join(path.dirname(file), m[1]));
    found.push({ spec: m[1], folder: target.split(path.sep)[0] });
  }
  return found;
}

/** Which of our folders each folder may import (besides itself); api/server.ts and cli/ compose. */
const ALLOWED: Record<string, string[]> = {
  'index-mappings': [],
  lib: ['index-mappings'],
  ingest: ['index-mappings', 'lib'],
  api: ['index-mappings', 'lib'],
  cli: ['index-mappings', 'lib', 'ingest', 'api'],
};
const COMPOSERS: Record<string, string[]> = { 'api/server.ts': ['ingest'] };

t.test('when the code is read, then every import keeps to the layout: index-mappings imports nothing of ours, lib neither api nor ingest, ingest nothing from api, and only api/server.ts and cli/ import both sides', async (t) => {
  const broken: string[] = [];
  let imports = 0;
  for (const dir of CODE) {
    for (const file of sourceFiles(dir)) {
      for (const { spec, folder } of importedFolders(file, fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'))) {
        imports++;
        if (folder === dir || ALLOWED[dir].includes(folder) || COMPOSERS[file]?.includes(folder)) continue;
        broken.push(`${file} imports ${spec} (${folder}/)`);
      }
    }
  }
  t.ok(imports > 100, `the imports were found (${imports})`);
  t.same(broken, [], 'no import crosses a boundary');
});

t.test('when a file imports across a boundary, then the reader sees it', async (t) => {
  t.same(importedFolders('lib/search/x.ts', "import { a } from '../../api/app.js';\nconst m = await import('../../ingest/demo.js');\nexport * from './y.js';"), [
    { spec: '../../api/app.js', folder: 'api' },
    { spec: '../../ingest/demo.js', folder: 'ingest' },
    { spec: './y.js', folder: 'lib' },
  ]);
  t.same(importedFolders('index-mappings/a.ts', "import type { SourceName } from '../lib/sources.js';"), [{ spec: '../lib/sources.js', folder: 'lib' }]);
  t.same(importedFolders('lib/a.ts', "import fs from 'node:fs';\nimport { pino } from 'pino';"), [], 'packages are not ours');
});

t.test('when the README is read, then its Layout names every top-level folder of the tree, one line each', async (t) => {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const block = /## Layout\n\n```\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const listed = block.split('\n').filter(Boolean).map((line) => line.split(/\s+/)[0].replace(/\/$/, ''));
  const ignored = new Set(['.git', 'node_modules', 'var', '.tap', 'dist']);
  const tree = fs.readdirSync(REPO_ROOT, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !ignored.has(e.name) && !e.name.startsWith('.tap'))
    .map((e) => e.name);
  t.same([...listed].sort(), [...tree].sort());
});
