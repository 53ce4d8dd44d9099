// POST /v1/ask: hybrid retrieval, passages, and the answer (grounded by a generator when one is
// configured, the contract's placeholder otherwise). How it ranks: docs/api.md "How ask ranks".
import type { Embedder } from '../embedding/embedder.js';
import { QueryVectors } from '../embedding/query-vectors.js';
import { EmbeddingServiceError } from '../embedding/service-embedder.js';
import { EngineUnavailableError } from '../errors.js';
import { greekLetters } from '../greek.js';
import type { Logger } from '../logger.js';
import type { ReadOptions, SearchHit, SearchProvider, StoredDocument } from '../search/provider.js';
import type { Filters } from '../search/filters.js';
import { keepWithin, scoreFusion } from './fusion.js';
import { GeneratorError, groundedMessages, type ChatCompletions, type NumberedPassage } from './generator.js';
import { bestPassage, questionWords, wordWeights } from './passages.js';
import { FALLBACK_SEMANTIC_WEIGHT, FUSION_DEPTH, KEEP_TEXT_FIRST_WITHIN, LATIN_SEMANTIC_WEIGHT, SEMANTIC_WEIGHT } from '../../index-mappings/ranking.js';

/** The longest context_preview, in characters. */
export const PREVIEW_CHARS = 2000;

export interface AskSource {
  source_id: string;
  source: string;
  title: string;
  /** The original at its publisher: what the MCP tool's reader cites (POST /v1/ask shows the four source fields). */
  source_url: string;
  relevance: number;
}

export interface AskResult {
  question: string;
  answer: string;
  sources: AskSource[];
  context_preview: string;
}

/** The two legs and their fusion, best first: what ask answers from and what bench/relevance measures. */
export interface Retrieval {
  text: SearchHit[];
  semantic: SearchHit[];
  hybrid: { doc: StoredDocument; relevance: number }[];
}

export interface RetrieveOptions {
  read?: ReadOptions;
  /** The full-text leg's first hit is kept within the first this many (at most KEEP_TEXT_FIRST_WITHIN). */
  shown?: number;
  /** Where the question's vector is kept for the next time it is asked; none: embedded every time. */
  vectors?: QueryVectors;
  /** Both legs find only documents that pass these (filters.ts). */
  filters?: Filters;
}

/** Latin letters and no Greek ones, and no token that reads as a code (ΑΦΜ, CPV code, TED number: 5+ digits). */
export function latinQuestion(question: string): boolean {
  return /\p{Script=Latin}/u.test(question) && !/\p{Script=Greek}/u.test(question) && !/\d{5,}/.test(question);
}

/** The semantic ranking's weight in the fusion for this question; the full-text ranking weighs the rest. */
export function semanticWeight(embedder: Embedder, question: string): number {
  if (embedder.fallback) return FALLBACK_SEMANTIC_WEIGHT;
  return latinQuestion(question) ? LATIN_SEMANTIC_WEIGHT : SEMANTIC_WEIGHT;
}

/** Runs both legs (the question embedded, and best-match full text) and fuses them. */
export async function retrieve(search: SearchProvider, embedder: Embedder, question: string, depth: number, options: RetrieveOptions = {}): Promise<Retrieval> {
  const { read: opts = {}, shown = KEEP_TEXT_FIRST_WITHIN, vectors, filters } = options;
  // Stored text has Greek letters for look-alike signs (ingest): a question pasted from an original too.
  const text = greekLetters(question);
  const embedded = vectors ? vectors.vector(embedder, text) : embedder.embed([text], 'query').then(([v]) => v);
  const vector = await embedded.catch((err: unknown) => {
    // Clients learn that it is down, not where it runs; the log has the endpoint and its answer.
    if (err instanceof EmbeddingServiceError) throw new EngineUnavailableError('The embedding service is unavailable; try again shortly', err.message);
    throw err;
  });
  const [semantic, textHits] = await Promise.all([
    search.knn({ vector, limit: depth, filters }, opts),
    search.moreLikeThis({ text, limit: depth, filters }, opts),
  ]);
  const weight = semanticWeight(embedder, question);
  const keyOf = (h: SearchHit) => h.doc.source_id;
  const scored = scoreFusion(
    [
      { hits: semantic, weight },
      { hits: textHits, weight: 1 - weight },
    ],
    keyOf,
    (h) => h.score,
  );
  const fused = keepWithin(scored, keyOf, textHits[0] && keyOf(textHits[0]), Math.min(shown, KEEP_TEXT_FIRST_WITHIN));
  return { text: textHits, semantic, hybrid: fused.map((f) => ({ doc: f.item.doc, relevance: f.relevance })) };
}

/** The contract's answer when no generator answers: fixed text, `documents` even for 1 (clients match it). */
export function placeholderAnswer(found: number): string {
  return `Found ${found} relevant documents. Generated answers are not yet available.`;
}

export interface AskDeps {
  search: SearchProvider;
  embedder: Embedder;
  /** Null when PDI_LLM_URL and PDI_LLM_KEY are not set. */
  generator: ChatCompletions | null;
  log: Logger;
}

export class AskService {
  private readonly vectors = new QueryVectors();

  constructor(private readonly deps: AskDeps) {}

  async ask(question: string, limit: number, model: string, opts: ReadOptions = {}, filters: Filters = {}): Promise<AskResult> {
    const { hybrid } = await retrieve(this.deps.search, this.deps.embedder, question, Math.max(FUSION_DEPTH, limit), {
      read: opts,
      shown: limit,
      vectors: this.vectors,
      filters,
    });
    const top = hybrid.slice(0, limit);
    const words = questionWords(question);
    const weights = wordWeights(
      words,
      top.map((t) => t.doc),
    );
    const passages: NumberedPassage[] = top.map(({ doc }, i) => ({
      n: i + 1,
      source_id: doc.source_id,
      title: doc.title,
      text: bestPassage(doc, words, weights),
    }));
    return {
      question,
      answer: await this.answer(question, model, passages, opts.signal),
      sources: top.map(({ doc, relevance }) => ({
        source_id: doc.source_id,
        source: doc.source,
        title: doc.title,
        source_url: doc.source_url,
        relevance: Math.round(relevance * 10_000) / 10_000,
      })),
      context_preview: preview(passages),
    };
  }

  /** The generator's grounded answer, or the placeholder when there is none, nothing was found, or it failed. */
  private async answer(question: string, model: string, passages: NumberedPassage[], signal?: AbortSignal): Promise<string> {
    const { generator, log } = this.deps;
    if (!generator || passages.length === 0) return placeholderAnswer(passages.length);
    try {
      return await generator.complete(model, groundedMessages(question, passages), signal);
    } catch (err) {
      // The client went away: nobody reads the answer, and nothing is wrong with the endpoint.
      if (signal?.aborted) throw signal.reason;
      const reason = err instanceof GeneratorError ? err.message : String(err);
      log.warn({ model, reason }, 'the answer generator failed; ask answers with the placeholder');
      return placeholderAnswer(passages.length);
    }
  }
}

/** The passages, numbered as `sources`, up to PREVIEW_CHARS. */
function preview(passages: NumberedPassage[]): string {
  let out = '';
  for (const p of passages) {
    const part = `[${p.n}] ${p.text}`;
    const next = out ? `${out}\n\n${part}` : part;
    if (next.length > PREVIEW_CHARS) {
      if (!out) out = `${part.slice(0, PREVIEW_CHARS - 1)}…`;
      break;
    }
    out = next;
  }
  return out;
}
