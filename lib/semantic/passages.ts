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

/** Which of `stems` the words of `text` hold, one flag per stem. */
function stemsIn(text: string, stems: string[]): boolean[] {
  const words = tokens(text);
  return stems.map((stem) => words.some((w) => w.startsWith(stem)));
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

/** Windows of consecutive sentences up to PASSAGE_CHARS, one starting at each sentence: [first, last]. */
function windowsOf(sentences: string[]): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < sentences.length; i++) {
    let length = sentences[i].length;
    let j = i;
    while (j + 1 < sentences.length && length + 1 + sentences[j + 1].length <= PASSAGE_CHARS) length += 1 + sentences[++j].length;
    out.push([i, j]);
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
  const body = doc.content?.trim() ? doc.content : (doc.summary ?? '');
  const sentences = sentencesOf(body.slice(0, MAX_BODY_CHARS));
  // Each sentence is read once; a window holds a word when one of its sentences does.
  const found = sentences.map((s) => stemsIn(s, stems));
  const scoreOf = (first: number, last: number) => {
    let score = 0;
    stems.forEach((_, k) => {
      for (let i = first; i <= last; i++) {
        if (found[i][k]) {
          score += weights[k];
          break;
        }
      }
    });
    return score;
  };
  let best = '';
  let bestScore = 0;
  let bestLead = 0;
  // Of windows holding as much, the one that starts with the matching sentence, not with what precedes it.
  for (const [first, last] of windowsOf(sentences)) {
    const s = scoreOf(first, last);
    const lead = s > 0 ? scoreOf(first, first) : 0;
    if (s > bestScore || (s === bestScore && lead > bestLead)) {
      best = sentences.slice(first, last + 1).join(' ');
      bestScore = s;
      bestLead = lead;
    }
  }
  if (best) return best;
  const fallback = (doc.summary?.trim() ? doc.summary : (doc.title ?? '')).replace(/\s+/g, ' ').trim();
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
