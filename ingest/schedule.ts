// Ingest inside the server, for single-machine use: the demo corpus on the first start with an empty
// index (demo.ts), and every source incrementally every PDI_INGEST_EVERY. Both stop between pages on
// shutdown. api/server.ts starts them.
import { SOURCE_NAMES, type SourceName } from '../index-mappings/sources.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import { loadDemoOnFirstStart } from './demo.js';
import { ingestSource, type PipelineDeps } from './pipeline.js';
import { SOURCE_MODULES } from './sources/index.js';
import { SourceBusyError } from './state/store.js';

export interface IngestJobs {
  /** Resolves when the demo load (if any) has finished. */
  demoLoaded: Promise<void>;
  /**
   * Runs `fn` after the demo load and the scheduled ingest under way, with no scheduled ingest starting
   * until it ends: a switch of embedder must not meet vectors of the one before (ingest/model-switch.ts).
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

export interface IngestJobOptions {
  /** The sources the schedule walks (default: all eight). */
  sources?: SourceName[];
  /** Upstream base URLs that replace a source's own (a mirror; a replay server in tests). */
  upstreams?: Partial<Record<SourceName, string>>;
  /** First wait before demo sources that did not load are tried again (default: demo.ts DEMO_RETRY_MS). */
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

  const demoLoaded = track(loadDemoOnFirstStart(config, deps, log, { signal: abort.signal, retryMs: opts.demoRetryMs }));

  let timer: NodeJS.Timeout | null = null;
  let scheduled: Promise<unknown> = Promise.resolve();
  let held = false;
  if (config.ingestEveryMs) {
    let busy = false;
    timer = setInterval(() => {
      if (busy || held) return;
      busy = true;
      scheduled = track(
        (async () => {
          for (const source of opts.sources ?? SOURCE_NAMES) {
            if (abort.signal.aborted) return;
            try {
              await ingestSource(deps, SOURCE_MODULES[source], { signal: abort.signal, baseUrl: opts.upstreams?.[source] });
            } catch (err) {
              if (err instanceof SourceBusyError) log.info({ source }, 'scheduled ingest skipped: another run holds the source');
              else log.error({ err, source }, 'scheduled ingest failed');
            }
          }
        })().finally(() => (busy = false)),
      );
    }, config.ingestEveryMs);
    timer.unref();
  }

  return {
    demoLoaded,
    async exclusive(fn) {
      held = true;
      try {
        await demoLoaded;
        await scheduled;
        return await fn();
      } finally {
        held = false;
      }
    },
    async stop() {
      if (timer) clearInterval(timer);
      abort.abort('the server shut down');
      await Promise.allSettled([...running]);
    },
  };
}
