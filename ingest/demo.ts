// The demo corpus (data/demo/<source>/: saved raw upstream responses) loaded through the real pipeline.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SOURCE_NAMES, type SourceName } from '../index-mappings/sources.js';
import { ingestSource, type PipelineDeps, type Progress, type RunSummary } from './pipeline.js';
import { SOURCE_MODULES } from './sources/index.js';

export const DEMO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../data/demo');

/** The sources the demo corpus has saved responses for. */
export function demoSources(dir = DEMO_DIR): SourceName[] {
  return SOURCE_NAMES.filter((source) => fs.existsSync(path.join(dir, source)));
}

export interface DemoLoad {
  runs: RunSummary[];
  /** Sources whose run could not start: another run holds them, or ingest.db takes no write. */
  notLoaded: { source: SourceName; reason: string }[];
}

/** Loads every source (or those given), going on past one that cannot start; stops when signalled. */
export async function loadDemo(deps: PipelineDeps, opts: { onProgress?: (p: Progress) => void; signal?: AbortSignal; dir?: string; sources?: SourceName[] } = {}): Promise<DemoLoad> {
  const load: DemoLoad = { runs: [], notLoaded: [] };
  const dir = opts.dir ?? DEMO_DIR;
  for (const source of opts.sources ?? demoSources(dir)) {
    if (opts.signal?.aborted) break;
    try {
      load.runs.push(await ingestSource(deps, SOURCE_MODULES[source], { fromDir: path.join(dir, source), onProgress: opts.onProgress, signal: opts.signal }));
    } catch (err) {
      load.notLoaded.push({ source, reason: (err as Error).message });
    }
  }
  return load;
}
