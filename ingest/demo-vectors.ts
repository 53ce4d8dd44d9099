// The demo corpus's vectors for the pinned model, shipped in data/demo-vectors.bin so that a first start
// is semantic without embedding ~4,000 documents (about a minute of both cores). They are seeded into the
// vectors cache (documents.db, keyed by model + text recipe + content hash) before the demo load and
// before a switch to the model; a document whose content hash is not in the file is simply embedded.
// scripts/demo-vectors.ts writes the file.
import fs from 'node:fs';
import { projectPath } from '../lib/paths.js';
import type { DocumentStore } from './state/documents.js';

export const DEMO_VECTORS_FILE = projectPath('data', 'demo-vectors.bin');
const FORMAT = 'pdi-demo-vectors-1';

/** The file's first line (JSON); then `count` records of a 32-byte sha256, a float32 LE scale and `dimension` int8. */
export interface DemoVectorsHeader {
  format: typeof FORMAT;
  /** The vectors cache key they belong to (embeddingCacheKey: model id and text recipe). */
  cacheKey: string;
  dimension: number;
  count: number;
}

export interface DemoVector {
  contentHash: string;
  vector: number[];
}

/** int8 per vector, scaled by its largest component: cosine to the original above 0.9999 at 384 dimensions. */
export function encodeDemoVectors(cacheKey: string, items: DemoVector[]): Buffer {
  const dimension = items[0]?.vector.length ?? 0;
  const sorted = [...items].sort((a, b) => (a.contentHash < b.contentHash ? -1 : a.contentHash > b.contentHash ? 1 : 0));
  const header: DemoVectorsHeader = { format: FORMAT, cacheKey, dimension, count: sorted.length };
  const size = 32 + 4 + dimension;
  const body = Buffer.alloc(size * sorted.length);
  sorted.forEach((it, i) => {
    if (it.vector.length !== dimension) throw new Error(`vector of ${it.contentHash} has ${it.vector.length} dimensions, not ${dimension}`);
    const at = i * size;
    body.write(it.contentHash, at, 32, 'hex');
    const scale = Math.max(...it.vector.map(Math.abs)) / 127 || 1;
    body.writeFloatLE(scale, at + 32);
    it.vector.forEach((x, d) => body.writeInt8(Math.round(x / scale), at + 36 + d));
  });
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), body]);
}

/** The header and unit-length vectors of a file written by encodeDemoVectors. */
export function decodeDemoVectors(data: Buffer): { header: DemoVectorsHeader; items: DemoVector[] } {
  const newline = data.indexOf(0x0a);
  const header = JSON.parse(data.subarray(0, newline).toString('utf8')) as DemoVectorsHeader;
  if (header.format !== FORMAT) throw new Error(`not a demo vectors file (format ${String(header.format)})`);
  const size = 32 + 4 + header.dimension;
  const body = data.subarray(newline + 1);
  if (body.length !== size * header.count) throw new Error(`demo vectors file holds ${body.length} bytes of records, expected ${size * header.count}`);
  const items: DemoVector[] = [];
  for (let i = 0; i < header.count; i++) {
    const at = i * size;
    const scale = body.readFloatLE(at + 32);
    const v = Array.from({ length: header.dimension }, (_, d) => body.readInt8(at + 36 + d) * scale);
    const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
    items.push({ contentHash: body.toString('hex', at, at + 32), vector: v.map((x) => x / norm) });
  }
  return { header, items };
}

/**
 * Puts the shipped vectors into the cache when they are of `cacheKey`; returns how many the file holds
 * (0 for another model, or no file). Vectors already cached are kept.
 */
export function seedDemoVectors(store: DocumentStore, cacheKey: string, file = DEMO_VECTORS_FILE): number {
  if (!fs.existsSync(file)) return 0;
  const data = fs.readFileSync(file);
  const line = data.subarray(0, data.indexOf(0x0a)).toString('utf8');
  if ((JSON.parse(line) as DemoVectorsHeader).cacheKey !== cacheKey) return 0;
  const { items } = decodeDemoVectors(data);
  store.saveVectors(cacheKey, items);
  return items.length;
}
