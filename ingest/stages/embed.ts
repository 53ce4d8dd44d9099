// Stage 3: embeddings, in batches, cached by (model, text recipe, content hash): a document whose content
// did not change is never embedded twice, and a reindex re-embeds nothing.
import type { NormalizedDocument } from '../../index-mappings/document.js';
import type { Embedder } from '../../lib/embedding/embedder.js';
import { DOCUMENT_TEXT_VERSION, documentText } from '../../lib/embedding/index.js';
import type { DocumentStore } from '../state/documents.js';

export interface ToEmbed {
  doc: NormalizedDocument;
  contentHash: string;
}

/** The embedding cache's key: model and text recipe, since either changing means new vectors. */
export function embeddingCacheKey(embedder: Pick<Embedder, 'id'>): string {
  return `${embedder.id}@text-v${DOCUMENT_TEXT_VERSION}`;
}

/** One vector per item, in order; computes only those missing from the cache. */
export async function embedAll(embedder: Embedder, store: DocumentStore, items: ToEmbed[]): Promise<{ vectors: number[][]; computed: number }> {
  const cacheKey = embeddingCacheKey(embedder);
  const vectors: (number[] | null)[] = items.map((it) => store.vector(cacheKey, it.contentHash));
  const missing = items.map((it, i) => ({ it, i })).filter(({ i }) => vectors[i] === null);
  // One call for the page: the embedder forms its batches over all of it (the model by token count,
  // a service as several requests in flight).
  const out = missing.length
    ? await embedder.embed(
        missing.map(({ it }) => documentText(it.doc)),
        'passage',
      )
    : [];
  missing.forEach(({ i }, k) => (vectors[i] = out[k]));
  // Cached in one transaction for the whole call (a page), not one per model batch.
  store.saveVectors(
    cacheKey,
    missing.map(({ it, i }) => ({ contentHash: it.contentHash, vector: vectors[i]! })),
  );
  return { vectors: vectors as number[][], computed: missing.length };
}
