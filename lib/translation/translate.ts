// An English question turned into Greek for the search engines, by vocabulary, not by a model: each
// English concept becomes one group of Greek alternatives. Phrases that CPV labels name give their Greek
// labels (cpv-phrases.ts); every other content word gives its translations from the English–Greek
// lexicon (lib/vocabulary/lexicon.ts). A word with eight senses is one group, as a word with one is, so
// that the engines weigh concepts, not senses.
import { lookup } from '../vocabulary/lexicon.js';
import { cpvPhrases, englishWords, isKindWord } from './cpv-phrases.js';

/** Senses of a word kept from the lexicon, best first. */
const MAX_SENSES = 4;

/** One English concept of a question and the Greek that stands for it. */
export interface ConceptGroup {
  /** The English words, as the question writes them (folded). */
  english: string;
  /** Greek alternatives, best first: a CPV label or a dictionary sense each. */
  greek: string[];
  from: 'cpv' | 'lexicon' | 'model';
}

export interface Translation {
  groups: ConceptGroup[];
  /** The whole question in Greek as a model wrote it (model-translator.ts), to embed as written. */
  rendering?: string;
}

/** Whether a question needs translating: Latin letters and no Greek ones. */
export function englishQuestion(question: string): boolean {
  return /\p{Script=Latin}/u.test(question) && !/\p{Script=Greek}/u.test(question);
}

/** The concept groups of an English question (none for one in Greek, or with no word the vocabulary knows). */
export function translateQuestion(question: string): Translation {
  if (!englishQuestion(question)) return { groups: [] };
  const words = englishWords(question);
  const groups: { at: number; group: ConceptGroup }[] = [];
  const covered = new Array<boolean>(words.length).fill(false);
  for (const phrase of cpvPhrases(words)) {
    const of = words.slice(phrase.start, phrase.start + phrase.length);
    const english = of.map((w) => w.word).join(' ');
    const core = of
      .filter((w) => !isKindWord(w))
      .map((w) => w.word)
      .join(' ');
    // The dictionary's senses of the phrase stay beside its labels: a label may be another sense than the
    // question's (`square`: "Squares", the drawing instruments), or another word than the documents use
    // ("Πυροκατασβεστήρες" where they write πυροσβεστήρες, the dictionary's word for `fire extinguisher`).
    const senses = (lookup(english).length > 0 ? lookup(english) : lookup(core)).slice(0, MAX_SENSES);
    const greek = [...new Set([...phrase.entries.map((e) => e.el), ...senses])];
    groups.push({ at: phrase.start, group: { english, greek, from: 'cpv' } });
    covered.fill(true, phrase.start, phrase.start + phrase.length);
  }
  words.forEach((w, i) => {
    if (covered[i]) return;
    const senses = lookup(w.word).slice(0, MAX_SENSES);
    if (senses.length > 0) groups.push({ at: i, group: { english: w.word, greek: senses, from: 'lexicon' } });
  });
  return { groups: groups.sort((a, b) => a.at - b.at).map((g) => g.group) };
}

/** The translation as a Greek sentence a model can embed: as a model wrote it, or each group's first alternative. */
export function greekRendering(t: Translation): string {
  return t.rendering ?? t.groups.map((g) => g.greek[0]).join(' ');
}
