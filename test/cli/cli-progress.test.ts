// Progress of long runs (cli/progress.ts) as an operator sees it: on a terminal (a pseudo-terminal made
// by util-linux `script`), one line rewritten in place; piped, no progress and one line per run.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import t from 'tap';
import { tempDir } from '../helpers/app.js';
import { cliEnv, pdi } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/paths.js';

const exec = promisify(execFile);
const SCRIPT = ['/usr/bin/script', '/bin/script'].find((p) => existsSync(p));
const skip = SCRIPT ? false : 'no util-linux `script` to run pdi on a pseudo-terminal';

/** `pdi ...args` on a pseudo-terminal: what the terminal received (stdout and stderr together). */
async function onTerminal(dataDir: string, args: string[]): Promise<string> {
  // The Node running the tests (CI runs several versions), quoted for the shell that script starts.
  const command = [process.execPath, 'bin/pdi.js', ...args].map((a) => `'${a}'`).join(' ');
  const { stdout } = await exec(SCRIPT!, ['-qec', command, '/dev/null'], { cwd: REPO_ROOT, env: cliEnv({ PDI_DATA_DIR: dataDir }) });
  return stdout;
}

/** The lines drawn in place: each begins with a carriage return and an erase to the end of the line. */
const drawn = (screen: string) =>
  screen
    .split('\r\x1b[K')
    .slice(1)
    .map((l) => l.replace(/\r?\n[\s\S]*$/, ''))
    .filter((l) => l !== '');
const rates = (lines: string[]) => lines.flatMap((l) => [...l.matchAll(/([\d.]+) documents\/s/g)].map((m) => Number(m[1])));

t.test(
  'when pdi ingest and pdi reindex run on a terminal, then one line rewritten in place shows the documents, their rate over the run and, for a rebuild, the time left',
  { skip },
  async (t) => {
    const dir = tempDir(t);
    const ingest = await onTerminal(dir, ['ingest', 'kimdis', '--from', 'data/demo/kimdis']);
    const summary = /kimdis: pages 18 {2}fetched 730 .*\(([\d.]+) s, ([\d.]+) documents\/s\) done/.exec(ingest);
    t.ok(summary, `the run's line at the end: ${JSON.stringify(ingest.slice(-300))}`);
    const lines = drawn(ingest).filter((l) => !l.includes(' done'));
    t.ok(lines.length >= 2, `a line a page (${lines.length})`);
    t.ok(
      lines.every((l) => /^kimdis: pages \d+ {2}fetched \d+ {2}new \d+ .* [\d.]+ documents\/s$/.test(l)),
      `each shows the documents and their rate: ${JSON.stringify(lines.slice(0, 2))}`,
    );
    // Timed over the whole run, no line's rate is far past the run's: timed from the first page shown,
    // the first read millions a second.
    const overall = Number(summary![2]);
    t.same(
      rates(lines).filter((r) => r > 20 * overall),
      [],
      `rates of the run (${overall} documents/s at the end)`,
    );

    const reindex = await onTerminal(dir, ['reindex', 'kimdis']);
    t.match(reindex, /kimdis: 500 of 730 documents {2}[\d.]+ documents\/s, about \d+ (s|min) left/, 'a rebuild shows the time left');
    t.match(reindex, /kimdis: 730 documents now served by \S+ \(0 embedded, [\d.]+ s, [\d.]+ documents\/s\)/);
  },
);

t.test('when pdi ingest and pdi reindex are piped, then nothing is drawn in place and each run prints one line', async (t) => {
  const dir = tempDir(t);
  const ingest = await pdi(dir, ['ingest', 'kimdis', '--from', 'data/demo/kimdis']);
  t.equal(ingest.code, 0, ingest.stderr);
  t.equal(ingest.stderr, '');
  t.match(ingest.stdout, /^kimdis: pages 18 {2}fetched 730 {2}new 730 .*\([\d.]+ s, [\d.]+ documents\/s\) done\n$/);
  const reindex = await pdi(dir, ['reindex', 'kimdis']);
  t.equal(reindex.code, 0, reindex.stderr);
  t.equal(reindex.stderr, '');
  t.match(reindex.stdout, /^kimdis: 730 documents now served by \S+ \(0 embedded, [\d.]+ s, [\d.]+ documents\/s\)\n$/);
});
