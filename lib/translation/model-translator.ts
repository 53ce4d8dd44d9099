// An English question translated into Greek by the configured language model (PDI_LLM_URL), instead of
// the vocabulary: one short chat-completions call under its own deadline (PDI_LLM_TRANSLATE_TIMEOUT),
// its answers kept by question text. A model that fails, is slow or answers no Greek gives null, and
// ask falls back to the vocabulary (translate.ts): the question is answered either way.
import { GREEK_WORD, tokens } from '../greek.js';
import type { ChatCompletions, ChatMessage } from '../semantic/generator.js';
import type { Translation } from './translate.js';

/** Questions whose translation is kept, the least recently asked dropped first. */
export const TRANSLATIONS_KEPT = 1_000;
/** The longest translation read (a question is at most 1,000 characters; its Greek is about as long). */
const MAX_TRANSLATION_CHARS = 2_000;

const SYSTEM = [
  'You translate questions about Greek public-sector documents (decisions, public contracts, tenders) into Greek,',
  'in the words such documents use (procurement terms as the Greek CPV vocabulary writes them).',
  'Keep names, codes and numbers as they are. Answer with the Greek translation only.',
].join(' ');

export class ModelTranslator {
  private readonly kept = new Map<string, Translation>();

  constructor(
    private readonly chat: Pick<ChatCompletions, 'complete'>,
    private readonly model: string,
    private readonly deadlineMs: number,
  ) {}

  /** The question in Greek, from the kept answers or the model; null when the model gave none in time. */
  async translate(question: string, signal?: AbortSignal): Promise<Translation | null> {
    const key = question.trim();
    const kept = this.kept.get(key);
    if (kept) {
      this.kept.delete(key); // re-inserted: Map order is the recency order
      this.kept.set(key, kept);
      return kept;
    }
    const deadline = AbortSignal.timeout(this.deadlineMs);
    const messages: ChatMessage[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: key },
    ];
    let greek: string;
    try {
      greek = (await this.chat.complete(this.model, messages, signal ? AbortSignal.any([deadline, signal]) : deadline)).slice(0, MAX_TRANSLATION_CHARS);
    } catch {
      if (signal?.aborted) throw signal.reason;
      return null;
    }
    const translation = greekTranslation(greek);
    if (!translation) return null;
    this.kept.set(key, translation);
    if (this.kept.size > TRANSLATIONS_KEPT) this.kept.delete(this.kept.keys().next().value!);
    return translation;
  }
}

/** A model's Greek as a translation: each Greek word a concept of its own, the text as written to embed; null without a Greek word. */
export function greekTranslation(greek: string): Translation | null {
  const words = [...new Set(tokens(greek).filter((w) => GREEK_WORD.test(w)))];
  if (words.length === 0) return null;
  return { groups: words.map((w) => ({ english: '', greek: [w], from: 'model' as const })), rendering: greek.trim() };
}
