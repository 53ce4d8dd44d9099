// The demo corpus (data/demo) as the index holds it, for the relevance benchmark: normalized through the
// real pipeline once, then embedded per embedder with the ingest cache (vectors kept in
// ~/.cache/pdi/relevance/vectors.db, so the real model embeds the corpus once per machine).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { IndexedDocument, NormalizedDocument } from '../../index-mappings/document.js';
import { loadDemo } from '../../ingest/demo.js';
import { learnCpvLabels } from '../../ingest/sources/ted/cpv-labels.js';
import { withCpvLabels as labelled } from '../../ingest/stages/cpv-labels.js';
import { embedAll } from '../../ingest/stages/embed.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { IngestState } from '../../ingest/state/store.js';
import { SqliteBlobStore } from '../../lib/blob-store.js';
import type { Embedder } from '../../lib/embedding/embedder.js';
import { HashingEmbedder } from '../../lib/embedding/hashing-embedder.js';
import { createLogger } from '../../lib/logger.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import type { SearchProvider } from '../../lib/search/provider.js';

export interface DemoRecord {
  doc: NormalizedDocument;
  content_hash: string;
  indexed_at: string;
}

/** Every document of the demo corpus, normalized by the ingest pipeline (in a throw-away data folder). */
export async function demoRecords(): Promise<DemoRecord[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-relevance-'));
  try {
    const embedder = new HashingEmbedder();
    const search = new EmbeddedProvider({ file: path.join(dir, 'index.db'), dimension: embedder.dimension, embeddingModel: embedder.id });
    await search.init();
    const deps = {
      search,
      embedder,
      blobs: new SqliteBlobStore(SqliteBlobStore.pathIn(dir)),
      state: new IngestState(IngestState.pathIn(dir)),
      documents: new DocumentStore(DocumentStore.pathIn(dir)),
      log: createLogger('silent'),
    };
    const load = await loadDemo(deps);
    if (load.notLoaded.length) throw new Error(`demo sources not loaded: ${JSON.stringify(load.notLoaded)}`);
    const rows = deps.documents.db.prepare('SELECT doc, content_hash, indexed_at FROM documents ORDER BY source_id').all() as {
      doc: string;
      content_hash: string;
      indexed_at: string;
    }[];
    await search.close();
    deps.blobs.close();
    deps.state.close();
    deps.documents.close();
    return rows.map((r) => ({ doc: JSON.parse(r.doc), content_hash: r.content_hash, indexed_at: r.indexed_at }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The records as indexed documents with `embedder`'s vectors (cached across runs). */
export async function withVectors(records: DemoRecord[], embedder: Embedder, cacheDir: string): Promise<IndexedDocument[]> {
  fs.mkdirSync(cacheDir, { recursive: true });
  const store = new DocumentStore(path.join(cacheDir, 'vectors.db'));
  try {
    const { vectors } = await embedAll(
      embedder,
      store,
      records.map((r) => ({ doc: r.doc, contentHash: r.content_hash })),
    );
    return records.map((r, i) => ({ ...r.doc, indexed_at: r.indexed_at, content_hash: r.content_hash, original: null, embedding: vectors[i] }));
  } finally {
    store.close();
  }
}

/** The documents with the labels of their CPV codes, as ingest gives them (ingest/stages/cpv-labels.ts). */
export function withCpvLabels(docs: IndexedDocument[]): IndexedDocument[] {
  const learned = learnCpvLabels(docs);
  const out = docs.map((doc) => labelled(doc, (code) => learned.get(code)));
  const count = out.filter((d) => d.cpv_labels_en || d.cpv_labels_el).length;
  process.stderr.write(`cpv labels: ${learned.size} codes learned from TED, ${count} documents labelled\n`);
  return out;
}

/** The documents indexed in a fresh index of engine `name` (null: Elasticsearch without ELASTICSEARCH_URL); close() removes it. */
export async function indexedEngine(
  name: string,
  embedder: Embedder,
  docs: IndexedDocument[],
): Promise<{ search: SearchProvider; close(): Promise<void> } | null> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-relevance-index-'));
  const prefix = `relevance${process.pid}${Date.now() % 100_000}`;
  let search: SearchProvider;
  if (name === 'embedded') search = new EmbeddedProvider({ file: path.join(dir, 'index.db'), dimension: embedder.dimension, embeddingModel: embedder.id });
  else if (process.env.ELASTICSEARCH_URL)
    search = new ElasticsearchProvider({ url: process.env.ELASTICSEARCH_URL, prefix, dimension: embedder.dimension, embeddingModel: embedder.id });
  else return null;
  await search.init();
  for (let i = 0; i < docs.length; i += 500) {
    const { failed } = await search.upsert(docs.slice(i, i + 500));
    if (failed.length) throw new Error(`${failed.length} documents refused: ${failed[0].error}`);
  }
  await search.refresh();
  return {
    search,
    async close() {
      if (search.engine === 'elasticsearch') await fetch(`${process.env.ELASTICSEARCH_URL}/${prefix}*`, { method: 'DELETE' });
      await search.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
