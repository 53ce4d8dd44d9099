// The layout's boundaries (README "Layout"), read from the imports themselves.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../helpers/paths.js';

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|js)$/.test(e.name))
    .map((e) => path.relative(REPO_ROOT, path.join(e.parentPath, e.name)));
}

/** The repository path of each of our files `file` imports (static, re-exported or dynamic). */
function importedPaths(file: string, text: string): { spec: string; target: string }[] {
  const found: { spec: string; target: string }[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.[^'"]*)['"]/gm)) {
    found.push({ spec: m[1], target: path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1])) });
  }
  return found;
}

/** What each folder may import of ours besides itself (path prefixes); api/server.ts and cli/ compose. */
const ALLOWED: Record<string, string[]> = {
  'index-mappings': [],
  lib: ['index-mappings/'],
  ingest: ['index-mappings/', 'lib/'],
  api: ['index-mappings/', 'lib/'],
  cli: ['index-mappings/', 'lib/', 'ingest/', 'api/'],
};
const COMPOSERS: Record<string, string[]> = { 'api/server.ts': ['ingest/'] };

t.test(
  'when the code is read, then every import keeps to the layout: index-mappings imports nothing of ours, lib neither api nor ingest, ingest nothing from api, and only api/server.ts and cli/ import both sides',
  async (t) => {
    const broken: string[] = [];
    let imports = 0;
    for (const [dir, allowed] of Object.entries(ALLOWED)) {
      for (const file of sourceFiles(dir)) {
        for (const { spec, target } of importedPaths(file, fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'))) {
          imports++;
          const may = [`${dir}/`, ...allowed, ...(COMPOSERS[file] ?? [])];
          if (!may.some((prefix) => target.startsWith(prefix))) broken.push(`${file} imports ${spec}`);
        }
      }
    }
    t.ok(imports > 100, `the imports were found (${imports})`);
    t.same(broken, [], 'no import crosses a boundary');
  },
);

/**
 * Inside api/ a feature keeps to its folder (routes, store, jobs together). Its routes.ts is composed by
 * api/app.ts alone (the CLI reads api/reports/request.ts, not a route module); a feature imports another
 * only as listed; the rest of api/ (db/, middleware/, routes/, presenters/, mcp/, dashboard/) imports no
 * feature, only the composers do.
 */
const FEATURES: Record<string, string[]> = {
  'api/alerts/': ['api/monitoring/store.'], // the watcher raises the monitored entities' events
  'api/monitoring/': [],
  'api/reports/': [],
};
const FEATURE_COMPOSERS = ['api/app.ts', 'api/context.ts', 'api/server.ts'];

/** Why `file` may not import `target` under the feature rules, or null when it may. */
function featureBreak(file: string, target: string): string | null {
  const feature = Object.keys(FEATURES).find((f) => target.startsWith(f));
  if (feature === undefined) return null;
  if (/^api\/[^/]+\/routes\.[jt]s$/.test(target) && file !== 'api/app.ts') return 'a route module is composed by api/app.ts alone';
  const own = Object.keys(FEATURES).find((f) => file.startsWith(f));
  if (own === feature) return null;
  if (own !== undefined) return FEATURES[own]!.some((p) => target.startsWith(p)) ? null : `${own} does not import ${feature}`;
  if (file.startsWith('api/') && !FEATURE_COMPOSERS.includes(file)) return 'only api/app.ts, context.ts and server.ts compose features';
  return null;
}

t.test(
  'when api/ and cli/ are read, then each feature keeps to its folder: its routes composed by api/app.ts alone, another feature imported only as listed, the shared folders of api/ importing none',
  async (t) => {
    const broken: string[] = [];
    let imports = 0;
    for (const file of [...sourceFiles('api'), ...sourceFiles('cli')]) {
      for (const { spec, target } of importedPaths(file, fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'))) {
        if (Object.keys(FEATURES).some((f) => target.startsWith(f))) imports++;
        const why = featureBreak(file, target);
        if (why) broken.push(`${file} imports ${spec}: ${why}`);
      }
    }
    t.ok(imports > 20, `the imports of features were found (${imports})`);
    t.same(broken, [], 'no import crosses a feature boundary');
  },
);

t.test('when a file imports a feature across its boundary, then the rule names it', async (t) => {
  t.equal(featureBreak('cli/report.ts', 'api/reports/routes.js'), 'a route module is composed by api/app.ts alone');
  t.equal(featureBreak('api/monitoring/routes.ts', 'api/alerts/routes.js'), 'a route module is composed by api/app.ts alone');
  t.equal(featureBreak('api/reports/service.ts', 'api/alerts/store.js'), 'api/reports/ does not import api/alerts/');
  t.equal(featureBreak('api/monitoring/store.ts', 'api/alerts/input.js'), 'api/monitoring/ does not import api/alerts/');
  t.equal(featureBreak('api/db/keys.ts', 'api/reports/store.js'), 'only api/app.ts, context.ts and server.ts compose features');
  t.equal(featureBreak('api/alerts/watcher.ts', 'api/monitoring/store.js'), null, 'as listed');
  t.equal(featureBreak('api/alerts/deliveries.ts', 'api/alerts/channels/index.js'), null, 'its own folder');
  t.equal(featureBreak('cli/report.ts', 'api/reports/request.js'), null, 'the CLI composes');
  t.equal(featureBreak('api/app.ts', 'api/alerts/routes.js'), null);
});

t.test('when a file imports across a boundary, then the reader sees it', async (t) => {
  t.same(
    importedPaths(
      'lib/search/x.ts',
      "import { a } from '../../api/app.js';\nconst m = await import('../../ingest/demo.js');\nexport * from './y.js';\nimport './z.js';",
    ),
    [
      { spec: '../../api/app.js', target: 'api/app.js' },
      { spec: '../../ingest/demo.js', target: 'ingest/demo.js' },
      { spec: './y.js', target: 'lib/search/y.js' },
      { spec: './z.js', target: 'lib/search/z.js' },
    ],
  );
  t.same(importedPaths('index-mappings/a.ts', "import type { SourceName } from '../lib/sources.js';"), [
    { spec: '../lib/sources.js', target: 'lib/sources.js' },
  ]);
  t.same(importedPaths('lib/a.ts', "import fs from 'node:fs';\nimport { pino } from 'pino';"), [], 'packages are not ours');
});

t.test('when the CLI is read, then it never tests for an engine class: what differs by engine is behind SearchProvider or in ingest/', async (t) => {
  const found = sourceFiles('cli').filter((file) =>
    /instanceof\s+\w*(Provider|Embedded|Elasticsearch)\w*/.test(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8')),
  );
  t.same(found, []);
});

/** A module a reader can hold in their head: a longer file holds two concerns, to be split by concern. */
const MAX_LINES = 500;

t.test(`when the code is read, then no source file of api/, ingest/, lib/ or cli/ is over ${MAX_LINES} lines`, async (t) => {
  const files = ['api', 'ingest', 'lib', 'cli'].flatMap(sourceFiles);
  t.ok(files.length > 100, `the files were found (${files.length})`);
  const lines = (file: string) => fs.readFileSync(path.join(REPO_ROOT, file), 'utf8').split('\n').length - 1;
  t.same(
    files.filter((file) => lines(file) > MAX_LINES).map((file) => `${file}: ${lines(file)} lines`),
    [],
  );
});

t.test('when the README is read, then its Layout names every top-level folder of the tree, one line each', async (t) => {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const block = /## Layout\n\n```\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const listed = block
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(/\s+/)[0].replace(/\/$/, ''));
  const ignored = new Set(['.git', 'node_modules', 'var', '.tap', 'dist']);
  const tree = fs
    .readdirSync(REPO_ROOT, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !ignored.has(e.name) && !e.name.startsWith('.tap'))
    .map((e) => e.name);
  t.same([...listed].sort(), [...tree].sort());
});

t.test('when the README is read, then the Layout line of api/, lib/ and ingest/ names each folder inside it', async (t) => {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const block = /## Layout\n\n```\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  for (const top of ['api', 'lib', 'ingest']) {
    const line = block.split('\n').find((l) => l.startsWith(`${top}/`)) ?? '';
    const folders = fs
      .readdirSync(path.join(REPO_ROOT, top), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    t.ok(folders.length >= 3, `${top}/ has folders (${folders.join(', ')})`);
    t.same(
      folders.filter((f) => !new RegExp(String.raw`(^|[\s(,])${f}/`).test(line.slice(top.length + 1))),
      [],
      `${top}/: every folder is named`,
    );
  }
});
