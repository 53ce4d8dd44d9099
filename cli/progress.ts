// Progress of long runs (ingest, reindex): one line on a terminal, rewritten in place, with the documents
// done, their rate and, when the total is known, the time left; nothing when piped. One line per run at
// the end either way.
import type { Progress, RunSummary } from '../ingest/pipeline.js';
import { printable } from '../lib/terminal.js';

const tty = process.stderr.isTTY;

/** `12.5 documents/s`, and `about 3 min left` when `total` is known; empty before anything is done. */
export function rate(done: number, ms: number, total: number | null = null): string {
  if (done <= 0 || ms <= 0) return '';
  const perSecond = done / (ms / 1000);
  const text = `${perSecond < 10 ? perSecond.toFixed(1) : Math.round(perSecond)} documents/s`;
  if (total === null || done >= total) return text;
  return `${text}, about ${duration((total - done) / perSecond)} left`;
}

/** Seconds as `45 s`, `12 min`, `3 h 20 min`. */
export function duration(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 90 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function line(p: Progress): string {
  return `${p.source}: pages ${p.pages}  fetched ${p.fetched}  new ${p.new}  updated ${p.updated}  unchanged ${p.unchanged}  failed ${p.failed}`;
}

/** `ms` is since the run started: timed from its first page shown, the first rate read millions a second. */
export function showProgress(p: Progress, ms: number): void {
  if (!tty) return;
  const speed = rate(p.fetched, ms);
  process.stderr.write(`\r\x1b[K${line(p)}${speed ? `  ${speed}` : ''}`);
}

export function showSummary(s: RunSummary): void {
  if (tty) process.stderr.write('\r\x1b[K');
  // The error may quote an upstream's text.
  const outcome = s.status === 'succeeded' ? 'done' : `FAILED: ${printable(String(s.error))}`;
  const speed = rate(s.fetched, s.ms);
  process.stdout.write(`${line(s)}  (${(s.ms / 1000).toFixed(1)} s${speed ? `, ${speed}` : ''}) ${outcome}\n`);
}

/** A rebuild's line on a terminal: `label: 1200 of 30000 documents  85 documents/s, about 6 min left`. */
export function showRebuildProgress(label: string, done: number, total: number, ms: number): void {
  if (!tty) return;
  const speed = rate(done, ms, total);
  process.stderr.write(`\r\x1b[K${label}: ${done} of ${total} documents${speed ? `  ${speed}` : ''}`);
}

/** Clears the progress line before the run's own lines. */
export function endProgress(): void {
  if (tty) process.stderr.write('\r\x1b[K');
}
