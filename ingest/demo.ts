// The demo corpus (data/demo/<source>/: saved raw upstream responses) loaded through the real pipeline.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SOURCE_NAMES } from '../lib/sources.js';
import { ingestSource, type PipelineDeps, type Progress, type RunSummary } from './pipeline.js';
import { SOURCE_MODULES } from './sources/index.js';

export const DEMO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../data/demo');

export async function loadDemo(deps: PipelineDeps, opts: { onProgress?: (p: Progress) => void; signal?: AbortSignal; dir?: string } = {}): Promise<RunSummary[]> {
  const runs: RunSummary[] = [];
  for (const source of SOURCE_NAMES) {
    const sourceDir = path.join(opts.dir ?? DEMO_DIR, source);
    if (!fs.existsSync(sourceDir) || opts.signal?.aborted) continue;
    runs.push(await ingestSource(deps, SOURCE_MODULES[source], { fromDir: sourceDir, onProgress: opts.onProgress, signal: opts.signal }));
  }
  return runs;
}
