// The real embedder: a transformers.js feature-extraction pipeline over a sentence model in a local
// folder (no model hub at run time), mean pooling + L2 normalisation. `scripts/fetch-model.sh` builds
// the folder; docs/embeddings.md says which model and where it comes from.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Embedder } from './embedder.js';

/** The model folder is missing, incomplete or does not run; the message says which and how to fix it. */
export class ModelLoadError extends Error {
  constructor(
    readonly modelDir: string,
    problem: string,
  ) {
    super(`Embedding model at ${modelDir}: ${problem}`);
    this.name = 'ModelLoadError';
  }
}

export interface ModelEmbedderOptions {
  /** Texts are cut to this many characters (at a word boundary) before tokenizing. Default 1000. */
  maxChars?: number;
  /** Tokens per text at most, `<s>` and `</s>` included (the model takes 512). Default MAX_TOKENS. */
  maxTokens?: number;
  /** Texts per forward pass. Default 16. */
  batchSize?: number;
  /**
   * Run onnx/model_quantized.onnx (int8 matmuls: about twice as fast) rather than onnx/model.onnx.
   * Default: the quantized file when the folder has it.
   */
  quantized?: boolean;
}

/** Optional `pdi-model.json` beside the model, written by scripts/fetch-model.sh. */
interface Sidecar {
  id?: string;
  /** Put before every text, e.g. `query: ` for E5 models. */
  prefix?: string;
}

const REQUIRED = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];

type TensorConstructor = new (type: 'int64', data: BigInt64Array, dims: number[]) => unknown;

/** What transformers.js' feature-extraction pipeline holds: its tokenizer and the encoder it runs. */
interface Extractor {
  (texts: string[], options: { pooling: 'mean'; normalize: boolean }): Promise<{ dims: number[]; data: Float32Array }>;
  tokenizer: { encode(text: string): number[]; pad_token_id?: number };
  model: (inputs: Record<string, unknown>) => Promise<{ last_hidden_state: { dims: number[]; data: Float32Array } }>;
  dispose?: () => Promise<void>;
}

/** Tokens per text at most: the model's position table. A document's budget is set in characters by documentText. */
export const MAX_TOKENS = 512;

/** Cuts `text` to at most `max` characters, at the last whitespace if there is one in the last fifth. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.search(/\s\S*$/);
  return space > max * 0.8 ? cut.slice(0, space) : cut;
}

export class ModelEmbedder implements Embedder {
  readonly fallback = false;

  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly id: string,
    readonly dimension: number,
    /** Milliseconds the load took (pipeline creation + one probe embedding). */
    readonly loadMs: number,
    /** Which ONNX file runs: model_quantized.onnx (true) or model.onnx (false). */
    readonly quantized: boolean,
    private readonly extractor: Extractor,
    private readonly prefix: string,
    private readonly maxChars: number,
    private readonly maxTokens: number,
    private readonly batchSize: number,
    private readonly tensor: TensorConstructor,
  ) {}

  /**
   * Loads `<...>/<org>/<name>/` (the folder scripts/fetch-model.sh prints). Fails with a ModelLoadError
   * when the folder is missing or incomplete, or the model does not produce vectors.
   */
  static async load(modelDir: string, options: ModelEmbedderOptions = {}): Promise<ModelEmbedder> {
    const started = performance.now();
    const dir = path.resolve(modelDir);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      throw new ModelLoadError(dir, 'folder not found (run scripts/fetch-model.sh and set PDI_MODEL_DIR to the folder it prints)');
    }
    const missing = REQUIRED.filter((f) => !existsSync(path.join(dir, f)));
    const hasQuantized = existsSync(path.join(dir, 'onnx', 'model_quantized.onnx'));
    const hasFull = existsSync(path.join(dir, 'onnx', 'model.onnx'));
    if (options.quantized === true && !hasQuantized) missing.push('onnx/model_quantized.onnx');
    else if (options.quantized === false && !hasFull) missing.push('onnx/model.onnx');
    else if (!hasQuantized && !hasFull) missing.push('onnx/model_quantized.onnx or onnx/model.onnx');
    if (missing.length > 0) throw new ModelLoadError(dir, `incomplete, missing ${missing.join(', ')}`);
    const quantized = options.quantized ?? hasQuantized;

    let config: { hidden_size?: number };
    let sidecar: Sidecar = {};
    try {
      config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8'));
      const sidecarPath = path.join(dir, 'pdi-model.json');
      if (existsSync(sidecarPath)) sidecar = JSON.parse(readFileSync(sidecarPath, 'utf8'));
    } catch (err) {
      throw new ModelLoadError(dir, `unreadable JSON (${(err as Error).message})`);
    }

    // transformers.js resolves local models as <localModelPath>/<org>/<name>/; the id is that pair.
    const name = path.basename(dir);
    const org = path.basename(path.dirname(dir));
    const root = path.dirname(path.dirname(dir));
    const id = typeof sidecar.id === 'string' && sidecar.id ? sidecar.id : `${org}/${name}`;

    let extractor: Extractor;
    let tensor: TensorConstructor;
    try {
      const transformers = await import('@xenova/transformers');
      const { env, pipeline } = transformers;
      tensor = transformers.Tensor as unknown as TensorConstructor;
      env.allowRemoteModels = false;
      env.allowLocalModels = true;
      env.localModelPath = root + path.sep;
      extractor = (await pipeline('feature-extraction', `${org}/${name}`, { quantized })) as unknown as Extractor;
    } catch (err) {
      throw new ModelLoadError(dir, `transformers.js could not load it: ${(err as Error).message}`);
    }

    // The dimension is what the model outputs; a probe also proves the folder runs end to end.
    let dimension: number;
    try {
      const probe = await extractor(['probe'], { pooling: 'mean', normalize: true });
      dimension = probe.dims[probe.dims.length - 1];
    } catch (err) {
      throw new ModelLoadError(dir, `the model did not run: ${(err as Error).message}`);
    }
    if (!Number.isInteger(dimension) || dimension <= 0) throw new ModelLoadError(dir, `bad output shape`);
    if (config.hidden_size !== undefined && config.hidden_size !== dimension) {
      throw new ModelLoadError(dir, `outputs ${dimension} dimensions but config.json says hidden_size ${config.hidden_size}`);
    }

    return new ModelEmbedder(
      id,
      dimension,
      Math.round(performance.now() - started),
      quantized,
      extractor,
      typeof sidecar.prefix === 'string' ? sidecar.prefix : '',
      options.maxChars ?? 1000,
      Math.max(8, Math.min(512, options.maxTokens ?? MAX_TOKENS)),
      options.batchSize ?? 16,
      tensor,
    );
  }

  /** One unit vector per text, in order. Calls run one at a time (the runtime already uses every core). */
  embed(texts: string[]): Promise<number[][]> {
    const run = this.queue.then(() => this.embedNow(texts));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Tokenizes every text once, cut to the token budget, and runs them through the encoder in batches
   * of similar token counts: a batch is padded to its longest text, and in arrival order the padding
   * took a large share of the work.
   */
  private async embedNow(texts: string[]): Promise<number[][]> {
    const ids = texts.map((t) => this.tokens(t));
    const order = ids.map((_, i) => i).sort((a, b) => ids[a].length - ids[b].length);
    const out: number[][] = new Array(texts.length);
    for (let start = 0; start < order.length; start += this.batchSize) {
      const batch = order.slice(start, start + this.batchSize);
      const vectors = await this.forward(batch.map((i) => ids[i]));
      batch.forEach((i, k) => (out[i] = vectors[k]));
    }
    return out;
  }

  /** The token ids of a text with its prefix, `<s>` … `</s>`, at most maxTokens (the end marker kept). */
  private tokens(text: string): number[] {
    const ids = this.extractor.tokenizer.encode(this.prefix + clip(text.replace(/\s+/g, ' ').trim(), this.maxChars));
    return ids.length <= this.maxTokens ? ids : [...ids.slice(0, this.maxTokens - 1), ids[ids.length - 1]];
  }

  /** One forward pass: mean pooling over the real tokens, L2-normalised. */
  private async forward(batch: number[][]): Promise<number[][]> {
    const rows = batch.length;
    const width = Math.max(...batch.map((b) => b.length));
    const inputIds = new BigInt64Array(rows * width).fill(BigInt(this.extractor.tokenizer.pad_token_id ?? 1));
    const mask = new BigInt64Array(rows * width);
    batch.forEach((b, r) =>
      b.forEach((id, c) => {
        inputIds[r * width + c] = BigInt(id);
        mask[r * width + c] = 1n;
      }),
    );
    const { last_hidden_state: hidden } = await this.extractor.model({
      input_ids: new this.tensor('int64', inputIds, [rows, width]),
      attention_mask: new this.tensor('int64', mask, [rows, width]),
    });
    const dim = hidden.dims[hidden.dims.length - 1];
    if (dim !== this.dimension) throw new Error(`${this.id} returned ${dim} dimensions, expected ${this.dimension}`);
    return batch.map((b, r) => {
      const v = new Float64Array(dim);
      for (let c = 0; c < b.length; c++) {
        const at = (r * width + c) * dim;
        for (let d = 0; d < dim; d++) v[d] += hidden.data[at + d];
      }
      let norm = 0;
      for (let d = 0; d < dim; d++) norm += v[d] * v[d];
      const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      return Array.from(v, (x) => x * inv);
    });
  }

  /** Frees the ONNX session. */
  async dispose(): Promise<void> {
    await this.extractor.dispose?.();
  }
}
