// Kills a rebuild midway: test/helpers/rebuild-forever.ts in a child process with `args`, SIGKILLed once
// it has loaded a batch, as an operator's `pdi reindex` dies to a crash or an OOM kill.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

export async function killRebuildMidway(args: string[]): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'test/helpers/rebuild-forever.ts'), ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      if (String(d).includes('loaded')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`the rebuilding process ended by itself (${code})`)));
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
