// npm run build: compiles the TypeScript sources (tsconfig.build.json: api, cli, ingest, index-mappings,
// lib) to JavaScript in dist/, which `npm start`, the `pdi` command and the image run with no
// TypeScript loader, and copies beside them the files the server sends browsers as they are. The output folder is emptied first, so no module of a deleted source lingers.
//
//   node scripts/build.mjs              build into dist/
//   node scripts/build.mjs --if-stale   build only when dist/ is missing or older than the sources
//   node scripts/build.mjs --out DIR    build into DIR (inside the checkout: the code finds docs/ and
//                                       data/ from the nearest package.json above it)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const SOURCE_DIRS = ['api', 'cli', 'ingest', 'index-mappings', 'lib'];
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];
/** Files the compiled modules read from beside them (the explore page's script and stylesheet), copied as they are. */
const STATIC_DIRS = ['api/explore/assets'];
/** Written into dist/ when a build there succeeds, with the time the build started as its mtime. */
const STAMP = '.build-stamp';

/** The newest modification among the sources, their folders (a file added or deleted) and the configs. */
function newestSourceChange(root) {
  let newest = 0;
  const visit = (dir) => {
    newest = Math.max(newest, fs.statSync(dir).mtimeMs);
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, e.name);
      if (e.isDirectory()) visit(file);
      else newest = Math.max(newest, fs.statSync(file).mtimeMs);
    }
  };
  for (const dir of SOURCE_DIRS) visit(path.join(root, dir));
  for (const file of CONFIGS) newest = Math.max(newest, fs.statSync(path.join(root, file)).mtimeMs);
  return newest;
}

/** Whether dist/ is missing or was built before the last change to the sources (a few ms: stats only). */
export function distStale(root = ROOT) {
  let built;
  try {
    built = fs.statSync(path.join(root, 'dist', STAMP)).mtimeMs;
  } catch {
    return true;
  }
  return newestSourceChange(root) > built;
}

/** Compiles into `outDir` (absolute, or relative to the checkout), replacing what it held. */
export function build(outDir = 'dist') {
  const out = path.resolve(ROOT, outDir);
  const started = new Date();
  fs.rmSync(out, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', out], { cwd: ROOT, stdio: 'inherit' });
  for (const dir of STATIC_DIRS) fs.cpSync(path.join(ROOT, dir), path.join(out, dir), { recursive: true });
  if (out === path.join(ROOT, 'dist')) {
    const stamp = path.join(out, STAMP);
    fs.writeFileSync(stamp, `${started.toISOString()}\n`);
    fs.utimesSync(stamp, started, started);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const outAt = args.indexOf('--out');
  if (args.includes('--if-stale')) {
    if (!distStale()) process.exit(0);
    process.stderr.write('Building dist/ (the sources changed since the last build)\n');
  }
  try {
    build(outAt >= 0 ? args[outAt + 1] : 'dist');
  } catch {
    // tsc has printed its errors.
    process.exit(1);
  }
}
