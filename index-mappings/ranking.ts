// What ranks a hit, for both engines and for ask's fusion: docs/search-engines.md "Ranking knobs" says
// which change goes with which. Here because the mapping writes the title TITLE_WEIGHT times and
// index-mappings/ imports nothing of ours; no Elasticsearch field name is spelled here.

/**
 * The title's weight in BM25. Elasticsearch writes the title this many times into the one searched field
 * (mapping.ts searchText: a change needs a MAPPING_VERSION bump and a reindex); the embedded engine passes
 * it to bm25(fts, TITLE_WEIGHT, BODY_WEIGHT) at query time. An integer, as a count of copies.
 */
export const TITLE_WEIGHT = 3;
/** The weight of the body column (content, summary, entity names) in the embedded engine's bm25(). */
export const BODY_WEIGHT = 1;

/**
 * BM25's k1 and b: FTS5's built-in constants (its bm25() takes none), which the embedded engine's replica
 * (embedded/bm25.ts) must repeat bit for bit, and Elasticsearch's defaults, which the mapping keeps.
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/**
 * The fewest candidates Elasticsearch's HNSW search gathers per shard, however few neighbours are asked:
 * at 100 candidates the graph found 86% of the true ten nearest of 100,000 real-model vectors, from 500
 * 96% (docs/benchmarks.md "Vectors (kNN)").
 */
export const KNN_MIN_CANDIDATES = 500;

/**
 * The fewest candidates the embedded engine's usearch graph is asked for (its Tuning.vectorCandidates):
 * recall@10 at 1M real-model vectors 0.883 with 100, 0.936 with 400, 0.961 with 800
 * (docs/benchmarks-history.md "Vector search: one HNSW graph for every source").
 */
export const VECTOR_CANDIDATES = 800;

/** Hits taken from each of ask's two legs before fusion: deep enough that a document ranked well by one leg only still fuses in. */
export const FUSION_DEPTH = 50;

/**
 * The semantic ranking's weight in ask's fusion (lib/semantic/fusion.ts scoreFusion) when the embedder is a
 * sentence model; the full-text ranking weighs the rest. Chosen on the relevance set
 * (docs/benchmarks-history.md "Fusion of ask's two rankings"): 0.6-0.8 score alike, lower lets documents
 * that share one common word with the question in.
 */
export const SEMANTIC_WEIGHT = 0.7;
/**
 * The semantic weight for a question in Latin letters that names no code (lib/semantic/ask.ts
 * latinQuestion): mostly English over a mostly Greek corpus, where the model's cross-language neighbours
 * are weak and the full-text leg finds Greek documents by their English CPV labels. Chosen on the tuning
 * half (docs/benchmarks-history.md "Fusion for English questions over Greek documents"): held-out ask
 * nDCG@10 0.600 → 0.672 embedded, 0.597 → 0.659 Elasticsearch; English-over-English questions −0.02.
 */
export const LATIN_SEMANTIC_WEIGHT = 0.2;
/** With the lexical fallback embedder both rankings are lexical and weigh the same. */
export const FALLBACK_SEMANTIC_WEIGHT = 0.5;

/**
 * The full-text ranking's first hit stays within ask's first this many sources: for a question naming a
 * rare exact term (an ΑΦΜ, an ΑΔΑ, a name, a CPV code) it is the document holding it, which the model may
 * rank nowhere. Cost on the relevance set: at most 0.007 nDCG@10 (docs/benchmarks-history.md "Fusion of
 * ask's two rankings").
 */
export const KEEP_TEXT_FIRST_WITHIN = 10;

/** How ask weighs a question's legs and sources (lib/semantic/retrieve.ts); benchmarks try others. */
export interface AskTuning {
  /** The weights of the four legs of a question translated into Greek (lib/translation). */
  legs: { semantic: number; text: number; greek: number; greekSemantic: number };
  /** The weight of a source's concept coverage (lib/translation/concepts.ts) against its fused relevance, 0..1. */
  coverage: number;
  /** A source is kept when it holds at least this share of the question's concepts (the floor). */
  floor: number;
}

/**
 * Chosen on the relevance set's tuning half with the sentence model (docs/benchmarks.md "Query
 * translation"): held-out ask nDCG@10 0.672 → 0.889 and English questions' recall@10 of Greek documents
 * 0.315 → 0.838 on the embedded engine. A floor on the model's similarity was tried too: the questions on
 * absent topics reach 0.92-0.94 (cosine mapped to 0..1), as relevant documents do.
 */
export const ASK_TUNING: AskTuning = {
  legs: { semantic: 0.15, text: 0.35, greek: 0.3, greekSemantic: 0.2 },
  coverage: 0.5,
  floor: 0.3,
};
