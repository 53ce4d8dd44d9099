// Comments that cannot go stale: a path a comment names in this repository exists, and no comment sends
// the reader to notes outside it (the research notes, the contract's section numbers, a session's log);
// neither code nor docs cite a tracker's issue or session by its number (the tracker is not in the
// repository: say what the target was and why).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../helpers/paths.js';

const CODE = /\.(ts|mjs|js|sh|lua|py)$/;
const TOP = ['api', 'ingest', 'index-mappings', 'lib', 'cli', 'data', 'test', 'bench', 'scripts', 'docs', 'bin', 'tap-snapshots'];
// A path: a top-level folder of the repository, then segments, ending in a file extension or a slash
// ("docs/s" in "docs/s per second" is not one).
const PATH = new RegExp(String.raw`(?<![\w./-])((?:${TOP.join('|')})/[\w.\-/]*(?:\.[a-z]{1,5}|/))(?![\w/])`, 'g');
// The research notes (sources.md, limits.md, stack.md) and the house style (STYLE.md, DESIGN.md) by
// their bare names too: the repository's own copies are docs/upstream-sources.md, docs/machine-limits.md.
const NOTES = /(?<![\w/.-])(STYLE|DESIGN|sources|limits|stack)\.md\b/;
/** `issue 32`, `Issue 3's`, `sessions 12-13`, `session-7`: a tracker's numbers. */
const TRACKER = /\b(?:issue|session)s?[ -]#?\d+/i;
const OUTSIDE = [/\bresearch\/\w+\.md/, /\bshared\/(spec|research|DESIGN|STYLE)/, NOTES, /\bcontract \d+\.\d+/i, TRACKER];

/** The comment part of each line of a source file (//, /* … *\/ bodies, # in shell and Python). */
function comments(file: string, text: string): { line: number; text: string }[] {
  const hash = /\.(sh|py)$/.test(file);
  const out: { line: number; text: string }[] = [];
  text.split('\n').forEach((line, i) => {
    const at = hash ? line.search(/(^|\s)#/) : line.search(/\/\/|\/\*|^\s*\*/);
    if (at >= 0) out.push({ line: i + 1, text: line.slice(at) });
  });
  return out;
}

function trackedCode(): string[] {
  return execFileSync('git', ['ls-files'], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => CODE.test(f) && !f.startsWith('data/demo/'));
}

t.test('when a comment names a repository path, then that path exists', async (t) => {
  const missing: string[] = [];
  for (const file of trackedCode()) {
    const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
    for (const c of comments(file, text)) {
      for (const [, named] of c.text.matchAll(PATH)) {
        if (/[*{<]/.test(named!)) continue; // a pattern, not a path
        if (!fs.existsSync(path.join(REPO_ROOT, named!))) missing.push(`${file}:${c.line} names ${named}`);
      }
    }
  }
  t.same(missing, []);
});

t.test('when a comment cites something, then it is in this repository, not notes a reader cannot open', async (t) => {
  const outside: string[] = [];
  for (const file of trackedCode()) {
    if (file === 'test/house/comment-paths.test.ts') continue;
    const text = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
    for (const c of comments(file, text)) {
      const hit = OUTSIDE.find((re) => re.test(c.text));
      if (hit) outside.push(`${file}:${c.line}: ${c.text.trim().slice(0, 120)}`);
    }
  }
  t.same(outside, []);
});

t.test("when a comment names the research notes or the house style by a bare name, then it is outside; the repository's docs are not", async (t) => {
  const outside = (s: string) => OUTSIDE.some((re) => re.test(s));
  for (const s of ['// (STYLE.md "Index lifecycle")', '// from sources.md §1.1', '// (limits.md: ανάθεση AND δήμος)', "// limits.md's figures"])
    t.ok(outside(s), s);
  for (const s of ['// docs/upstream-sources.md §1.1', '// docs/machine-limits.md', '// README.md', '// docs/api.md']) t.notOk(outside(s), s);
});

t.test("when the docs are read, then none cites a tracker's issue or session by its number", async (t) => {
  const docs = execFileSync('git', ['ls-files', '*.md'], { cwd: REPO_ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f !== '' && !f.startsWith('data/demo/'));
  t.ok(docs.includes('docs/benchmarks.md') && docs.includes('README.md'), `the docs were found (${docs.length})`);
  const cited: string[] = [];
  for (const file of docs) {
    fs.readFileSync(path.join(REPO_ROOT, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const hit = TRACKER.exec(line);
        if (hit) cited.push(`${file}:${i + 1}: ${hit[0]}`);
      });
  }
  t.same(cited, []);
});

t.test("when a text cites a tracker's number, then the pattern finds it, and not a word that merely follows", async (t) => {
  for (const s of ['(issue 32)', "Issue 3's target", 'sessions 12-13', 'Session 2', 'issue #4']) t.ok(TRACKER.test(s), s);
  for (const s of ['the issues of 2026', 'this session', 'the issue of 2026-11-26', 'sessions of 20 s']) t.notOk(TRACKER.test(s), s);
});

t.test('when the path pattern reads prose, then it tells paths from words', async (t) => {
  const found = (s: string) => [...s.matchAll(PATH)].map((m) => m[1]);
  t.same(found('// see lib/search/provider.ts and docs/api.md.'), ['lib/search/provider.ts', 'docs/api.md']);
  t.same(found('// 40 docs/s on two cores; test/house/ holds them, as test/house/openapi.test.ts.'), ['test/house/', 'test/house/openapi.test.ts']);
});
