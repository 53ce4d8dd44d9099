// Debian's headless Chromium for the browser tests (test/web/*-chromium), driven by playwright-core. Without it a
// browser test is skipped with a warning, except under CI=true, where it must run.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';

/** PDI_CHROMIUM, else `chromium` on the PATH (Debian's package installs /usr/bin/chromium). */
function findChromium(): string | null {
  if (process.env.PDI_CHROMIUM) return process.env.PDI_CHROMIUM;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir, 'chromium');
    if (dir && fs.existsSync(file)) return file;
  }
  return null;
}

export const CHROMIUM = findChromium();

/** The `skip` option of a browser test: warns once when Chromium is missing outside CI. */
export function skipWithoutChromium(what: string): boolean {
  if (CHROMIUM !== null || process.env.CI === 'true') return false;
  process.stderr.write(`WARNING: chromium is not installed (apt-get install chromium); ${what} is skipped\n`);
  return true;
}

/** The executable, or the failure CI=true calls for. */
export function chromiumPath(): string {
  if (CHROMIUM === null) throw new Error('CI=true but chromium is not installed (apt-get install chromium, as .ci/run does)');
  return CHROMIUM;
}

/**
 * Collects what a page should never show: a console error (a policy violation is one) other than a
 * failed load, an uncaught exception, and an answer of 400 or more not in `expected` (the browser's
 * own /favicon.ico aside: the pages name no icon).
 */
export function watchProblems(page: Page, expected: (status: number, url: URL) => boolean = () => false): string[] {
  const problems: string[] = [];
  page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('response', (r) => {
    const url = new URL(r.url());
    if (r.status() >= 400 && url.pathname !== '/favicon.ico' && !expected(r.status(), url)) problems.push(`${r.status()} ${r.url()}`);
  });
  return problems;
}
