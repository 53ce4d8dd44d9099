// Where tests find things. Upstream fixtures stay in ../shared/fixtures (never copied into the repo).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** ../shared/fixtures, or PDI_TEST_FIXTURES (a folder that does not exist runs the suite as a bare clone would). */
export const FIXTURES = path.resolve(REPO_ROOT, process.env.PDI_TEST_FIXTURES || '../shared/fixtures');

/**
 * The skip of a test that reads the upstream fixtures, false where they are: a clone with nothing beside
 * it has none (CI has them), and still runs every parser on the demo's records (helpers/demo-records.ts).
 * scripts/test.sh says once that they were skipped.
 */
export const NEEDS_FIXTURES: string | false = fs.existsSync(FIXTURES) ? false : `needs ${FIXTURES}, which is absent`;

/** Ends the calling test file as skipped when the upstream fixtures are absent. Call it before any fixture is read. */
export function skipWithoutFixtures(): void {
  if (!NEEDS_FIXTURES) return;
  t.plan(0, NEEDS_FIXTURES);
  t.end();
  process.exit(0);
}
