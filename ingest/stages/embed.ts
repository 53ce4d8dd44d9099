// Stage 3: embeddings, in batches, cached by (model, text recipe, content hash): a document whose content
// did not change is never embedded twice, and a reindex re-embeds nothing.
import type { NormalizedDocument } from '../../index-mappings/document.js';
import type { Embedder } from '../../lib/embedding/embedder.js';
import { DOCUMENT_TEXT_VERSION, documentText } from '../../lib/embedding/index.js';
import type { DocumentStore } from '../state/documents.js';

/** Documents per model call; 16 measured as fast as 32 with the multilingual model and waits less. */
export const EMBED_BATCH = 16;

export interface ToEmbed {
  doc: NormalizedDocument;
  contentHash: string;
}

/** The embedding cache's key: model and text recipe, since either changing means new vectors. */
export function embeddingCacheKey(embedder: Embedder): string {
  return `${embedder.id}@text-v${DOCUMENT_TEXT_VERSION}`;
}

/** One vector per item, in order; computes only those missing from the cache. */
export async function embedAll(embedder: Embedder, store: DocumentStore, items: ToEmbed[]): Promise<{ vectors: number[][]; computed: number }> {
  const cacheKey = embeddingCacheKey(embedder);
  const vectors: (number[] | null)[] = items.map((it) => store.vector(cacheKey, it.contentHash));
  // Batches of similar length: a batch is padded to its longest text.
  const missing = items.map((it, i) => ({ it, i, text: documentText(it.doc) }))
    .filter(({ i }) => vectors[i] === null)
    .sort((a, b) => a.text.length - b.text.length);
  for (let start = 0; start < missing.length; start += EMBED_BATCH) {
    const batch = missing.slice(start, start + EMBED_BATCH);
    const out = await embedder.embed(batch.map(({ text }) => text), 'passage');
    batch.forEach(({ i }, k) => (vectors[i] = out[k]));
  }
  // Cached in one transaction for the whole call (a page), not one per model batch.
  store.saveVectors(cacheKey, missing.map(({ it, i }) => ({ contentHash: it.contentHash, vector: vectors[i]! })));
  return { vectors: vectors as number[][], computed: missing.length };
}
