// npm run test:es: the test files of the npm test tier (not test/reliability/, which npm run
// test:reliability runs) that reach a real Elasticsearch, found by what they use rather than listed, so
// a new one is never left out: a helper of test/helpers/elasticsearch.ts that connects to a node
// (elasticsearchUrl, apiTestProvider, privateElasticsearch, privateCluster, esScript), or
// process.env.ELASTICSEARCH_URL, in the file or in a module of test/ it imports.
//
//   node scripts/elasticsearch-tests.mjs     prints them, one a line
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const REACHES = /(?<![.\w])(?:elasticsearchUrl|apiTestProvider|privateElasticsearch|privateCluster|esScript)\b|process\.env\.ELASTICSEARCH_URL\b/;
const HELPER = 'test/helpers/elasticsearch.ts';

/** The test/ modules `file` imports (relative imports, `.js` written for the `.ts` file). */
function imports(file, text) {
  const out = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)['"](\.[^'"]*)['"]/g)) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1])).replace(/\.js$/, '.ts');
    if (target.startsWith('test/') && target !== HELPER) out.push(target);
  }
  return out;
}

/** Whether `file` (repository path) or a test/ module it imports reaches Elasticsearch. */
function reaches(file, seen = new Set()) {
  if (seen.has(file) || !fs.existsSync(path.join(ROOT, file))) return false;
  seen.add(file);
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return REACHES.test(text) || imports(file, text).some((f) => reaches(f, seen));
}

/** Every *.test.ts under test/ but test/reliability/ that reaches Elasticsearch, sorted. */
export function elasticsearchTests() {
  return fs
    .readdirSync(path.join(ROOT, 'test'), { recursive: true })
    .map((f) => path.posix.join('test', f.split(path.sep).join('/')))
    .filter((f) => f.endsWith('.test.ts') && !f.startsWith('test/reliability/'))
    .filter((f) => reaches(f))
    .sort();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`${elasticsearchTests().join('\n')}\n`);
}
