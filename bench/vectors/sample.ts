// Vectors with the real model's distribution at any count, for the 1,000,000-document benchmarks.
//
// The real model (multilingual-e5-small, scripts/fetch-model.sh) embeds ~30 documents a second here, so
// 1M real embeddings would take ~9 hours. Instead: the real model embeds the demo corpus (3,948 real
// documents, data/demo, cached by bench/relevance in ~/.cache/pdi/relevance) and vector i of a larger set
// is a seeded blend of two of those: normalize(w·a + (1 − w)·b), w uniform in [0.5, 1). Each derived vector
// lies between two real documents' embeddings, nearest its first, so the set keeps the model's geometry
// (the anisotropy of E5 vectors, the topical clusters of the corpus) while no two vectors are equal.
// Questions are the judged queries of test/fixtures/relevance embedded by the model (54 when
// docs/benchmarks.md "Vectors (kNN)" was measured; 112 since).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mulberry32 } from '../../data/generator/prng.js';
import { defaultModelDir, ModelEmbedder } from '../../lib/embedding/index.js';
import { demoRecords, withVectors } from '../relevance/corpus.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
export const cacheRoot = process.env.PDI_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'pdi');

export async function loadModel(): Promise<ModelEmbedder> {
  const dir = process.env.PDI_MODEL_DIR || defaultModelDir();
  if (!fs.existsSync(path.join(dir, 'config.json'))) throw new Error(`no model in ${dir}: run scripts/fetch-model.sh`);
  return ModelEmbedder.load(dir);
}

/** The real model's vectors of the demo corpus (embedded once per machine, then read from the cache). */
export async function realSample(model: ModelEmbedder): Promise<Float32Array[]> {
  const docs = await withVectors(await demoRecords(), model, path.join(cacheRoot, 'relevance'));
  return docs.map((d) => new Float32Array(d.embedding!));
}

/** The judged questions of the relevance set, embedded by the model (as ask embeds a question). */
export async function questionVectors(model: ModelEmbedder): Promise<{ text: string; vector: Float32Array }[]> {
  const { queries } = JSON.parse(fs.readFileSync(path.join(root, 'test/fixtures/relevance/queries.json'), 'utf8')) as { queries: { query: string }[] };
  const vectors = await model.embed(queries.map((q) => q.query));
  return queries.map((q, i) => ({ text: q.query, vector: new Float32Array(vectors[i]) }));
}

/** Derived vector i (see the header): depends only on (sample, seed, i). */
export function derivedVector(sample: Float32Array[], seed: number, i: number, out = new Float32Array(sample[0].length)): Float32Array {
  const rnd = mulberry32((seed ^ Math.imul(i + 1, 0x9e3779b1)) >>> 0);
  const a = sample[Math.floor(rnd() * sample.length)];
  const b = sample[Math.floor(rnd() * sample.length)];
  return blend(a, b, 0.5 + 0.5 * rnd(), out);
}

/** normalize(w·a + (1 − w)·b), written into `out`. */
export function blend(a: Float32Array, b: Float32Array, w: number, out: Float32Array): Float32Array {
  let norm = 0;
  for (let j = 0; j < out.length; j++) {
    out[j] = w * a[j] + (1 - w) * b[j];
    norm += out[j] * out[j];
  }
  norm = Math.sqrt(norm);
  for (let j = 0; j < out.length; j++) out[j] /= norm;
  return out;
}
