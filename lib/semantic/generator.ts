// Grounded answers from an OpenAI-compatible chat-completions endpoint (PDI_LLM_URL, PDI_LLM_KEY): a
// hosted router, vLLM, llama.cpp's server, Ollama. The model is told to write only from the numbered
// passages and to cite them as [1], [2] in the order of ask's `sources`.
import { BodyTooLarge, readCapped } from '../capped-body.js';

/** One retrieved passage, numbered as its document is in `sources` (from 1). */
export interface NumberedPassage {
  n: number;
  source_id: string;
  title: string;
  text: string;
}

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

/** The endpoint did not give an answer in time or in shape; the message says which, for the log. */
export class GeneratorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GeneratorError';
  }
}

const GREEK = /\p{Script=Greek}/u;

/** What a model reads: the rules, then the passages and the question. */
export function groundedMessages(question: string, passages: NumberedPassage[]): ChatMessage[] {
  // A question written in Greek letters gets a Greek answer; a Latin-script one (English, Greeklish) is
  // left to the model to recognise.
  const language = GREEK.test(question) ? 'Greek, the language of the question' : 'the language the question is written in';
  const system = [
    'You answer questions about Greek and EU public-sector documents (decisions, contracts, notices, datasets).',
    'Use only the numbered passages the user gives; never outside knowledge.',
    'Cite every statement with the number of the passage it comes from in square brackets, e.g. [1] or [2][3].',
    'If the passages do not answer the question, say so briefly.',
    `Write the answer in ${language}. Be concise.`,
  ].join(' ');
  const context = passages.map((p) => `[${p.n}] ${p.title} (${p.source_id})\n${p.text}`).join('\n\n');
  return [
    { role: 'system', content: system },
    { role: 'user', content: `Passages:\n\n${context}\n\nQuestion: ${question}` },
  ];
}

export interface ChatCompletionsOptions {
  /** The endpoint: `…/chat/completions`, or a base URL (`…/v1`) it is appended to. */
  url: string;
  key: string;
  /** Longest wait for the whole answer. */
  timeoutMs: number;
}

/** The chat-completions URL of a configured endpoint or base URL. */
export function completionsUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return /\/chat\/completions$/.test(trimmed) ? trimmed : `${trimmed}/chat/completions`;
}

/** The longest answer read from the endpoint; a grounded answer is a few paragraphs. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export class ChatCompletions {
  private readonly url: string;

  constructor(private readonly opts: ChatCompletionsOptions) {
    this.url = completionsUrl(opts.url);
  }

  /** The model's answer; a GeneratorError when the endpoint fails, is slow or answers out of shape. */
  async complete(model: string, messages: ChatMessage[], signal?: AbortSignal): Promise<string> {
    const timeout = AbortSignal.timeout(this.opts.timeoutMs);
    const abort = signal ? AbortSignal.any([timeout, signal]) : timeout;
    let text: string;
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.opts.key}` },
        body: JSON.stringify({ model, messages, temperature: 0, stream: false }),
        // The key goes to this endpoint only.
        redirect: 'error',
        signal: abort,
      });
      if (res.status < 200 || res.status > 299) {
        await res.body?.cancel();
        throw new GeneratorError(`HTTP ${res.status}`);
      }
      // Read as it streams, and dropped past the cap: an endpoint that sends without end holds no memory.
      text = (await readCapped(res, MAX_ANSWER_BYTES)).toString('utf8');
    } catch (err) {
      if (err instanceof GeneratorError) throw err;
      if (err instanceof BodyTooLarge) throw new GeneratorError(`answer over ${err.bound}`);
      if (timeout.aborted) throw new GeneratorError(`no answer within ${this.opts.timeoutMs} ms`);
      throw new GeneratorError(`request failed: ${(err as Error).message}`);
    }
    let body: { choices?: { message?: { content?: unknown } }[] };
    try {
      body = JSON.parse(text);
    } catch {
      throw new GeneratorError('answer is not JSON');
    }
    const content = body?.choices?.[0]?.message?.content;
    if (typeof content !== 'string' || !content.trim()) throw new GeneratorError('answer has no choices[0].message.content');
    return content.trim();
  }
}
