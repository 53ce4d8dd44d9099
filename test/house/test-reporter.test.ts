// npm test's console reporter (scripts/test-reporter.mjs): one line per test file from the TAP stream.
import { spawnSync } from 'node:child_process';
import t from 'tap';

function report(tap: string): string {
  const run = spawnSync(process.execPath, ['scripts/test-reporter.mjs'], { input: tap, encoding: 'utf8' });
  return run.stdout;
}

const file = (name: string, body: string, ok = true) =>
  `# Subtest: ${name}\n${body
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n${ok ? 'ok' : 'not ok'} 1 - ${name} # time=20ms\n`;

t.test('when a file skipped some of its tests, then its line says how many and why', async (t) => {
  const out = report(
    `TAP version 14\n${file('test/x.test.ts', '# Subtest: a\n    ok 1 - x\n    1..1\nok 1 - a # time=1ms\nok 2 - b # SKIP no fixtures here\n1..2')}1..1\n`,
  );
  t.match(out, /^✓ test\/x\.test\.ts 0\.0 s \(1 skipped: no fixtures here\)$/m);
});

t.test('when every test of a file was skipped, then its line is marked skipped, not passed', async (t) => {
  const out = report(
    `TAP version 14\n${file('test/y.test.ts', 'ok 1 - a # SKIP Elasticsearch is not running\nok 2 - b # SKIP Elasticsearch is not running\n1..2')}1..1\n`,
  );
  t.match(out, /^- test\/y\.test\.ts 0\.0 s \(2 skipped: Elasticsearch is not running, …\)$/m);
});

t.test('when a file ran everything, then its line is a plain pass', async (t) => {
  const out = report(`TAP version 14\n${file('test/z.test.ts', 'ok 1 - a\n1..1')}1..1\n`);
  t.match(out, /^✓ test\/z\.test\.ts 0\.0 s$/m);
});
