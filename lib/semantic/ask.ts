// POST /v1/ask: hybrid retrieval, passages, and the answer (grounded by a generator when one is
// configured, the contract's placeholder otherwise). How it ranks: docs/api.md "How ask ranks".
import type { Embedder } from '../embedding/embedder.js';
import { QueryVectors } from '../embedding/query-vectors.js';
import type { Logger } from '../logger.js';
import type { ReadOptions, SearchProvider, StoredDocument } from '../search/provider.js';
import type { Filters } from '../search/filters.js';
import type { EntityReads } from '../entity-readers.js';
import { namedDocuments } from './named.js';
import { retrieve, type RetrieveOptions } from './retrieve.js';
import type { ModelTranslator } from '../translation/model-translator.js';
import { englishQuestion, type Translation, translateQuestion } from '../translation/translate.js';
import { GeneratorError, groundedMessages, type ChatCompletions, type NumberedPassage } from './generator.js';
import { bestPassage, questionWords, wordWeights } from './passages.js';
import { FUSION_DEPTH } from '../../index-mappings/ranking.js';

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

export interface SourceReaders {
  search: SearchProvider;
  embedder: Embedder;
  /** Where the identifiers a question names are looked up (named.ts); none: no identifier leads. */
  entities?: EntityReads;
}

/**
 * Ask's sources, best first, at most `limit`: the documents carrying an identifier the question names
 * (named.ts; relevance 1, the most recent first), then the fusion of the legs. With filters, identifiers
 * lead no more: the entity index knows no filter, and the legs find only what passes them.
 */
export async function askSources(
  readers: SourceReaders,
  question: string,
  limit: number,
  options: RetrieveOptions = {},
): Promise<{ doc: StoredDocument; relevance: number }[]> {
  const { search, embedder, entities } = readers;
  const opts = options.read ?? {};
  const [{ hybrid }, named] = await Promise.all([
    retrieve(search, embedder, question, Math.max(FUSION_DEPTH, limit), { ...options, shown: limit }),
    entities && isEmpty(options.filters) ? namedDocuments(question, limit, { entities, search }, opts) : [],
  ]);
  if (named.length === 0) return hybrid.slice(0, limit);
  const found = new Map(hybrid.map((h) => [h.doc.source_id, h.doc]));
  const docs = await Promise.all(named.map(async (id) => found.get(id) ?? (await search.get(id, opts))));
  const lead = docs.filter((d): d is StoredDocument => d !== null).map((doc) => ({ doc: withoutEmbedding(doc), relevance: 1 }));
  const led = new Set(lead.map((l) => l.doc.source_id));
  return [...lead, ...hybrid.filter((h) => !led.has(h.doc.source_id))].slice(0, limit);
}

const isEmpty = (filters: Filters | undefined) => filters === undefined || Object.keys(filters).length === 0;

/** A document as the index returns it by id, without its vector (get() returns the whole record). */
function withoutEmbedding(doc: StoredDocument & { embedding?: unknown }): StoredDocument {
  const { embedding: _vector, ...stored } = doc;
  return stored;
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
  /** Where identifiers named in a question are looked up (named.ts). */
  entities?: EntityReads;
  /** Translates English questions when PDI_LLM_URL is set; the vocabulary does otherwise. */
  translator?: Pick<ModelTranslator, 'translate'> | null;
}

export class AskService {
  private readonly vectors = new QueryVectors();

  constructor(private readonly deps: AskDeps) {}

  async ask(question: string, limit: number, model: string, opts: ReadOptions = {}, filters: Filters = {}): Promise<AskResult> {
    const { translation, by } = await this.translation(question, opts.signal);
    const top = await askSources(this.deps, question, limit, { read: opts, vectors: this.vectors, filters, translation });
    this.deps.log.info({ translation: by, sources: top.length }, 'ask answered');
    // An English question's passages are found by its Greek words too.
    const words = [...new Set([...questionWords(question), ...translation.groups.flatMap((g) => g.greek.flatMap(questionWords))])];
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

  /**
   * The question's Greek: none for a question that is not English, else the configured model's, or the
   * vocabulary's when there is no model or it gave none in time.
   */
  private async translation(question: string, signal?: AbortSignal): Promise<{ translation: Translation; by: 'none' | 'model' | 'vocabulary' }> {
    if (!englishQuestion(question)) return { translation: { groups: [] }, by: 'none' };
    const byModel = await this.deps.translator?.translate(question, signal);
    return byModel ? { translation: byModel, by: 'model' } : { translation: translateQuestion(question), by: 'vocabulary' };
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
