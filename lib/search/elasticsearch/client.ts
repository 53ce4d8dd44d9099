// The bottom of the Elasticsearch adapter: the one client, every call through `call` (one log line, its
// errors turned into ours), the ping that keeps a frozen node from costing each call its timeout.
//
// Errors: anything that means "cannot reach a working engine" (refused or reset connections,
// timeouts, 429/502/503/504) becomes EngineUnavailableError (503) with our own message. With a single
// node the client's connection pool never marks the node dead (WeightedConnectionPool.markDead is a
// no-op for one node), so the next request after Elasticsearch returns simply succeeds.
import { Client, errors, Transport } from '@elastic/elasticsearch';
import { EngineUnavailableError } from '../../errors.js';
import type { Logger } from '../../logger.js';

/** What clients are told when Elasticsearch cannot serve: the service named, never its address or its words. */
export const UNAVAILABLE = 'The search engine (elasticsearch) is unavailable; try again shortly';

/** How long a node that could not be reached gets to answer a ping before a call is given up. */
export const PING_TIMEOUT_MS = 2_000;

/** An Elasticsearch error response that is not an outage (bad request, missing index, ...). */
export class EngineResponseError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.name = 'EngineResponseError';
  }
}

/**
 * The client's default backoff between retries is 1-2 s, then 2-4 s: with two retries an outage took
 * up to 6 s to surface as a 503. Retries exist here for a node restarting between two requests, which
 * 100 ms and 200 ms cover; an outage now fails in well under a second.
 */
class QuickRetryTransport extends Transport {
  constructor(opts: ConstructorParameters<typeof Transport>[0]) {
    super({ ...opts, retryBackoff: (_min: number, _max: number, attempt: number) => 0.1 * attempt });
  }
}

export interface EngineClientOptions {
  url: string;
  /** Per-request timeout in ms. */
  requestTimeoutMs: number;
  log: Logger;
}

/** The client and the calls made through it. */
export class EngineClient {
  readonly es: Client;
  private readonly log: Logger;
  /**
   * The last call could not reach Elasticsearch, or none has yet: the next ones first check that it
   * answers. True from the start, or a node frozen at start held each of init's calls (pdi status, the
   * server start) for its whole request timeout.
   */
  private unanswered = true;
  private ping: Promise<void> | null = null;
  private readonly nodes: number;

  constructor(opts: EngineClientOptions) {
    this.log = opts.log;
    const nodes = opts.url.split(',');
    this.nodes = nodes.length;
    this.es = new Client({
      // Several nodes (ELASTICSEARCH_URL=a,b,c): the client sends calls to each in turn and, when one
      // cannot be reached, marks it dead and retries the call on the next.
      nodes,
      requestTimeout: opts.requestTimeoutMs,
      // Retries cover a node restarting between two requests (see QuickRetryTransport).
      maxRetries: 2,
      Transport: QuickRetryTransport,
      compression: false,
    });
  }

  /**
   * One line per engine call; errors converted to ours. `fn` passes the options it is given to the
   * client, so an aborted `signal` ends the HTTP request, and Elasticsearch cancels a search whose
   * connection closes; the call then rejects with the signal's reason.
   */
  async call<T>(op: string, fn: (options: { signal?: AbortSignal }) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const started = performance.now();
    try {
      if (this.unanswered) await this.answering();
      const result = await fn({ signal });
      this.log.debug({ op, ms: Math.round(performance.now() - started) }, 'engine call');
      return result;
    } catch (err) {
      const ms = Math.round(performance.now() - started);
      if (signal?.aborted) {
        this.log.debug({ op, ms }, 'engine call abandoned');
        throw signal.reason;
      }
      if (isOutage(err)) {
        if (err instanceof errors.TimeoutError || err instanceof errors.ConnectionError) this.unanswered = true;
        this.log.warn({ op, ms, error: describe(err) }, 'engine unavailable');
        throw new EngineUnavailableError(UNAVAILABLE, `${op}: ${err instanceof errors.TimeoutError ? `no answer within ${ms} ms` : describe(err)}`);
      }
      if (err instanceof errors.ResponseError) {
        const { type, reason } = responseInfo(err);
        // 404s are expected answers here (no alias yet); anything else is worth seeing.
        const level = err.statusCode === 404 ? 'debug' : 'warn';
        this.log[level]({ op, ms, status: err.statusCode, type }, 'engine call failed');
        throw new EngineResponseError(err.statusCode ?? 500, type, `Elasticsearch ${op} failed: ${type}: ${reason}`);
      }
      this.log.warn({ op, ms, error: describe(err) }, 'engine call failed');
      throw err;
    }
  }

  /**
   * Resolves once Elasticsearch answers a ping with any status (a minimal distribution refuses `HEAD /`
   * with 405, which is an answer all the same), or throws a TimeoutError / ConnectionError. Asked before
   * every call while the last one could not reach it: a node that is frozen (stopped, not dead, or cut
   * off by the network) accepts connections and never answers, so each call would otherwise wait out
   * its whole request timeout (30 s) before its 503. Calls waiting at once share one ping.
   */
  private answering(): Promise<void> {
    this.ping ??= this.pingAnyNode()
      .then(() => {
        this.unanswered = false;
      })
      .finally(() => {
        this.ping = null;
      });
    return this.ping;
  }

  /**
   * Pings the nodes in turn until one answers, each at most once: the pool hands out the next node
   * after a failed one, so a node that is down or frozen does not fail the call while another answers.
   */
  private async pingAnyNode(): Promise<void> {
    for (let tried = 1; ; tried++) {
      try {
        await this.es.ping({}, { requestTimeout: PING_TIMEOUT_MS, maxRetries: 0 });
        return;
      } catch (err) {
        if (err instanceof errors.ResponseError) return;
        if (tried >= this.nodes) throw err;
      }
    }
  }

  close(): Promise<void> {
    return this.es.close();
  }
}

function isOutage(err: unknown): boolean {
  if (
    err instanceof errors.ConnectionError ||
    err instanceof errors.TimeoutError ||
    err instanceof errors.NoLivingConnectionsError ||
    err instanceof errors.ProductNotSupportedError
  ) {
    return true;
  }
  if (err instanceof errors.ResponseError) {
    return [429, 502, 503, 504].includes(err.statusCode ?? 0);
  }
  return false;
}

function responseInfo(err: errors.ResponseError): { type: string; reason: string } {
  const body = err.body as { error?: { type?: string; reason?: string } | string } | undefined;
  if (body && typeof body.error === 'object') {
    return { type: body.error.type ?? 'unknown', reason: body.error.reason ?? '' };
  }
  return { type: typeof body?.error === 'string' ? 'error' : 'unknown', reason: String(body?.error ?? err.message) };
}

export function describe(err: unknown): string {
  if (err instanceof errors.ResponseError) {
    const { type, reason } = responseInfo(err);
    return `${err.statusCode} ${type}: ${reason}`;
  }
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/** Read failures worth one retry: an index swapped out (rebuild) between alias resolution and search. */
export function isTransientRead(err: unknown): boolean {
  return (
    err instanceof EngineResponseError &&
    ['index_not_found_exception', 'search_phase_execution_exception', 'search_context_missing_exception', 'no_shard_available_action_exception'].includes(
      err.type,
    )
  );
}

export function isIndexNotFound(err: unknown): boolean {
  return err instanceof EngineResponseError && err.type === 'index_not_found_exception';
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
