// English phrases of a question matched to the English labels of the CPV 2008 vocabulary
// (lib/vocabulary/cpv.ts), whose Greek labels are the procurement Greek the documents are written in:
// `snow clearing` is "Snow-clearing services" / "Υπηρεσίες εκχιονισμού", `lifts` is "Lifts" /
// "Ανελκυστήρες" where a general dictionary offers "σηκώνω" first. Words are compared by their English
// stems (lib/stem.ts: Porter, as the English analysis), so `beds` meets "Hospital beds".
import { fold } from '../greek.js';
import { stem } from '../stem.js';
import { cpvEntries, type CpvEntry } from '../vocabulary/cpv.js';
import { ENGLISH_STOP_WORDS } from '../../index-mappings/settings.js';

/**
 * Words most labels end with, which say what kind of purchase a code is rather than what it buys:
 * left out of the words a label is matched by, so that "Snow-clearing services" is `snow clearing`.
 */
const KIND_WORDS = new Set(['servic', 'work', 'product', 'suppli', 'materi', 'part', 'accessori', 'relat', 'similar', 'other', 'variou', 'miscellan']);

/** Whether a word says what kind of purchase is meant (KIND_WORDS), not what is bought. */
export function isKindWord(w: EnglishWord): boolean {
  return KIND_WORDS.has(w.stem);
}

/** A label with more words than the phrase it is matched to, by at most this many (`school buildings` meets "Construction work for school buildings"). */
const MAX_EXTRA_WORDS = 1;
/** Labels kept for one phrase: the closest (fewest extra words), then the most general code. */
const MAX_LABELS = 3;
/** The longest phrase looked for, in content words. */
const MAX_PHRASE_WORDS = 5;

const STOP = new Set(ENGLISH_STOP_WORDS);

/** A content word of English text: as written (folded) and its stem. */
export interface EnglishWord {
  word: string;
  stem: string;
}

/**
 * The content words of English text, in order: Latin-letter tokens, stop words left out, and words
 * in capitals (`LED`, `PPE`): an acronym is searched as written, and the dictionary reads it as a word
 * (`led` → "οδήγησα").
 */
export function englishWords(text: string): EnglishWord[] {
  const out: EnglishWord[] = [];
  for (const written of text.match(/\p{Script=Latin}+/gu) ?? []) {
    const word = fold(written);
    if (STOP.has(word) || word.length < 2 || (written.length > 1 && written === written.toUpperCase())) continue;
    out.push({ word, stem: stem(word) });
  }
  return out;
}

interface Label {
  entry: Readonly<CpvEntry>;
  /** The label's stems other than kind words, as a set. */
  stems: ReadonlySet<string>;
}

/** Labels by each of their stems, built on first use from the 9,454 codes. */
let byStem: Map<string, Label[]> | undefined;

function labelsByStem(): Map<string, Label[]> {
  if (byStem) return byStem;
  byStem = new Map();
  for (const entry of cpvEntries()) {
    const stems = new Set(
      englishWords(entry.en)
        .map((w) => w.stem)
        .filter((s) => !KIND_WORDS.has(s)),
    );
    if (stems.size === 0) continue;
    const label = { entry, stems };
    for (const s of stems) {
      const list = byStem.get(s);
      if (list) list.push(label);
      else byStem.set(s, [label]);
    }
  }
  return byStem;
}

/** A run of the question's words matched to CPV labels. */
export interface CpvPhrase {
  /** Index of the phrase's first word in englishWords(question), and its number of words. */
  start: number;
  length: number;
  entries: Readonly<CpvEntry>[];
}

/** The labels holding every stem of `stems` with at most MAX_EXTRA_WORDS others (none for one word), closest first. */
function labelsFor(stems: string[]): Readonly<CpvEntry>[] {
  const wanted = new Set(stems);
  const candidates = labelsByStem().get(stems[0]!) ?? [];
  const extra = wanted.size === 1 ? 0 : MAX_EXTRA_WORDS;
  return candidates
    .filter((l) => l.stems.size - wanted.size <= extra && [...wanted].every((s) => l.stems.has(s)))
    .sort((a, b) => a.stems.size - b.stems.size || depth(a.entry.code) - depth(b.entry.code) || (a.entry.code < b.entry.code ? -1 : 1))
    .slice(0, MAX_LABELS)
    .map((l) => l.entry);
}

/** How deep a code sits in the tree: trailing zeros mark its level (`45000000` a division). */
function depth(code: string): number {
  return code.replace(/0+$/, '').length;
}

/**
 * The runs of `words` that CPV labels name, longest first and not overlapping; a kind word (`services`)
 * is never a phrase of its own, but may sit inside one.
 */
export function cpvPhrases(words: EnglishWord[]): CpvPhrase[] {
  const taken = new Array<boolean>(words.length).fill(false);
  const found: CpvPhrase[] = [];
  for (let n = Math.min(MAX_PHRASE_WORDS, words.length); n >= 1; n--) {
    for (let start = 0; start + n <= words.length; start++) {
      if (taken.slice(start, start + n).some(Boolean)) continue;
      const stems = words
        .slice(start, start + n)
        .map((w) => w.stem)
        .filter((s) => !KIND_WORDS.has(s));
      if (stems.length === 0 || (n > 1 && stems.length < n - 1)) continue;
      const entries = labelsFor(stems);
      if (entries.length === 0) continue;
      found.push({ start, length: n, entries });
      taken.fill(true, start, start + n);
    }
  }
  return found.sort((a, b) => a.start - b.start);
}
