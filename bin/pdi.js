#!/usr/bin/env node
// Launcher of the `pdi` command. It runs the compiled CLI (dist/, `npm run build`), which starts in a
// fraction of a second. In a checkout whose sources changed since that build, or that has none, it runs
// the sources through tsx instead (a dev dependency): seconds slower to start, never stale.
import fs from 'node:fs';

const checkout = fs.existsSync(new URL('../cli/pdi.ts', import.meta.url));
if (checkout && (await import('../scripts/build.mjs')).distStale()) {
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch {
    process.stderr.write('pdi: dist/ is missing or older than the sources and tsx is not installed: run npm run build\n');
    process.exit(2);
  }
  tsx.register();
  await import('../cli/pdi.ts');
} else {
  await import('../dist/cli/pdi.js');
}
