// Embeddings from an OpenAI-compatible endpoint (POST {PDI_EMBED_URL}/embeddings): Text Embeddings
// Inference, vLLM, Infinity, Ollama, llama.cpp's server or a hosted provider. The model then runs on
// the service's hardware, and this process only sends text and receives vectors. The endpoint is pinned:
// a redirect is refused, not followed (text, questions and the key go to it alone, and vectors come
// from it alone), and an answer is read with a byte cap as it streams.
import { setTimeout as sleep } from 'node:timers/promises';
import { BodyTooLarge, readCapped } from '../capped-body.js';
import { type EmbedService, withoutPassword } from '../config.js';
import { printable } from '../terminal.js';
import type { Embedder, EmbedKind } from './embedder.js';
import { clip } from './model-embedder.js';

/** The service as configured (config.ts EmbedService), and what tests tune. */
export interface ServiceEmbedderOptions extends EmbedService {
  /** First wait before a retry, ms (doubled each time). Default 500. */
  backoffMs?: number;
  /** Texts are cut to this many characters (at a word boundary). Default 1000, as the local model. */
  maxChars?: number;
}

/** The endpoint failed, answered an error, or answered something that is not embeddings. */
export class EmbeddingServiceError extends Error {
  constructor(
    readonly endpoint: string,
    readonly problem: string,
    readonly status: number | null = null,
  ) {
    super(`embedding service ${endpoint}: ${problem}`);
    this.name = 'EmbeddingServiceError';
  }
}

/** A Retry-After longer than this is not waited for: the request fails and says so. */
const MAX_RETRY_AFTER_MS = 60_000;
const MAX_BACKOFF_MS = 10_000;
/**
 * The largest answer read, per text of the request: a 4096-d vector as JSON floats is about 100 KB, so
 * this holds any model's; an endless or runaway body stops here. An error answer is read to ERROR_BYTES.
 */
const ANSWER_BYTES_PER_TEXT = 256 * 1024;
const ERROR_BYTES = 64 * 1024;

export class ServiceEmbedder implements Embedder {
  readonly fallback = false;
  /** The endpoint as shown in messages and `pdi status`: no password, and never the key. */
  readonly endpoint: string;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  private constructor(
    readonly id: string,
    public dimension: number,
    private readonly opts: ServiceEmbedderOptions,
  ) {
    this.endpoint = withoutPassword(`${opts.url}/embeddings`);
  }

  /**
   * The embedder, after one probe embedding that gives the vector length (checked against the index at
   * start) and proves the endpoint, the key and the model name work. The probe, retries included, ends
   * within `deadlineMs` (one request's timeout unless given): a service that accepts connections and
   * never answers held a start through every retry's timeout, 150 s by default.
   */
  static async connect(opts: ServiceEmbedderOptions, deadlineMs = opts.timeoutMs): Promise<ServiceEmbedder> {
    const embedder = new ServiceEmbedder(serviceEmbedderId(opts), 0, opts);
    try {
      const [probe] = await embedder.request(['probe'], undefined, performance.now() + deadlineMs);
      embedder.dimension = probe.length;
    } catch (err) {
      if (!(err instanceof EmbeddingServiceError)) throw err;
      throw new EmbeddingServiceError(
        embedder.endpoint,
        `${err.problem}: check that the service runs at PDI_EMBED_URL and serves PDI_EMBED_MODEL ${opts.model}${opts.key ? ' for PDI_EMBED_KEY' : ''}`,
        err.status,
      );
    }
    return embedder;
  }

  /**
   * The embedder without a probe, its vectors known to be `dimension` long (those cached for it): a
   * reindex that embeds nothing needs no service at all, and one that embeds meets a failure then.
   */
  static assume(opts: ServiceEmbedderOptions, dimension: number): ServiceEmbedder {
    return new ServiceEmbedder(serviceEmbedderId(opts), dimension, opts);
  }

  /**
   * One unit vector per text, in order; `kind` picks the prefix. `signal` ends the call (its requests,
   * its place in the queue, a wait before a retry) with the signal's reason: ask's deadline.
   */
  async embed(texts: string[], kind: EmbedKind = 'passage', signal?: AbortSignal): Promise<number[][]> {
    const prefix = kind === 'query' ? this.opts.queryPrefix : this.opts.passagePrefix;
    const inputs = texts.map((t) => prefix + clip(t.replace(/\s+/g, ' ').trim(), this.opts.maxChars ?? 1000));
    const batches: string[][] = [];
    for (let i = 0; i < inputs.length; i += this.opts.batchSize) batches.push(inputs.slice(i, i + this.opts.batchSize));
    const results = await Promise.all(batches.map((b) => this.limited(() => this.request(b, signal), signal)));
    return results.flat();
  }

  /** Runs `fn` when fewer than `concurrency` requests are in flight; a place in the queue ends with `signal`. */
  private async limited<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.inFlight >= this.opts.concurrency) {
      await new Promise<void>((resolve, reject) => {
        const turn = () => {
          signal?.removeEventListener('abort', leave);
          resolve();
        };
        const leave = () => {
          this.waiting.splice(this.waiting.indexOf(turn), 1);
          reject(signal!.reason);
        };
        this.waiting.push(turn);
        signal?.addEventListener('abort', leave, { once: true });
      });
    } else this.inFlight++;
    try {
      return await fn();
    } finally {
      // The slot passes straight to the next waiter, so the count stays right.
      const next = this.waiting.shift();
      if (next) next();
      else this.inFlight--;
    }
  }

  /** One request, retried after a 429, a 5xx, a timeout or a network error, until `deadline` (performance.now()) if given. */
  private async request(input: string[], signal?: AbortSignal, deadline = Number.POSITIVE_INFINITY): Promise<number[][]> {
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(input, Math.max(1, Math.ceil(Math.min(this.opts.timeoutMs, deadline - performance.now()))), signal);
      if ('vectors' in outcome) return outcome.vectors;
      if (!outcome.retry || attempt >= this.opts.retries) throw outcome.error;
      const backoff = Math.min(MAX_BACKOFF_MS, (this.opts.backoffMs ?? 500) * 2 ** attempt);
      // Jitter keeps the requests of several processes from coming back together.
      const wait = outcome.retryAfterMs ?? backoff * (0.5 + Math.random() / 2);
      if (performance.now() + wait >= deadline) throw outcome.error;
      await sleep(wait, undefined, { signal }).catch(() => signal!.throwIfAborted());
    }
  }

  private async attempt(
    input: string[],
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ vectors: number[][] } | { error: EmbeddingServiceError; retry: boolean; retryAfterMs?: number }> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
    if (this.opts.key) headers.Authorization = `Bearer ${this.opts.key}`;
    const fail = (problem: string, retry: boolean, status: number | null = null) => ({
      error: new EmbeddingServiceError(this.endpoint, problem, status),
      retry,
    });
    // One controller for the timeout and the caller's signal, its listener removed after: AbortSignal.any
    // kept every request's signals alive.
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new DOMException('timed out', 'TimeoutError')), timeoutMs);
    const stop = () => abort.abort(signal!.reason);
    signal?.addEventListener('abort', stop, { once: true });
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.opts.url}/embeddings`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.opts.model, input }),
        redirect: 'manual',
        signal: abort.signal,
      });
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel();
        const to = res.headers.get('location');
        return fail(
          `answered ${res.status}, a redirect${to ? ` to ${printable(to)}` : ''}: not followed (set PDI_EMBED_URL to the address that answers)`,
          false,
          res.status,
        );
      }
      // An error's text is only quoted (200 characters): one longer than ERROR_BYTES is not.
      text = res.ok
        ? (await readCapped(res, ERROR_BYTES + input.length * ANSWER_BYTES_PER_TEXT)).toString('utf8')
        : await readCapped(res, ERROR_BYTES).then(
            (body) => body.toString('utf8'),
            (err: unknown) => {
              if (err instanceof BodyTooLarge) return '';
              throw err;
            },
          );
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (err instanceof BodyTooLarge) return fail(`answered with ${err.message}, more than ${input.length} embeddings take`, false);
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const timedOut = abort.signal.aborted || e.name === 'TimeoutError';
      return fail(timedOut ? `no answer within ${seconds(timeoutMs)} s` : `unreachable (${e.cause?.code ?? e.cause?.message ?? e.message})`, true);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
    }
    if (!res.ok) {
      const retry = res.status === 429 || res.status >= 500;
      const retryAfterMs = retryAfter(res.headers.get('retry-after'));
      const tooLong = retryAfterMs !== undefined && retryAfterMs > MAX_RETRY_AFTER_MS;
      const detail = printable(text.replace(/\s+/g, ' ').trim().slice(0, 200));
      const problem = `answered ${res.status}${detail ? `: ${detail}` : ''}${tooLong ? ` (Retry-After ${Math.round(retryAfterMs / 1000)} s is too long to wait)` : ''}`;
      return { ...fail(problem, retry && !tooLong, res.status), retryAfterMs };
    }
    try {
      return { vectors: this.vectors(JSON.parse(text), input.length) };
    } catch (err) {
      return fail(`answered ${res.status} with no usable embeddings: ${(err as Error).message}`, false, res.status);
    }
  }

  /** The `data` of an embeddings response, by `index`, each of the expected length, L2-normalised. */
  private vectors(body: unknown, count: number): number[][] {
    const data = (body as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw new Error('no `data` array');
    if (data.length !== count) throw new Error(`${data.length} embeddings for ${count} inputs`);
    const out: number[][] = new Array(count);
    data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
      const index = typeof item?.index === 'number' ? item.index : position;
      const v = item?.embedding;
      if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw new Error(`entry ${position} has no numeric \`embedding\` (is encoding_format float?)`);
      }
      if (this.dimension !== 0 && v.length !== this.dimension) {
        throw new Error(`a vector of ${v.length} dimensions, where the model gave ${this.dimension} at start (did the service change model?)`);
      }
      if (!Number.isInteger(index) || index < 0 || index >= count || out[index]) throw new Error(`bad or repeated index ${index}`);
      out[index] = unit(v as number[]);
    });
    return out;
  }
}

/**
 * The id recorded in the index and keying the vectors cache: the model name, and the prefixes when there
 * are any, since a prefix changes every vector.
 */
export function serviceEmbedderId(opts: Pick<ServiceEmbedderOptions, 'model' | 'queryPrefix' | 'passagePrefix'>): string {
  if (!opts.queryPrefix && !opts.passagePrefix) return opts.model;
  return `${opts.model}|query=${JSON.stringify(opts.queryPrefix)}|passage=${JSON.stringify(opts.passagePrefix)}`;
}

/** Retry-After in ms: delta-seconds or an HTTP date. */
function retryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Milliseconds as seconds, to a tenth at most: "0.3", "30". */
function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

function unit(v: number[]): number[] {
  let norm = 0;
  for (const x of v) norm += x * x;
  if (norm === 0) return v;
  const inv = 1 / Math.sqrt(norm);
  return v.map((x) => x * inv);
}
