// The demo corpus (data/demo/<source>/: saved raw upstream responses) loaded through the real pipeline.
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import { SOURCE_NAMES, type SourceName } from '../index-mappings/sources.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { projectPath } from '../lib/paths.js';
import { ingestSource, type PipelineDeps, type Progress, type RunSummary } from './pipeline.js';
import { SOURCE_MODULES } from './sources/index.js';
import { seedDemoVectors } from './demo-vectors.js';
import { embeddingCacheKey } from './stages/embed.js';

export const DEMO_DIR = projectPath('data', 'demo');

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
export async function loadDemo(
  deps: PipelineDeps,
  opts: { onProgress?: (p: Progress, ms: number) => void; signal?: AbortSignal; dir?: string; sources?: SourceName[] } = {},
): Promise<DemoLoad> {
  const load: DemoLoad = { runs: [], notLoaded: [] };
  const dir = opts.dir ?? DEMO_DIR;
  // With the pinned model, its shipped vectors spare the load the embedding of every document.
  seedDemoVectors(deps.documents, embeddingCacheKey(deps.embedder));
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

/** The file in the data folder that marks a demo load not yet finished. */
export const DEMO_UNFINISHED = 'demo-load-unfinished';
/** First wait before sources of the demo that did not load are tried again; it doubles up to the max. */
const DEMO_RETRY_MS = 60_000;
const DEMO_RETRY_MAX_MS = 30 * 60_000;

/**
 * The server's demo load (unless PDI_DEMO=0): on an empty index, or resuming a load cut short, until
 * every source loaded or `signal` stops it. Never throws: a failure is logged.
 */
export async function loadDemoOnFirstStart(config: Config, deps: PipelineDeps, log: Logger, opts: { signal: AbortSignal; retryMs?: number }): Promise<void> {
  try {
    if (!config.demo) return;
    // Present while a demo load is under way: a load cut short (the server stopped during its first
    // start) resumes at the next start, although the index is no longer empty. Sources already loaded
    // are read again and found unchanged.
    const unfinished = path.join(config.dataDir, DEMO_UNFINISHED);
    const resuming = fs.existsSync(unfinished);
    if (!resuming) {
      const { total_documents } = await deps.search.stats();
      if (total_documents > 0) return;
    }
    log.info(
      resuming
        ? 'the demo corpus load was cut short: resuming it'
        : 'empty index: loading the demo corpus through the ingest pipeline (PDI_DEMO=0 turns this off)',
    );
    fs.writeFileSync(unfinished, '');
    const started = Date.now();
    let documents = 0;
    // A source that does not load (another run holds it, a full disk) does not stop the others, and is
    // tried again while the server runs, at growing intervals: a restart is not needed to finish.
    let pending = demoSources();
    for (let delay = opts.retryMs ?? DEMO_RETRY_MS; ; delay = Math.min(delay * 2, DEMO_RETRY_MAX_MS)) {
      const { runs, notLoaded } = await loadDemo(deps, { sources: pending, signal: opts.signal });
      if (opts.signal.aborted) return;
      for (const { source, reason } of notLoaded) log.warn({ source, error: reason }, 'demo corpus: a source did not load');
      for (const run of runs) documents += run.new + run.updated;
      const failed = [...runs.filter((r) => r.status === 'failed').map((r) => r.source), ...notLoaded.map((n) => n.source)];
      if (failed.length === 0) break;
      log.error({ sources: failed, retry_in_s: delay / 1000 }, 'demo corpus: not every source loaded; trying those again');
      pending = failed;
      // Resolves false as soon as the server stops.
      if (
        !(await wait(delay, undefined, { signal: opts.signal }).then(
          () => true,
          () => false,
        ))
      )
        return;
    }
    fs.rmSync(unfinished, { force: true });
    log.info({ ms: Date.now() - started, documents }, 'demo corpus loaded');
  } catch (err) {
    log.error({ err }, 'demo corpus load failed');
  }
}
