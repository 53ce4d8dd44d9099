// bench/README.md is the newcomer's map of the benchmarks: it names every bench file, and every
// `npm run bench:*` script runs a file that exists.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../helpers/paths.js';

const BENCH = path.join(REPO_ROOT, 'bench');
const readme = fs.readFileSync(path.join(BENCH, 'README.md'), 'utf8');

function files(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : /\.(ts|sh)$/.test(e.name) ? [path.relative(BENCH, path.join(dir, e.name))] : []));
}

t.test('when a bench file exists, then bench/README.md names it', async (t) => {
  t.same(
    files(BENCH).filter((f) => !readme.includes(`\`${f}\``)),
    [],
  );
});

t.test('when package.json has a bench script, then it runs an existing file that the README lists', async (t) => {
  const scripts = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>;
  const benches = Object.entries(scripts).filter(([name]) => name.startsWith('bench:'));
  t.ok(benches.length >= 5);
  for (const [name, command] of benches) {
    const file = /bench\/(\S+\.ts)/.exec(command)?.[1];
    t.ok(file && fs.existsSync(path.join(BENCH, file)), `${name}: ${command}`);
    t.ok(readme.includes(`\`${name}\``), `${name} is in the README`);
  }
});
