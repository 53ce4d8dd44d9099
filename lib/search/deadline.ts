// Every engine read the API makes ends by a deadline (PDI_ENGINE_DEADLINE), on either engine: past it
// the read's signal aborts with a 504, which drops a read still queued (embedded reader pool) or ends
// the HTTP request (Elasticsearch, which then cancels the search), and the caller is answered at once
// even where the engine cannot stop (an embedded query already running finishes unobserved).
import { EngineTimeoutError } from '../errors.js';
import type { EntityReads } from '../entity-readers.js';
import type { ReadOptions, SearchProvider } from './provider.js';

/** The reads of SearchProvider and where their ReadOptions argument is. */
const READS: Record<string, number> = { search: 1, list: 1, get: 1, knn: 1, moreLikeThis: 1, stats: 0, aggregate: 1, exportBatch: 2 };

/** `provider` with a deadline of `ms` on each read; everything else passes through unchanged. */
export function withReadDeadline(provider: SearchProvider, ms: number): SearchProvider {
  return new Proxy(provider, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const at = typeof prop === 'string' ? READS[prop] : undefined;
      if (at === undefined) return value.bind(target);
      return (...args: unknown[]) => {
        const opts = (args[at] ?? {}) as ReadOptions;
        return byDeadline(ms, opts, (withSignal) => {
          args[at] = withSignal;
          return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        });
      };
    },
  });
}

/** `reads` with a deadline of `ms` on each entity resolution and label read, as on the engine's reads. */
export function withEntityDeadline(reads: EntityReads, ms: number): EntityReads {
  return {
    resolve: (query, page, opts = {}) => byDeadline(ms, opts, (withSignal) => reads.resolve(query, page, withSignal)),
    labels: (req, opts = {}) => byDeadline(ms, opts, (withSignal) => reads.labels(req, withSignal)),
  };
}

function byDeadline<T>(ms: number, opts: ReadOptions, read: (opts: ReadOptions) => Promise<T>): Promise<T> {
  // One controller aborted by the deadline or by the caller's signal, every listener removed when the
  // read ends: AbortSignal.any kept each request's signals, and the answers they reached, alive
  // (the server's heap grew by the size of every answer under load).
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new EngineTimeoutError(Math.round(ms / 100) / 10)), ms);
  const callerGone = () => deadline.abort(opts.signal!.reason);
  if (opts.signal?.aborted) callerGone();
  else opts.signal?.addEventListener('abort', callerGone, { once: true });
  let onAbort: (() => void) | undefined;
  return new Promise<T>((resolve, reject) => {
    onAbort = () => reject(deadline.signal.reason);
    deadline.signal.addEventListener('abort', onAbort, { once: true });
    if (deadline.signal.aborted) onAbort();
    read({ ...opts, signal: deadline.signal }).then(resolve, reject);
  }).finally(() => {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', callerGone);
    deadline.signal.removeEventListener('abort', onAbort!);
  });
}
