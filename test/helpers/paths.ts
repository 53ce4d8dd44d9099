// Where tests find things. Upstream fixtures stay in ../shared/fixtures (never copied into the repo).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = path.resolve(REPO_ROOT, '../shared/fixtures');

/**
 * Ends the calling test file as skipped when ../shared/fixtures is absent (a clone with nothing beside
 * it; CI has it). Call it before any fixture is read; scripts/test.sh says once that they were skipped.
 */
export function skipWithoutFixtures(): void {
  if (fs.existsSync(FIXTURES)) return;
  t.plan(0, `needs ${FIXTURES}, which is absent`);
  t.end();
  process.exit(0);
}
