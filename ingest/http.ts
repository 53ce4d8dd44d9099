// The one HTTP client of the ingesters: polite (bounded concurrency and a request rate per source,
// via p-queue), patient (retries with exponential backoff and jitter on network errors, 429 and 5xx,
// honouring Retry-After), and strict (a body shorter than its Content-Length is an error, never data).
import PQueue from 'p-queue';

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
  timeoutMs?: number;
  userAgent?: string;
  /** For tests: how to wait between attempts. */
  sleep?: (ms: number) => Promise<void>;
}

export interface HttpResponse {
  status: number;
  contentType: string;
  body: string;
}

export class UpstreamError extends Error {
  constructor(message: string, readonly status: number | null) {
    super(message);
    this.name = 'UpstreamError';
  }
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function retryable(status: number): boolean {
  return status === 429 || status >= 500;
}

export class HttpClient {
  private readonly queue: PQueue;
  private readonly opts: Required<Omit<HttpClientOptions, 'concurrency' | 'intervalCap' | 'intervalMs'>>;

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
      timeoutMs: options.timeoutMs ?? 60_000,
      userAgent: options.userAgent ?? 'pdi-ingest/0.1 (+https://github.com/public-data-intelligence)',
      sleep: options.sleep ?? defaultSleep,
    };
  }

  /** GET or POST; resolves with a 2xx response, rejects with UpstreamError once retries are spent. */
  async request(url: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}): Promise<HttpResponse> {
    let lastError: UpstreamError | null = null;
    for (let attempt = 0; attempt <= this.opts.retries; attempt++) {
      if (attempt > 0) {
        const backoff = Math.min(this.opts.maxDelayMs, this.opts.baseDelayMs * 2 ** (attempt - 1));
        const retryAfter = lastError?.status === 429 ? this.retryAfterMs : 0;
        await this.opts.sleep(Math.max(retryAfter, backoff * (0.5 + Math.random() / 2)));
      }
      try {
        const res = await this.queue.add(() => this.once(url, init));
        if (res.status >= 200 && res.status < 300) return res;
        lastError = new UpstreamError(`${init.method ?? 'GET'} ${url} answered ${res.status}`, res.status);
        if (!retryable(res.status)) throw lastError;
      } catch (err) {
        if (err instanceof UpstreamError && err.status !== null && !retryable(err.status)) throw err;
        lastError = err instanceof UpstreamError ? err : new UpstreamError(`${init.method ?? 'GET'} ${url} failed: ${(err as Error).message}`, null);
      }
    }
    throw lastError!;
  }

  private retryAfterMs = 0;

  private async once(url: string, init: { method?: string; json?: unknown; headers?: Record<string, string> }): Promise<HttpResponse> {
    const headers: Record<string, string> = { 'User-Agent': this.opts.userAgent, Accept: 'application/json, application/xml;q=0.9, */*;q=0.5', ...init.headers };
    let body: string | undefined;
    if (init.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    const res = await fetch(url, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body, signal: AbortSignal.timeout(this.opts.timeoutMs) });
    const bytes = Buffer.from(await res.arrayBuffer());
    const declared = res.headers.get('content-length');
    if (declared !== null && !res.headers.get('content-encoding') && Number(declared) !== bytes.length) {
      throw new UpstreamError(`${url}: body truncated (${bytes.length} of ${declared} bytes)`, null);
    }
    const ra = res.headers.get('retry-after');
    this.retryAfterMs = ra && /^\d+$/.test(ra) ? Number(ra) * 1_000 : 0;
    const contentType = res.headers.get('content-type') ?? '';
    return { status: res.status, contentType, body: decodeBody(bytes, contentType) };
  }
}

/**
 * A body as text: in the charset its Content-Type names, else the one an XML declaration names, else
 * UTF-8. A byte-order mark is dropped (JSON.parse refuses one). A charset no decoder knows is read
 * as UTF-8, where bytes that are no UTF-8 become U+FFFD.
 */
function decodeBody(bytes: Buffer, contentType: string): string {
  const head = bytes.subarray(0, 200).toString('latin1').replace(/^\xEF\xBB\xBF/, '');
  const declared = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1]
    ?? /^<\?xml[^>]*\sencoding\s*=\s*["']([^"']+)["']/.exec(head)?.[1];
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
