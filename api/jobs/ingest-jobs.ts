// Ingest inside the server, for single-machine use: the demo corpus on the first start with an empty
// index, and every source incrementally every PDI_INGEST_EVERY. Both stop between pages on shutdown.
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import { demoSources, loadDemo } from '../../ingest/demo.js';
import { ingestSource, type PipelineDeps } from '../../ingest/pipeline.js';
import { SOURCE_MODULES } from '../../ingest/sources/index.js';
import { SourceBusyError } from '../../ingest/state/store.js';
import type { Config } from '../../lib/config.js';
import type { Logger } from '../../lib/logger.js';
import { SOURCE_NAMES, type SourceName } from '../../index-mappings/sources.js';

/** The file in the data folder that marks a demo load not yet finished. */
export const DEMO_UNFINISHED = 'demo-load-unfinished';
/** First wait before sources of the demo that did not load are tried again; it doubles up to the max. */
const DEMO_RETRY_MS = 60_000;
const DEMO_RETRY_MAX_MS = 30 * 60_000;

export interface IngestJobs {
  /** Resolves when the demo load (if any) has finished. */
  demoLoaded: Promise<void>;
  stop(): Promise<void>;
}

export interface IngestJobOptions {
  /** The sources the schedule walks (default: all eight). */
  sources?: SourceName[];
  /** Upstream base URLs that replace a source's own (a mirror; a replay server in tests). */
  upstreams?: Partial<Record<SourceName, string>>;
  /** First wait before demo sources that did not load are tried again (default DEMO_RETRY_MS). */
  demoRetryMs?: number;
}

export function startIngestJobs(config: Config, deps: PipelineDeps, log: Logger, opts: IngestJobOptions = {}): IngestJobs {
  const abort = new AbortController();
  const running = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>) => {
    running.add(p);
    void p.finally(() => running.delete(p));
    return p;
  };

  const demoLoaded = track((async () => {
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
    log.info(resuming ? 'the demo corpus load was cut short: resuming it' : 'empty index: loading the demo corpus through the ingest pipeline (PDI_DEMO=0 turns this off)');
    fs.writeFileSync(unfinished, '');
    const started = Date.now();
    let documents = 0;
    // A source that does not load (another run holds it, a full disk) does not stop the others, and is
    // tried again while the server runs, at growing intervals: a restart is not needed to finish.
    let pending = demoSources();
    for (let delay = opts.demoRetryMs ?? DEMO_RETRY_MS; ; delay = Math.min(delay * 2, DEMO_RETRY_MAX_MS)) {
      const { runs, notLoaded } = await loadDemo(deps, { sources: pending, signal: abort.signal });
      if (abort.signal.aborted) return;
      for (const { source, reason } of notLoaded) log.warn({ source, error: reason }, 'demo corpus: a source did not load');
      for (const run of runs) documents += run.new + run.updated;
      const failed = [...runs.filter((r) => r.status === 'failed').map((r) => r.source), ...notLoaded.map((n) => n.source)];
      if (failed.length === 0) break;
      log.error({ sources: failed, retry_in_s: delay / 1000 }, 'demo corpus: not every source loaded; trying those again');
      pending = failed;
      // Resolves false as soon as the server stops.
      if (!(await wait(delay, undefined, { signal: abort.signal }).then(() => true, () => false))) return;
    }
    fs.rmSync(unfinished, { force: true });
    log.info({ ms: Date.now() - started, documents }, 'demo corpus loaded');
  })().catch((err) => log.error({ err }, 'demo corpus load failed')));

  let timer: NodeJS.Timeout | null = null;
  if (config.ingestEveryMs) {
    let busy = false;
    timer = setInterval(() => {
      if (busy) return;
      busy = true;
      track((async () => {
        for (const source of opts.sources ?? SOURCE_NAMES) {
          if (abort.signal.aborted) return;
          try {
            await ingestSource(deps, SOURCE_MODULES[source], { signal: abort.signal, baseUrl: opts.upstreams?.[source] });
          } catch (err) {
            if (err instanceof SourceBusyError) log.info({ source }, 'scheduled ingest skipped: another run holds the source');
            else log.error({ err, source }, 'scheduled ingest failed');
          }
        }
      })().finally(() => (busy = false)));
    }, config.ingestEveryMs);
    timer.unref();
  }

  return {
    demoLoaded,
    async stop() {
      if (timer) clearInterval(timer);
      abort.abort('the server shut down');
      await Promise.allSettled([...running]);
    },
  };
}
