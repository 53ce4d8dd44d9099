// The one HTTP client of the ingesters: polite (bounded concurrency and a request rate per source,
// via p-queue), patient (retries with exponential backoff and jitter on network errors, 429 and 5xx,
// honouring Retry-After up to a bound), strict (a body shorter than its Content-Length is an error,
// never data; a redirected POST is an error, never replayed as a GET; a body has a size limit),
// careful where it goes (a redirect is followed by hand: the same scheme or up to https, a bounded
// number of hops, never to a private, loopback or link-local address the operator did not name, and
// connected to the very address checked, so a name re-pointed in between cannot lead inside) and
// stoppable (the run's signal ends a request, a queued one or a wait between attempts at once).
import { setTimeout as wait } from 'node:timers/promises';
import PQueue from 'p-queue';
import { Agent, fetch, type Response } from 'undici';
import { AddressRefused, pinnedLookup, resolveAllowed } from '../lib/addresses.js';
import { BodyTooLarge, readCapped } from '../lib/capped-body.js';
import { stopReason } from '../lib/errors.js';

export interface HttpClientOptions {
  /** Requests in flight at once. */
  concurrency?: number;
  /** At most `intervalCap` requests per `intervalMs`. */
  intervalCap?: number;
  intervalMs?: number;
  /** Attempts after the first. */
  retries?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** The longest Retry-After honoured; a longer one fails the request at once. */
  maxRetryAfterMs?: number;
  timeoutMs?: number;
  /** The largest body read, decoded (default 128 MiB); a larger one fails the request, not retried. */
  maxBodyBytes?: number;
  /**
   * Origins the operator named (an explicit --base-url): a redirect may lead there even when its
   * address is private (a mirror on the operator's network, a replay server on loopback).
   */
  trustedOrigins?: string[];
  userAgent?: string;
  /** Stops every request of the client: the run is interrupted (Ctrl-C) or the server shuts down. */
  signal?: AbortSignal;
  /** For tests: how to wait between attempts (rejecting when the signal aborts). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface HttpResponse {
  status: number;
  contentType: string;
  body: string;
}

/** A response with what the client needs to decide on it. */
interface Answer extends HttpResponse {
  /** Retry-After in ms (delta-seconds or an HTTP date); 0 when absent or unreadable. */
  retryAfterMs: number;
  location: string | null;
}

export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** No answer came, in time or whole (a network error, a timeout, a truncated body), after every retry. */
export class UpstreamNoAnswer extends UpstreamError {
  constructor(message: string) {
    super(message, null);
    this.name = 'UpstreamNoAnswer';
  }
}

const defaultSleep = (ms: number, signal?: AbortSignal) => wait(ms, undefined, { signal });

/**
 * Far above any page the sources send (the largest fixture is a few MiB), and far below the ~512 MiB
 * of text V8 holds in one string: a page past it is a fault (an upstream that never stops sending),
 * and reading it whole cost ~6x its size in memory.
 */
const MAX_BODY_BYTES = 128 * 2 ** 20;

/** Redirects followed for one request at most; fetch's own limit is 20. */
export const MAX_REDIRECTS = 5;

const REDIRECT = new Set([301, 302, 303, 307, 308]);

function retryable(status: number): boolean {
  return status === 429 || status >= 500;
}

export class HttpClient {
  private readonly queue: PQueue;
  private readonly opts: Required<Omit<HttpClientOptions, 'concurrency' | 'intervalCap' | 'intervalMs' | 'signal' | 'trustedOrigins'>>;
  private readonly trusted: Set<string>;
  private readonly signal: AbortSignal | undefined;

  constructor(options: HttpClientOptions = {}) {
    this.queue = new PQueue({
      concurrency: options.concurrency ?? 2,
      intervalCap: options.intervalCap ?? 4,
      interval: options.intervalMs ?? 1_000,
    });
    this.opts = {
      retries: options.retries ?? 5,
      baseDelayMs: options.baseDelayMs ?? 500,
      maxDelayMs: options.maxDelayMs ?? 60_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 600_000,
      timeoutMs: options.timeoutMs ?? 60_000,
      maxBodyBytes: options.maxBodyBytes ?? MAX_BODY_BYTES,
      userAgent: options.userAgent ?? 'pdi-ingest/0.1 (+https://github.com/public-data-intelligence)',
      sleep: options.sleep ?? defaultSleep,
    };
    this.signal = options.signal;
    this.trusted = new Set(options.trustedOrigins);
  }

  /** Waits, as between attempts: ended at once (rejecting) when the run is stopped. */
  async pause(ms: number): Promise<void> {
    try {
      await this.opts.sleep(ms, this.signal);
    } catch (err) {
      if (this.signal?.aborted) throw new UpstreamError(`stopped: ${stopReason(this.signal)}`, null);
      throw err;
    }
  }

  /**
   * GET or POST; resolves with a 2xx response, rejects with UpstreamError once retries are spent.
   * `retries` overrides the client's for one request (something optional need not wait minutes).
   */
  async request(url: string, init: { method?: string; json?: unknown; headers?: Record<string, string>; retries?: number } = {}): Promise<HttpResponse> {
    const method = init.method ?? (init.json !== undefined ? 'POST' : 'GET');
    let lastError: UpstreamError | null = null;
    let retryAfterMs = 0;
    // Whatever was under way when the run was stopped (a fetch, a place in the queue, a wait) rejects
    // with the abort; the run ends with this, not with a retry.
    const stopped = () => new UpstreamError(`${method} ${url} stopped: ${stopReason(this.signal!)}`, null);
    const retries = init.retries ?? this.opts.retries;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (this.signal?.aborted) throw stopped();
      let res: Answer;
      try {
        if (attempt > 0) {
          const backoff = Math.min(this.opts.maxDelayMs, this.opts.baseDelayMs * 2 ** (attempt - 1));
          await this.pause(Math.max(retryAfterMs, backoff * (0.5 + Math.random() / 2)));
        }
        res = await this.queue.add(() => this.once(url, method, init), { signal: this.signal });
      } catch (err) {
        if (this.signal?.aborted) throw stopped();
        if (err instanceof UpstreamError) throw err;
        lastError = new UpstreamNoAnswer(`${method} ${url} failed: ${describe(err as Error)}`);
        retryAfterMs = 0;
        continue;
      }
      if (res.status >= 200 && res.status < 300) return { status: res.status, contentType: res.contentType, body: res.body };
      if (res.status >= 300 && res.status < 400 && method !== 'GET') {
        // fetch would replay a 301/302/303 as a GET without the body (the query and paging token lost,
        // the answer a different page); the upstream has moved, and the operator is to follow it.
        const to = res.location ? new URL(res.location, url).href : 'nowhere (no Location)';
        throw new UpstreamError(
          `${method} ${url} was redirected (${res.status}) to ${to}; a redirected POST is not followed: use the new address (--base-url)`,
          res.status,
        );
      }
      lastError = new UpstreamError(`${method} ${url} answered ${res.status}`, res.status);
      if (!retryable(res.status)) throw lastError;
      retryAfterMs = res.retryAfterMs;
      if (retryAfterMs > this.opts.maxRetryAfterMs) {
        throw new UpstreamError(
          `${method} ${url} answered ${res.status} and asks to be retried after ${Math.ceil(retryAfterMs / 1000)} s, longer than the ${this.opts.maxRetryAfterMs / 1000} s this client waits; run the ingest again later`,
          res.status,
        );
      }
    }
    throw lastError!;
  }

  private async once(url: string, method: string, init: { json?: unknown; headers?: Record<string, string> }): Promise<Answer> {
    const headers: Record<string, string> = {
      'User-Agent': this.opts.userAgent,
      Accept: 'application/json, application/xml;q=0.9, */*;q=0.5',
      ...init.headers,
    };
    let body: string | undefined;
    if (init.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    const signal = this.signal ? AbortSignal.any([this.signal, AbortSignal.timeout(this.opts.timeoutMs)]) : AbortSignal.timeout(this.opts.timeoutMs);
    let res = await fetch(url, { method, headers, body, redirect: 'manual', signal });
    const pins: Agent[] = [];
    let bytes: Buffer;
    try {
      for (let hops = 0, at = url; method === 'GET' && REDIRECT.has(res.status) && res.headers.get('location'); hops++) {
        await res.body?.cancel();
        const to = await this.redirectTarget(url, at, res.status, res.headers.get('location')!, hops);
        at = to.url.href;
        const dispatcher = to.pin ? new Agent({ connect: { lookup: to.pin } }) : undefined;
        if (dispatcher) pins.push(dispatcher);
        res = await fetch(at, { method, headers, redirect: 'manual', signal, dispatcher });
      }
      bytes = await this.readBody(res, `${method} ${url}`);
    } finally {
      for (const agent of pins) void agent.destroy();
    }
    const declared = res.headers.get('content-length');
    if (declared !== null && !res.headers.get('content-encoding') && Number(declared) !== bytes.length) {
      throw new Error(`body truncated (${bytes.length} of ${declared} bytes)`);
    }
    const contentType = res.headers.get('content-type') ?? '';
    return {
      status: res.status,
      contentType,
      body: decodeBody(bytes, contentType),
      retryAfterMs: retryAfter(res.headers.get('retry-after')),
      location: res.headers.get('location'),
    };
  }

  /**
   * Where a redirect from `at` may go, or an UpstreamError (not retried: the next answer would redirect
   * the same way) saying why not.
   */
  private async redirectTarget(
    url: string,
    at: string,
    status: number,
    location: string,
    hops: number,
  ): Promise<{ url: URL; pin: ReturnType<typeof pinnedLookup> | null }> {
    const from = new URL(at);
    let to: URL;
    try {
      to = new URL(location, from);
    } catch {
      throw new UpstreamError(`GET ${url} was redirected (${status}) to an invalid address`, status);
    }
    const refused = (why: string) => new UpstreamError(`GET ${url} was redirected (${status}) to ${to.href}, not followed: ${why}`, status);
    if (hops >= MAX_REDIRECTS) throw refused(`more than ${MAX_REDIRECTS} redirects`);
    if (to.protocol !== from.protocol && !(from.protocol === 'http:' && to.protocol === 'https:')) {
      throw refused(`a redirect may keep the scheme or move to https, not go from ${from.protocol} to ${to.protocol}`);
    }
    if (this.trusted.has(to.origin)) return { url: to, pin: null };
    try {
      return { url: to, pin: pinnedLookup(await resolveAllowed(to.hostname, false)) };
    } catch (err) {
      if (err instanceof AddressRefused) throw refused(`${err.message} (name it with --base-url to ingest from it)`);
      throw err;
    }
  }

  /** The body's bytes, refused (not retried: the next answer would be as large) past maxBodyBytes. */
  private async readBody(res: Response, request: string): Promise<Buffer> {
    try {
      return await readCapped(res, this.opts.maxBodyBytes);
    } catch (err) {
      if (!(err instanceof BodyTooLarge)) throw err;
      throw new UpstreamError(`${request} sent a body over ${err.bound}, more than this client accepts (a page this large is an upstream fault)`, res.status);
    }
  }
}

/** Retry-After (RFC 9110 10.2.3): delay-seconds or an HTTP date, in ms from now; 0 if neither. */
function retryAfter(value: string | null): number {
  if (!value) return 0;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1_000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? 0 : Math.max(0, at - Date.now());
}

/** A transport failure with its cause: fetch says only "fetch failed" and hides ECONNREFUSED & co. */
function describe(err: Error): string {
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error && cause.message ? `${err.message} (${cause.message})` : err.message;
}

/**
 * A body as text: in the charset its Content-Type names, else the one an XML declaration names, else
 * UTF-8. A byte-order mark is dropped (JSON.parse refuses one). A charset no decoder knows is read
 * as UTF-8, where bytes that are no UTF-8 become U+FFFD.
 */
function decodeBody(bytes: Buffer, contentType: string): string {
  const head = bytes
    .subarray(0, 200)
    .toString('latin1')
    .replace(/^\xEF\xBB\xBF/, '');
  const declared = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1] ?? /^<\?xml[^>]*\sencoding\s*=\s*["']([^"']+)["']/.exec(head)?.[1];
  return decoderFor(declared).decode(bytes);
}

function decoderFor(label: string | undefined): TextDecoder {
  try {
    if (label) return new TextDecoder(label);
  } catch {
    // A charset no decoder knows: UTF-8.
  }
  return new TextDecoder('utf-8');
}
