// The test files of each run, found by what they use rather than listed or placed in a tier folder, so a
// new test joins the right runs by itself (test/README.md "Runners"):
//
//   node scripts/test-files.mjs elasticsearch [FILE...]   npm run test:es: the files of npm test (or of
//                                                         those given) that reach a real Elasticsearch
//   node scripts/test-files.mjs runtime                   CI on Node 20 and 22 (.ci/run): the files of npm
//                                                         test that use neither Elasticsearch nor Chromium
//
// npm test runs every *.test.ts under test/ but test/reliability/ (package.json "tap"). A file uses what it
// names or what a module of test/ it imports names: Elasticsearch through a helper of
// test/helpers/elasticsearch.ts that connects to a node (elasticsearchUrl, apiTestProvider,
// privateElasticsearch, privateCluster, esScript) or process.env.ELASTICSEARCH_URL; Chromium through
// playwright-core or helpers/chromium.ts's chromiumPath.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** What a test may use that is the same whichever Node runs the tests: each runs once, on Node 24. */
export const PEERS = {
  Elasticsearch: {
    uses: /(?<![.\w])(?:elasticsearchUrl|apiTestProvider|privateElasticsearch|privateCluster|esScript)\b|process\.env\.ELASTICSEARCH_URL\b/,
    // Names the helpers that connect; importing it for its pure helpers (a prefix, a document) is not a use.
    helper: 'test/helpers/elasticsearch.ts',
  },
  Chromium: { uses: /(?<![.\w])chromiumPath\b|\bfrom\s*['"]playwright-core['"]/, helper: 'test/helpers/chromium.ts' },
};

/** The test/ modules `file` imports (relative imports, `.js` written for the `.ts` file). */
function imports(file, text) {
  const out = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)['"](\.[^'"]*)['"]/g)) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1])).replace(/\.js$/, '.ts');
    if (target.startsWith('test/')) out.push(target);
  }
  return out;
}

/** Whether `file` (repository path), or a test/ module it imports, uses `peer`. */
export function uses(file, peer, seen = new Set()) {
  const { uses: pattern, helper } = PEERS[peer];
  if (file === helper || seen.has(file) || !fs.existsSync(path.join(ROOT, file))) return false;
  seen.add(file);
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return pattern.test(text) || imports(file, text).some((f) => uses(f, peer, seen));
}

/** Every *.test.ts of npm test (all under test/ but test/reliability/), sorted. */
export function npmTestFiles() {
  return fs
    .readdirSync(path.join(ROOT, 'test'), { recursive: true })
    .map((f) => path.posix.join('test', f.split(path.sep).join('/')))
    .filter((f) => f.endsWith('.test.ts') && !f.startsWith('test/reliability/'))
    .sort();
}

export const RUNS = {
  elasticsearch: (files = npmTestFiles()) => files.filter((f) => uses(f, 'Elasticsearch')),
  runtime: (files = npmTestFiles()) => files.filter((f) => !Object.keys(PEERS).some((peer) => uses(f, peer))),
};

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const run = RUNS[process.argv[2]];
  if (!run) {
    process.stderr.write(`usage: node scripts/test-files.mjs ${Object.keys(RUNS).join('|')}\n`);
    process.exit(2);
  }
  const given = process.argv.slice(3).map((f) => path.posix.normalize(f.split(path.sep).join('/')));
  const files = run(given.length ? given : undefined);
  if (files.length) process.stdout.write(`${files.join('\n')}\n`);
}
