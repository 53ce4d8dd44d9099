// Stage 3: embeddings, in batches, cached by (model, content hash): a document whose content did not
// change is never embedded twice, and a reindex re-embeds nothing.
import type { NormalizedDocument } from '../../index-mappings/document.js';
import type { Embedder } from '../../lib/embedding/embedder.js';
import { embeddingText } from '../../lib/embedding/index.js';
import type { DocumentStore } from '../state/documents.js';

export const EMBED_BATCH = 32;

export interface ToEmbed {
  doc: NormalizedDocument;
  contentHash: string;
}

/** One vector per item, in order; computes only those missing from the cache. */
export async function embedAll(embedder: Embedder, store: DocumentStore, items: ToEmbed[]): Promise<{ vectors: number[][]; computed: number }> {
  const vectors: (number[] | null)[] = items.map((it) => store.vector(embedder.id, it.contentHash));
  const missing = items.map((it, i) => ({ it, i })).filter(({ i }) => vectors[i] === null);
  for (let start = 0; start < missing.length; start += EMBED_BATCH) {
    const batch = missing.slice(start, start + EMBED_BATCH);
    const out = await embedder.embed(batch.map(({ it }) => embeddingText(it.doc.title, it.doc.content)));
    batch.forEach(({ i }, k) => (vectors[i] = out[k]));
    store.saveVectors(embedder.id, batch.map(({ it }, k) => ({ contentHash: it.contentHash, vector: out[k] })));
  }
  return { vectors: vectors as number[][], computed: missing.length };
}
