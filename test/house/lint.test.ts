// The linter and formatter over the whole tree (biome.jsonc): npm test, and so CI, fails on a lint error
// or on a file not formatted as `npm run format` writes it.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { REPO_ROOT } from '../helpers/paths.js';

const run = promisify(execFile);

t.test('when the tree is linted and its formatting checked, then Biome finds nothing to fix', async (t) => {
  const biome = path.join(REPO_ROOT, 'node_modules', '.bin', 'biome');
  const outcome = await run(biome, ['ci', '--colors=off', '.'], { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 }).then(
    () => null,
    (err: { stdout?: string; stderr?: string; message: string }) => `${err.stdout ?? ''}${err.stderr ?? err.message}`,
  );
  t.equal(outcome, null, `npm run lint; npm run format fixes what it can:\n${outcome ?? ''}`);
});
