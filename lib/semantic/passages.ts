// The passages of a retrieved document that answer a question: windows of whole sentences, scored by
// the question's words they hold (folded, with a crude prefix match for inflected forms: σύμβαση and
// συμβάσεις, contract and contracts). They make ask's context_preview and what a generator reads.
import { ENGLISH_STOP_WORDS, GREEK_STOP_WORDS } from '../../index-mappings/settings.js';
import { tokens } from '../greek.js';

const STOP = new Set([...GREEK_STOP_WORDS, ...ENGLISH_STOP_WORDS]);

/** A passage is at most this long (a window of sentences, or a cut sentence). */
export const PASSAGE_CHARS = 600;

/** How much of a document's text is read for passages: a long record's first 50,000 characters. */
const MAX_BODY_CHARS = 50_000;

/** The question's distinct content words, folded. */
export function questionWords(question: string): string[] {
  return [...new Set(tokens(question).filter((w) => !STOP.has(w) && (w.length > 1 || /\d/.test(w))))];
}

/** The leading part of a word that its inflected forms share (a word of 5+ letters loses up to 2 of its last). */
function stemOf(word: string): string {
  return word.length >= 5 ? word.slice(0, Math.max(4, word.length - 2)) : word;
}

/** How well `text` answers the words: distinct words found (with their stems), more weight to rarer ones. */
function scoreOf(text: string, stems: string[], weights: number[]): number {
  const words = tokens(text);
  let score = 0;
  stems.forEach((stem, i) => {
    if (words.some((w) => w.startsWith(stem))) score += weights[i];
  });
  return score;
}

/** Sentences of `text` (after . ; ! ? · or a line break), long ones cut at PASSAGE_CHARS. */
function sentencesOf(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/(?<=[.;!?·])\s+|\n+/u)) {
    const s = raw.replace(/\s+/g, ' ').trim();
    for (let i = 0; i < s.length; i += PASSAGE_CHARS) out.push(s.slice(i, i + PASSAGE_CHARS));
  }
  return out.filter((s) => /[\p{L}\p{N}]/u.test(s));
}

/** Windows of consecutive sentences up to PASSAGE_CHARS, one starting at each sentence. */
function windowsOf(sentences: string[]): { text: string; first: string }[] {
  const out: { text: string; first: string }[] = [];
  for (let i = 0; i < sentences.length; i++) {
    let w = sentences[i];
    for (let j = i + 1; j < sentences.length && w.length + 1 + sentences[j].length <= PASSAGE_CHARS; j++) w += ` ${sentences[j]}`;
    out.push({ text: w, first: sentences[i] });
  }
  return out;
}

export interface PassageSource {
  title: string;
  summary: string;
  content: string;
}

/**
 * The best passage of `doc` for `words` (questionWords): the window of its content (else its summary)
 * holding most of them, the earliest of equals; the summary (else the title) when none holds any.
 * `weights[i]` weighs words[i] (e.g. rarer across the retrieved documents, heavier); default 1 each.
 */
export function bestPassage(doc: PassageSource, words: string[], weights: number[] = words.map(() => 1)): string {
  const stems = words.map(stemOf);
  const body = doc.content?.trim() ? doc.content : doc.summary ?? '';
  let best = '';
  let bestScore = 0;
  let bestLead = 0;
  // Of windows holding as much, the one that starts with the matching sentence, not with what precedes it.
  for (const w of windowsOf(sentencesOf(body.slice(0, MAX_BODY_CHARS)))) {
    const s = scoreOf(w.text, stems, weights);
    const lead = s > 0 ? scoreOf(w.first, stems, weights) : 0;
    if (s > bestScore || (s === bestScore && lead > bestLead)) {
      best = w.text;
      bestScore = s;
      bestLead = lead;
    }
  }
  if (best) return best;
  const fallback = (doc.summary?.trim() ? doc.summary : doc.title ?? '').replace(/\s+/g, ' ').trim();
  return fallback.slice(0, PASSAGE_CHARS);
}

/** Weights for `words` over a set of documents: ln(1 + n / (1 + documents holding the word)). */
export function wordWeights(words: string[], docs: PassageSource[]): number[] {
  const stems = words.map(stemOf);
  const texts = docs.map((d) => tokens(`${d.title} ${d.summary} ${d.content}`));
  return stems.map((stem) => {
    const df = texts.filter((ws) => ws.some((w) => w.startsWith(stem))).length;
    return Math.log(1 + docs.length / (1 + df)) + 0.1;
  });
}
