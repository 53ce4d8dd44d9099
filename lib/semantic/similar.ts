// GET /v1/similar/{source_id}: the nearest documents by the stored vector (cosine), or, for a document
// without one, by its text (more_like_this). Never the document itself nor its exact duplicates.
import { metadataOf, type IndexedDocument } from '../../index-mappings/document.js';
import { documentText } from '../embedding/index.js';
import type { ReadOptions, SearchHit, SearchProvider, StoredDocument } from '../search/provider.js';

export interface SimilarResult {
  source_id: string;
  results: (Record<string, unknown> & { similarity: number })[];
  total: number;
}

/** The deepest kNN asked for while skipping duplicates (sqlite-vec allows 4,096). */
const MAX_DEPTH = 4096;

/** The same document under another id: the same content hash, or the same title, summary and content. */
function duplicateOf(doc: StoredDocument): (other: StoredDocument) => boolean {
  return (other) =>
    other.source_id === doc.source_id ||
    (doc.content_hash !== '' && other.content_hash === doc.content_hash) ||
    (other.title === doc.title && other.summary === doc.summary && other.content === doc.content);
}

const round = (x: number) => Math.round(Math.min(1, Math.max(0, x)) * 10_000) / 10_000;

/** `limit` documents most like `doc` (found by the caller), best first. */
export async function similarTo(search: SearchProvider, doc: IndexedDocument, limit: number, opts: ReadOptions = {}): Promise<SimilarResult> {
  const duplicate = duplicateOf(doc);
  const hits = doc.embedding?.length
    ? await byVector(search, doc.embedding, doc.source_id, duplicate, limit, opts)
    : await byText(search, doc, duplicate, limit, opts);
  const results = hits.map((h) => ({ ...metadataOf(h.doc), similarity: round(h.score) }));
  return { source_id: doc.source_id, results, total: results.length };
}

/**
 * kNN, asking deeper while duplicates fill the page. `score` becomes the cosine similarity clamped to
 * 0..1 (the engines give (1 + cos) / 2, where unrelated texts sit near 0.5).
 */
async function byVector(
  search: SearchProvider,
  vector: number[],
  sourceId: string,
  duplicate: (d: StoredDocument) => boolean,
  limit: number,
  opts: ReadOptions,
): Promise<SearchHit[]> {
  for (let depth = limit + 10; ; depth = Math.min(MAX_DEPTH, depth * 4)) {
    const hits = await search.knn({ vector, limit: depth, excludeId: sourceId }, opts);
    const kept = hits.filter((h) => !duplicate(h.doc));
    if (kept.length >= limit || hits.length < depth || depth === MAX_DEPTH) {
      return kept.slice(0, limit).map((h) => ({ ...h, score: 2 * h.score - 1 }));
    }
  }
}

/**
 * more_like_this of the document's title and summary (what its vector would have been made from).
 * `score` becomes the share of the document's own score against that query a hit reaches.
 */
async function byText(
  search: SearchProvider,
  doc: IndexedDocument,
  duplicate: (d: StoredDocument) => boolean,
  limit: number,
  opts: ReadOptions,
): Promise<SearchHit[]> {
  // The document itself is asked for too: its score is the scale.
  const hits = await search.moreLikeThis({ text: documentText(doc), limit: limit + 11 }, opts);
  const own = hits.find((h) => h.doc.source_id === doc.source_id)?.score ?? 0;
  const scale = Math.max(own, ...hits.map((h) => h.score));
  return hits
    .filter((h) => !duplicate(h.doc))
    .slice(0, limit)
    .map((h) => ({ ...h, score: scale > 0 ? h.score / scale : 0 }));
}
