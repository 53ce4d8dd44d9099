// The benchmark corpus as a pdi data directory, cached outside git: documents.db holds generate.ts's
// documents as the ingest pipeline stores them (Greek letters composed, content hash, entity index)
// with their vectors of the fallback embedder cached, so an engine is loaded from it by the real
// `pdi reindex` of every source (ingest/reindex.ts: one generation, counts verified per source).
//   node --import tsx bench/search/corpus.ts [--docs 1000000] [--seed 20240611]   builds it, prints its path
// With --from demo, the corpus grown from the demo corpus's real documents instead (grown.ts), and with
// --vectors model its vectors are blends of the real model's of the demo (PDI_MODEL_DIR, see grown.ts).
// Then: PDI_DATA_DIR=<path> [ELASTICSEARCH_URL=… PDI_INDEX_PREFIX=bench1000000] npx pdi reindex
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { reindex } from '../../ingest/reindex.js';
import { composedText } from '../../ingest/sources/text.js';
import { embedAll, embeddingCacheKey } from '../../ingest/stages/embed.js';
import { contentHash } from '../../ingest/stages/hash.js';
import { DocumentStore, type StoredRecord } from '../../ingest/state/documents.js';
import { IngestState } from '../../ingest/state/store.js';
import { SqliteBlobStore } from '../../lib/blob-store.js';
import type { Embedder } from '../../lib/embedding/embedder.js';
import { HashingEmbedder } from '../../lib/embedding/index.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { demoRecords, withVectors } from '../relevance/corpus.js';
import { cacheRoot, loadModel } from '../vectors/sample.js';
import { Generator } from './generate.js';
import { GrownCorpus, grownVector } from './grown.js';

/** The embedder the corpus's vectors are cached for: the one pdi runs with no model (the benches' MODEL). */
export const CORPUS_MODEL = 'pdi/hashing-384';
const BATCH = 5_000;

/** Where the corpus of (n, seed) lives: PDI_BENCH_CACHE, else ~/.cache/pdi/bench-<n>-<seed>. */
export function corpusDir(n: number, seed: number): string {
  const root = process.env.PDI_BENCH_CACHE ?? path.join(process.env.PDI_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'pdi'));
  return path.join(root, `bench-${n}-${seed}`);
}

interface Marker {
  n: number;
  seed: number;
  model: string;
  build_seconds: number;
  /** Absent: the synthetic corpus. */
  from?: 'demo';
}

/** Builds the corpus unless its directory already holds it whole (a marker written last). Returns the directory. */
export async function ensureCorpus(n: number, seed: number, progress: (msg: string) => void): Promise<string> {
  const dir = corpusDir(n, seed);
  const markerFile = path.join(dir, 'corpus.json');
  if (fs.existsSync(markerFile)) {
    const m = JSON.parse(fs.readFileSync(markerFile, 'utf8')) as Marker;
    if (m.n === n && m.seed === seed && m.model === CORPUS_MODEL) return dir;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  progress(`building the corpus of ${n} documents in ${dir}`);
  const started = performance.now();
  const gen = new Generator(n, seed);
  const store = new DocumentStore(DocumentStore.pathIn(dir));
  const embedder = new HashingEmbedder(384);
  try {
    for (let from = 0; from < n; from += BATCH) {
      const records: StoredRecord[] = [];
      for (let i = from; i < Math.min(n, from + BATCH); i++) {
        const { indexed_at, content_hash: _h, original, embedding: _e, ...normalized } = gen.document(i);
        const doc = composedText(normalized);
        records.push({ doc, content_hash: contentHash(doc), original, indexed_at });
      }
      store.save(records);
      await embedAll(
        embedder,
        store,
        records.map((r) => ({ doc: r.doc, contentHash: r.content_hash })),
      );
      if ((from + BATCH) % 100_000 === 0) progress(`${from + BATCH} documents stored`);
    }
  } finally {
    store.close();
  }
  const marker: Marker = { n, seed, model: CORPUS_MODEL, build_seconds: Math.round((performance.now() - started) / 100) / 10 };
  fs.writeFileSync(markerFile, JSON.stringify(marker));
  progress(`corpus built in ${marker.build_seconds} s`);
  return dir;
}

/**
 * Loads the corpus of `gen` into `provider` by the reindex of every source, unless it already holds
 * exactly `gen.n` documents (a previous run's: Elasticsearch's bench indices persist).
 */
export async function loadCorpus(provider: SearchProvider, gen: Generator, progress: (msg: string) => void): Promise<void> {
  if ((await provider.stats()).total_documents === gen.n) return;
  const dir = await ensureCorpus(gen.n, gen.seed, progress);
  progress(`loading ${gen.n} documents into ${provider.engine} (pdi reindex of every source)`);
  const started = performance.now();
  const r = await reindexFrom(dir, provider, 'all');
  progress(`${r.documents} documents in ${((performance.now() - started) / 1000).toFixed(0)} s: ${JSON.stringify(r.bySource)}`);
}

/**
 * `pdi reindex [source]` over the corpus directory `dir`, into `provider`; `embedder` must be the one
 * whose id the provider was built with (its vectors are read from the cache).
 */
export async function reindexFrom(dir: string, provider: SearchProvider, scope: Parameters<typeof reindex>[1], embedder: Embedder = new HashingEmbedder(384)) {
  const documents = new DocumentStore(DocumentStore.pathIn(dir));
  const state = new IngestState(IngestState.pathIn(dir));
  const blobs = new SqliteBlobStore(SqliteBlobStore.pathIn(dir));
  try {
    const log = pino({ level: 'warn' });
    return await reindex({ search: provider, embedder, documents, state, blobs, log }, scope);
  } finally {
    documents.close();
    state.close();
    blobs.close();
  }
}

/** Where the corpus grown from the demo of (n, seed) lives, beside the synthetic one: grown-<n>-<seed>. */
export function grownCorpusDir(n: number, seed: number): string {
  return path.join(path.dirname(corpusDir(n, seed)), `grown-${n}-${seed}`);
}

/**
 * Builds the corpus grown from the demo (grown.ts) unless its directory already holds it whole, with the
 * real model's blended vectors when `model` is given, else the fallback embedder's. Returns the directory.
 */
export async function ensureGrownCorpus(n: number, seed: number, progress: (msg: string) => void, model: Embedder | null = null): Promise<string> {
  const dir = grownCorpusDir(n, seed);
  const markerFile = path.join(dir, 'corpus.json');
  const embedder = model ?? new HashingEmbedder(384);
  if (fs.existsSync(markerFile)) {
    const m = JSON.parse(fs.readFileSync(markerFile, 'utf8')) as Marker;
    if (m.n === n && m.seed === seed && m.model === embedder.id && m.from === 'demo') return dir;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  progress(`growing a corpus of ${n} documents from the demo in ${dir}`);
  const started = performance.now();
  const records = await demoRecords();
  const gen = new GrownCorpus(
    records.map((r) => r.doc),
    n,
    seed,
  );
  // The real model embeds the demo once per machine (the relevance bench's cache); copies blend those.
  const sample = model ? (await withVectors(records, model, path.join(cacheRoot, 'relevance'))).map((d) => new Float32Array(d.embedding!)) : null;
  const store = new DocumentStore(DocumentStore.pathIn(dir));
  try {
    for (let from = 0; from < n; from += BATCH) {
      const batch: StoredRecord[] = [];
      for (let i = from; i < Math.min(n, from + BATCH); i++) {
        const doc = composedText(gen.document(i));
        batch.push({ doc, content_hash: contentHash(doc), original: null, indexed_at: '2026-01-01T00:00:00Z' });
      }
      store.save(batch);
      const items = batch.map((r) => ({ doc: r.doc, contentHash: r.content_hash }));
      if (sample) {
        store.saveVectors(
          embeddingCacheKey(embedder),
          items.map((it, k) => ({ contentHash: it.contentHash, vector: Array.from(grownVector(gen, sample, from + k)) })),
        );
      } else await embedAll(embedder, store, items);
      if ((from + BATCH) % 100_000 === 0) progress(`${from + BATCH} documents stored`);
    }
  } finally {
    store.close();
  }
  const marker: Marker = { n, seed, model: embedder.id, build_seconds: Math.round((performance.now() - started) / 100) / 10, from: 'demo' };
  fs.writeFileSync(markerFile, JSON.stringify(marker));
  progress(`corpus built in ${marker.build_seconds} s`);
  return dir;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      docs: { type: 'string', default: '1000000' },
      seed: { type: 'string', default: '20240611' },
      from: { type: 'string', default: 'synthetic' },
      vectors: { type: 'string', default: 'hashing' },
    },
  });
  const progress = (msg: string) => process.stderr.write(`[corpus ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
  if (values.from !== 'synthetic' && values.from !== 'demo') throw new Error('--from is synthetic or demo');
  if (values.vectors !== 'hashing' && values.vectors !== 'model') throw new Error('--vectors is hashing or model');
  if (values.vectors === 'model' && values.from !== 'demo')
    throw new Error('--vectors model needs --from demo (bench/vectors/add-vectors.ts gives the synthetic corpus blended vectors)');
  const dir =
    values.from === 'demo'
      ? await ensureGrownCorpus(Number(values.docs), Number(values.seed), progress, values.vectors === 'model' ? await loadModel() : null)
      : await ensureCorpus(Number(values.docs), Number(values.seed), progress);
  process.stdout.write(`${dir}\n`);
}
