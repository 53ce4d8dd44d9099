// The real embedder: a transformers.js feature-extraction pipeline over a sentence model in a local
// folder (no model hub at run time), mean pooling + L2 normalisation. `scripts/fetch-model.sh` builds
// the folder; docs/embeddings.md says which model and where it comes from.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Embedder } from './embedder.js';

/** The model folder is missing, incomplete or does not run; the message says which and how to fix it. */
export class ModelLoadError extends Error {
  constructor(readonly modelDir: string, problem: string) {
    super(`Embedding model at ${modelDir}: ${problem}`);
    this.name = 'ModelLoadError';
  }
}

export interface ModelEmbedderOptions {
  /** Texts are cut to this many characters (at a word boundary) before tokenizing. Default 1000. */
  maxChars?: number;
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

interface Extractor {
  (texts: string[], options: { pooling: 'mean'; normalize: boolean }): Promise<{ dims: number[]; data: Float32Array }>;
  dispose?: () => Promise<void>;
}

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
    private readonly batchSize: number,
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
    try {
      const transformers = await import('@xenova/transformers');
      const { env, pipeline } = transformers;
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
      options.batchSize ?? 16,
    );
  }

  /** One unit vector per text, in order. Calls run one at a time (the runtime already uses every core). */
  embed(texts: string[]): Promise<number[][]> {
    const run = this.queue.then(() => this.embedNow(texts));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async embedNow(texts: string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      const batch = texts.slice(i, i + this.batchSize).map((t) => this.prefix + clip(t.replace(/\s+/g, ' ').trim(), this.maxChars));
      const tensor = await this.extractor(batch, { pooling: 'mean', normalize: true });
      const dim = tensor.dims[tensor.dims.length - 1];
      if (dim !== this.dimension) throw new Error(`${this.id} returned ${dim} dimensions, expected ${this.dimension}`);
      for (let r = 0; r < batch.length; r++) out.push(Array.from(tensor.data.subarray(r * dim, (r + 1) * dim)));
    }
    return out;
  }

  /** Frees the ONNX session. */
  async dispose(): Promise<void> {
    await this.extractor.dispose?.();
  }
}
