// Where the project's own files are at run time. The code runs from its TypeScript sources (tsx:
// lib/paths.ts) and compiled (dist/lib/paths.js, or a test's build folder inside the checkout), so
// files read by path (docs/openapi.json, data/demo, var/) are found from the project root, the
// nearest folder above this file that holds package.json, never by counting `../` from a source file.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No package.json above ${from}: the project's files cannot be found`);
  }
}

export const PROJECT_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));

/** A path inside the project: `projectPath('docs', 'openapi.json')`. */
export function projectPath(...parts: string[]): string {
  return path.join(PROJECT_ROOT, ...parts);
}

/**
 * The module a worker thread starts from, beside the module `from` that starts it. Compiled, that is
 * the worker's own JavaScript; from the sources it is the small `<name>-entry.js` beside it, which
 * registers tsx first, since a worker does not inherit a loader its parent registered in code.
 */
export function workerModule(name: string, from: string): URL {
  return new URL(from.endsWith('.ts') ? `./${name}-entry.js` : `./${name}.js`, from);
}
