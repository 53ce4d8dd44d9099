// scripts/fetch-model.sh installs its converter's dependencies pinned: every one an exact version with
// the sha256 of its wheels (scripts/model/requirements.txt), pip refusing anything else and any build.
import fs from 'node:fs';
import t from 'tap';
import { projectPath } from '../../lib/paths.js';

const REQUIREMENTS = fs.readFileSync(projectPath('scripts', 'model', 'requirements.txt'), 'utf8');
const SCRIPT = fs.readFileSync(projectPath('scripts', 'fetch-model.sh'), 'utf8');

t.test('when the converter requirements are read, then each is an exact version with wheel hashes, numpy, onnx and their dependencies all there', async (t) => {
  const requirements = REQUIREMENTS.split('\n')
    .filter((l) => !l.startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim());
  const names = requirements.map((r) => {
    t.match(r, /^[A-Za-z0-9_.-]+==[0-9][0-9A-Za-z.]*( +--hash=sha256:[0-9a-f]{64})+ *$/, r.slice(0, 40));
    return r.split('==')[0]!.toLowerCase();
  });
  t.same(names.sort(), ['ml_dtypes', 'numpy', 'onnx', 'protobuf', 'typing_extensions']);
});

t.test('when fetch-model.sh installs the converter, then only from the requirements file, with hashes required and no source build', async (t) => {
  const installs = SCRIPT.replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((l) => /pip install/.test(l));
  t.equal(installs.length, 1, 'one pip install');
  t.match(installs[0], /--require-hashes/);
  t.match(installs[0], /--only-binary :all:/);
  t.match(installs[0], /-r "\$REQUIREMENTS"/);
  t.match(SCRIPT, /^REQUIREMENTS="\$HERE\/model\/requirements\.txt"$/m);
});
