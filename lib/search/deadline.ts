// Every engine read the API makes ends by a deadline (PDI_ENGINE_DEADLINE), on either engine: past it
// the read's signal aborts with a 504, which drops a read still queued (embedded reader pool) or ends
// the HTTP request (Elasticsearch, which then cancels the search), and the caller is answered at once
// even where the engine cannot stop (an embedded query already running finishes unobserved). Ask's
// question embedding has the same deadline, past which it is a 503 naming the embedding service.
import type { EmbedKind, Embedder } from '../embedding/embedder.js';
import { EngineTimeoutError, EngineUnavailableError } from '../errors.js';
import type { EntityReads } from '../entity-readers.js';
import type { ReadOptions, SearchProvider } from './provider.js';

/** The reads of SearchProvider and where their ReadOptions argument is. */
const READS: Record<string, number> = { search: 1, list: 1, get: 1, knn: 1, moreLikeThis: 1, stats: 0, aggregate: 1, facets: 1, exportBatch: 2 };

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
    named: (text, limit, opts = {}) => byDeadline(ms, opts, (withSignal) => reads.named(text, limit, withSignal)),
    labels: (req, opts = {}) => byDeadline(ms, opts, (withSignal) => reads.labels(req, withSignal)),
  };
}

/**
 * `embedder` with a deadline of `ms` on each embedding (ask's question): past it the call is a 503
 * naming the embedding service (or model), instead of the service's own timeout and retries (about
 * 2.6 minutes by default). The call is ended too where the embedder can stop (a service's requests).
 */
export function withEmbedDeadline(embedder: Embedder, ms: number): Embedder {
  return new Proxy(embedder, {
    get(target, prop) {
      if (prop !== 'embed') return Reflect.get(target, prop, target);
      return (texts: string[], kind?: EmbedKind) =>
        byDeadline(
          ms,
          {},
          ({ signal }) => target.embed(texts, kind, signal),
          () => {
            const what = target.endpoint ? 'embedding service' : 'embedding model';
            return new EngineUnavailableError(`The ${what} did not answer within ${seconds(ms)} s; try again shortly`, target.endpoint ?? target.id);
          },
        );
    },
  });
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}

function byDeadline<T>(
  ms: number,
  opts: ReadOptions,
  read: (opts: ReadOptions) => Promise<T>,
  late = (): Error => new EngineTimeoutError(seconds(ms)),
): Promise<T> {
  // One controller aborted by the deadline or by the caller's signal, every listener removed when the
  // read ends: AbortSignal.any kept each request's signals, and the answers they reached, alive
  // (the server's heap grew by the size of every answer under load).
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(late()), ms);
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
