// One progress line on a terminal (rewritten in place), nothing when piped; a summary line at the end.
import type { Progress, RunSummary } from '../ingest/pipeline.js';
import { printable } from '../lib/terminal.js';

const tty = process.stderr.isTTY;

function line(p: Progress): string {
  return `${p.source}: pages ${p.pages}  fetched ${p.fetched}  new ${p.new}  updated ${p.updated}  unchanged ${p.unchanged}  failed ${p.failed}`;
}

export function showProgress(p: Progress): void {
  if (tty) process.stderr.write(`\r\x1b[K${line(p)}`);
}

export function showSummary(s: RunSummary): void {
  if (tty) process.stderr.write('\r\x1b[K');
  // The error may quote an upstream's text.
  const outcome = s.status === 'succeeded' ? 'done' : `FAILED: ${printable(String(s.error))}`;
  process.stdout.write(`${line(s)}  (${(s.ms / 1000).toFixed(1)} s) ${outcome}\n`);
}
