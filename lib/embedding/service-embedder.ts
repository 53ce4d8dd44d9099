// Embeddings from an OpenAI-compatible endpoint (POST {PDI_EMBED_URL}/embeddings): Text Embeddings
// Inference, vLLM, Infinity, Ollama, llama.cpp's server or a hosted provider. The model then runs on
// the service's hardware, and this process only sends text and receives vectors.
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
    problem: string,
    readonly status: number | null = null,
  ) {
    super(`embedding service ${endpoint}: ${problem}`);
    this.name = 'EmbeddingServiceError';
  }
}

/** A Retry-After longer than this is not waited for: the request fails and says so. */
const MAX_RETRY_AFTER_MS = 60_000;
const MAX_BACKOFF_MS = 10_000;

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
   * start) and proves the endpoint, the key and the model name work.
   */
  static async connect(opts: ServiceEmbedderOptions): Promise<ServiceEmbedder> {
    const embedder = new ServiceEmbedder(serviceEmbedderId(opts), 0, opts);
    const [probe] = await embedder.request(['probe']);
    embedder.dimension = probe.length;
    return embedder;
  }

  /** One unit vector per text, in order; `kind` picks the prefix. */
  async embed(texts: string[], kind: EmbedKind = 'passage'): Promise<number[][]> {
    const prefix = kind === 'query' ? this.opts.queryPrefix : this.opts.passagePrefix;
    const inputs = texts.map((t) => prefix + clip(t.replace(/\s+/g, ' ').trim(), this.opts.maxChars ?? 1000));
    const batches: string[][] = [];
    for (let i = 0; i < inputs.length; i += this.opts.batchSize) batches.push(inputs.slice(i, i + this.opts.batchSize));
    const results = await Promise.all(batches.map((b) => this.limited(() => this.request(b))));
    return results.flat();
  }

  /** Runs `fn` when fewer than `concurrency` requests are in flight. */
  private async limited<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inFlight >= this.opts.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.inFlight++;
    try {
      return await fn();
    } finally {
      // The slot passes straight to the next waiter, so the count stays right.
      const next = this.waiting.shift();
      if (next) next();
      else this.inFlight--;
    }
  }

  /** One request, retried after a 429, a 5xx, a timeout or a network error. */
  private async request(input: string[]): Promise<number[][]> {
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(input);
      if ('vectors' in outcome) return outcome.vectors;
      if (!outcome.retry || attempt >= this.opts.retries) throw outcome.error;
      const backoff = Math.min(MAX_BACKOFF_MS, (this.opts.backoffMs ?? 500) * 2 ** attempt);
      // Jitter keeps the requests of several processes from coming back together.
      const wait = outcome.retryAfterMs ?? backoff * (0.5 + Math.random() / 2);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  private async attempt(input: string[]): Promise<{ vectors: number[][] } | { error: EmbeddingServiceError; retry: boolean; retryAfterMs?: number }> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json' };
    if (this.opts.key) headers.Authorization = `Bearer ${this.opts.key}`;
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.opts.url}/embeddings`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.opts.model, input }),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const problem =
        e.name === 'TimeoutError' ? `no answer within ${this.opts.timeoutMs / 1000} s` : `unreachable (${e.cause?.code ?? e.cause?.message ?? e.message})`;
      return { error: new EmbeddingServiceError(this.endpoint, problem), retry: true };
    }
    if (!res.ok) {
      const retry = res.status === 429 || res.status >= 500;
      const retryAfterMs = retryAfter(res.headers.get('retry-after'));
      const tooLong = retryAfterMs !== undefined && retryAfterMs > MAX_RETRY_AFTER_MS;
      const detail = printable(text.replace(/\s+/g, ' ').trim().slice(0, 200));
      const problem = `answered ${res.status}${detail ? `: ${detail}` : ''}${tooLong ? ` (Retry-After ${Math.round(retryAfterMs / 1000)} s is too long to wait)` : ''}`;
      return { error: new EmbeddingServiceError(this.endpoint, problem, res.status), retry: retry && !tooLong, retryAfterMs };
    }
    try {
      return { vectors: this.vectors(JSON.parse(text), input.length) };
    } catch (err) {
      return {
        error: new EmbeddingServiceError(this.endpoint, `answered ${res.status} with no usable embeddings: ${(err as Error).message}`, res.status),
        retry: false,
      };
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

function unit(v: number[]): number[] {
  let norm = 0;
  for (const x of v) norm += x * x;
  if (norm === 0) return v;
  const inv = 1 / Math.sqrt(norm);
  return v.map((x) => x * inv);
}
