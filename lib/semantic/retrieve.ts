// Ask's retrieval: the legs, their fusion, and the floor (docs/api.md "How ask ranks"). Every question
// runs two legs, its vector's nearest neighbours (semantic) and best-match full text of its words
// (text). An English question translated into Greek (lib/translation) runs two more, the Greek as full
// text and its Greek rendering's vector, so that Greek documents are found by Greek words. The fused
// ranking is then weighed by how much of the question's concepts each document holds, and documents
// that hold too little of it are dropped: better no source than noise.
import {
  ASK_TUNING,
  FALLBACK_SEMANTIC_WEIGHT,
  KEEP_TEXT_FIRST_WITHIN,
  LATIN_SEMANTIC_WEIGHT,
  SEMANTIC_WEIGHT,
  type AskTuning,
} from '../../index-mappings/ranking.js';
import type { Embedder } from '../embedding/embedder.js';
import type { QueryVectors } from '../embedding/query-vectors.js';
import { EmbeddingServiceError } from '../embedding/service-embedder.js';
import { EngineUnavailableError } from '../errors.js';
import { greekLetters } from '../greek.js';
import type { Filters } from '../search/filters.js';
import type { ReadOptions, SearchHit, SearchProvider, StoredDocument } from '../search/provider.js';
import { type Concept, coverage, documentStems, questionConcepts } from '../translation/concepts.js';
import { greekRendering, type Translation, translateQuestion } from '../translation/translate.js';
import { keepWithin, type Ranking, scoreFusion } from './fusion.js';

/** The legs and their fusion, best first: what ask answers from and what bench/relevance measures. */
export interface Retrieval {
  text: SearchHit[];
  semantic: SearchHit[];
  /** The translation's legs (none for a question that is not translated). */
  greek: SearchHit[];
  greekSemantic: SearchHit[];
  translation: Translation;
  concepts: Concept[];
  /** Fused, weighed by coverage, above the floor. */
  hybrid: { doc: StoredDocument; relevance: number }[];
}

export interface RetrieveOptions {
  read?: ReadOptions;
  /** The full-text leg's first hit is kept within the first this many (at most KEEP_TEXT_FIRST_WITHIN). */
  shown?: number;
  /** Where the question's vectors are kept for the next time it is asked; none: embedded every time. */
  vectors?: QueryVectors;
  /** The question's translation when it was made elsewhere (a language model); else the vocabulary's. */
  translation?: Translation;
  /** Benchmarks try other settings; ask uses ASK_TUNING. */
  tuning?: AskTuning;
  /** Every leg finds only documents that pass these (lib/search/filters.ts). */
  filters?: Filters;
}

/** Latin letters and no Greek ones, and no token that reads as a code (ΑΦΜ, CPV code, TED number: 5+ digits). */
export function latinQuestion(question: string): boolean {
  return /\p{Script=Latin}/u.test(question) && !/\p{Script=Greek}/u.test(question) && !/\d{5,}/.test(question);
}

/** The semantic ranking's weight in the fusion of an untranslated question; the full-text ranking weighs the rest. */
export function semanticWeight(embedder: Embedder, question: string): number {
  if (embedder.fallback) return FALLBACK_SEMANTIC_WEIGHT;
  return latinQuestion(question) ? LATIN_SEMANTIC_WEIGHT : SEMANTIC_WEIGHT;
}

/** Documents weighed by coverage: enough for a page of 20 and the ones coverage lifts into it. */
const WEIGHED = 60;

export async function retrieve(search: SearchProvider, embedder: Embedder, question: string, depth: number, options: RetrieveOptions = {}): Promise<Retrieval> {
  const { read: opts = {}, shown = KEEP_TEXT_FIRST_WITHIN, vectors, tuning = ASK_TUNING, filters } = options;
  // Stored text has Greek letters for look-alike signs (ingest): a question pasted from an original too.
  const text = greekLetters(question);
  const translation = options.translation ?? translateQuestion(text);
  const greek = translation.groups.flatMap((g) => g.greek).join(' ');
  const rendering = greekRendering(translation);
  const texts = rendering ? [text, rendering] : [text];
  const [vector, greekVector = null] = await (vectors ? vectors.vectors(embedder, texts) : embedder.embed(texts, 'query')).catch((err: unknown) => {
    // Clients learn that it is down, not where it runs; the log has the endpoint and its answer.
    if (err instanceof EmbeddingServiceError) throw new EngineUnavailableError('The embedding service is unavailable; try again shortly', err.message);
    throw err;
  });
  const [semantic, textHits, greekHits, greekSemantic] = await Promise.all([
    search.knn({ vector, limit: depth, filters }, opts),
    search.moreLikeThis({ text, limit: depth, filters }, opts),
    greek ? search.moreLikeThis({ text: greek, limit: depth, filters }, opts) : [],
    greekVector ? search.knn({ vector: greekVector, limit: depth, filters }, opts) : [],
  ]);
  const translated = greek !== '' && !embedder.fallback;
  const w = semanticWeight(embedder, question);
  const legs: Ranking<SearchHit>[] = translated
    ? [
        { hits: semantic, weight: tuning.legs.semantic },
        { hits: textHits, weight: tuning.legs.text },
        { hits: greekHits, weight: tuning.legs.greek },
        { hits: greekSemantic, weight: tuning.legs.greekSemantic },
      ]
    : [
        { hits: semantic, weight: w },
        { hits: textHits, weight: 1 - w },
        // The fallback embedder's vectors are lexical: the Greek words go to full text only.
        { hits: greekHits, weight: 1 - w },
      ];
  const keyOf = (h: SearchHit) => h.doc.source_id;
  const fused = scoreFusion(legs, keyOf, (h) => h.score).slice(0, WEIGHED);
  const concepts = questionConcepts(text, translation);
  const weighed = fused
    .map((f) => {
      // A question of no known concept (a name, Greek in Latin letters) holds all of them.
      const held = concepts.length > 0 ? coverage(concepts, documentStems(f.item.doc)) : 1;
      return { ...f, held, relevance: (1 - tuning.coverage) * f.relevance + tuning.coverage * held };
    })
    // The floor was chosen with the sentence model; the fallback's rankings are both lexical.
    .filter((f) => embedder.fallback || f.held >= tuning.floor)
    .sort((a, b) => b.relevance - a.relevance);
  const kept = keepWithin(weighed, keyOf, textHits[0] && keyOf(textHits[0]), Math.min(shown, KEEP_TEXT_FIRST_WITHIN));
  return {
    text: textHits,
    semantic,
    greek: greekHits,
    greekSemantic,
    translation,
    concepts,
    hybrid: kept.map((f) => ({ doc: f.item.doc, relevance: f.relevance })),
  };
}
