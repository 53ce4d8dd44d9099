// npm test's reporter: reads tap's TAP stream on stdin, prints one line per test file as it ends, then
// every failure with its file, its test's name, where it failed and the first lines of its diff.
// The full stream is what scripts/test.sh keeps in .tap/last-run.tap.
import { Parser } from 'tap-parser';

const DIFF_LINES = 16;
const failures = [];
// Per test file: its skipped tests and how many ran, so a file that skipped some shows it on its line.
const skipped = new Map();

function watch(parser) {
  parser.on('child', watch);
  parser.on('assert', (result) => {
    if (!result.ok && !result.todo && !result.skip) failures.push(result);
    const file = result.fullname.split(' > ')[0];
    const counts = skipped.get(file) ?? { ran: 0, reasons: [] };
    if (result.skip) counts.reasons.push(typeof result.skip === 'string' ? result.skip : result.name);
    else counts.ran++;
    skipped.set(file, counts);
  });
}

const root = new Parser((final) => {
  // A failed subtest is also a failed point of its parent: only the innermost failures are listed.
  const leaves = failures.filter((f) => !failures.some((g) => g !== f && g.fullname.startsWith(`${f.fullname} > `)));
  if (leaves.length > 0) process.stdout.write(`\n${leaves.length} failure${leaves.length === 1 ? '' : 's'}:\n`);
  for (const f of leaves) {
    const [file, ...names] = f.fullname.split(' > ');
    process.stdout.write(`\n✗ ${file}\n    ${names.join(' › ') || '(the file itself failed: see its stderr in .tap/last-run.stderr)'}\n`);
    const at = f.diag?.at;
    if (at?.fileName) process.stdout.write(`    at ${at.fileName}:${at.lineNumber}:${at.columnNumber}\n`);
    const detail = f.diag?.diff ?? f.diag?.message ?? f.diag?.stack ?? (f.diag?.error ? String(f.diag.error) : '');
    const lines = String(detail).trimEnd().split('\n').filter(Boolean);
    for (const line of lines.slice(0, DIFF_LINES)) process.stdout.write(`      ${line}\n`);
    if (lines.length > DIFF_LINES) process.stdout.write(`      … ${lines.length - DIFF_LINES} more lines in .tap/last-run.tap\n`);
  }
  if (!final.ok && leaves.length === 0) process.stdout.write('\nthe run failed without a failed test: see .tap/last-run.stderr\n');
});
root.on('child', watch);
root.on('assert', (result) => {
  const inner = skipped.get(result.name) ?? { ran: 0, reasons: [] };
  const allSkipped = result.skip || (result.ok && inner.reasons.length > 0 && inner.ran === 0);
  const mark = allSkipped ? '-' : result.ok ? '✓' : '✗';
  const reasons = result.skip && typeof result.skip === 'string' ? [result.skip] : inner.reasons;
  const why = reasons.length > 0 ? ` (${reasons.length} skipped: ${reasons[0]}${reasons.length > 1 ? ', …' : ''})` : '';
  const secs = typeof result.time === 'number' ? ` ${(result.time / 1000).toFixed(1)} s` : '';
  process.stdout.write(`${mark} ${result.name}${secs}${why}\n`);
  if (!result.ok && !result.skip) failures.push(result);
});
process.stdin.pipe(root);
