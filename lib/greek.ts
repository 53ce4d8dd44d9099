// Text folding shared by the embedded engine, name matching and the fallback embedder, and the
// look-alike signs that stand for Greek letters in upstream text.
// SQLite's unicode61 does not strip Greek tonos/dialytika from precomposed letters, so we fold in JS:
// NFD, drop combining marks, lower-case, final sigma to sigma.

const COMBINING = /\p{M}/gu;

/** `Απόφαση ΥΠΟΥΡΓΕΊΟΥ` → `αποφαση υπουργειου`. */
export function fold(text: string): string {
  return text.normalize('NFD').replace(COMBINING, '').toLowerCase().replace(/ς/g, 'σ');
}

/** A folded word (fold) of Greek letters alone: what the Greek stemmer and the Latin keys of names take. */
export const GREEK_WORD = /^[α-ω]+$/;

/** Words of folded text: letters and digits in any script. */
export function tokens(text: string): string[] {
  return fold(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Signs that stand for Greek letters in upstream text, a legacy of fonts and code pages: the micro sign
 * (Windows-1253 0xB5) for μ, the mathematical increment, summation and product for Δ, Σ, Π, and the
 * Greek symbol variants of β θ φ κ ρ π σ. `Αναµόρφωση ∆ηµοτικού` (µ U+00B5, ∆ U+2206) was found by no
 * Greek spelling. Each has one reading in running text; NFKC would map the first and the variants, but
 * also rewrite ², ½ and ligatures.
 */
const LOOKALIKES: Record<string, string> = {
  '\u00b5': 'μ',
  '\u2206': 'Δ',
  '\u2211': 'Σ',
  '\u220f': 'Π',
  '\u03d0': 'β',
  '\u03d1': 'θ',
  '\u03d5': 'φ',
  '\u03f0': 'κ',
  '\u03f1': 'ρ',
  '\u03d6': 'π',
  '\u03f2': 'σ',
};
const LOOKALIKE = new RegExp(`[${Object.keys(LOOKALIKES).join('')}]`, 'gu');

/**
 * Latin letters drawn like Greek ones: the capitals, and the small o. Typed inside a Greek word (a
 * keyboard left on Latin for a letter, OCR), they made the word one no Greek spelling finds: KIMDIS
 * labels a region `Aνατολική Μακεδονία, Θράκη` with a Latin A. Small letters other than o are not
 * twins (v ν, u υ, p ρ differ in most fonts), so a word with one of them is left as it is. Also how an
 * ADA typed on a Latin keyboard is read (identifiers.ts normalizeAda).
 */
export const LATIN_TWINS: Readonly<Record<string, string>> = {
  A: 'Α',
  B: 'Β',
  E: 'Ε',
  Z: 'Ζ',
  H: 'Η',
  I: 'Ι',
  K: 'Κ',
  M: 'Μ',
  N: 'Ν',
  O: 'Ο',
  P: 'Ρ',
  T: 'Τ',
  Y: 'Υ',
  X: 'Χ',
  o: 'ο',
};
/** A word: letters, their marks and digits (a code such as `Ω4ΚΤ46ΜΤΛP` is one word). */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const GREEK_LETTER = /\p{Script=Greek}/u;
const LATIN_LETTER = /\p{Script=Latin}/u;
const LATIN_LETTERS = /\p{Script=Latin}/gu;
/**
 * Where a word may go from one script to the other (digits and accents may stand between): Greek and
 * Coptic, Greek Extended, Latin up to Latin Extended-B, spelled as ranges (a property escape per
 * character made this scan 60x slower than the look-alike replace). A false alarm only costs greekWord.
 */
const MIXED = /[\u0370-\u03ff\u1f00-\u1fff][\u0300-\u036f0-9]*[A-Za-z\u00c0-\u024f]|[A-Za-z\u00c0-\u024f][\u0300-\u036f0-9]*[\u0370-\u03ff\u1f00-\u1fff]/;

/** A word with Greek letters whose Latin letters all have Greek twins, in Greek letters; else the word. */
function greekWord(word: string): string {
  if (!GREEK_LETTER.test(word) || !LATIN_LETTER.test(word)) return word;
  // Decomposed, an accented Latin letter is its base letter and the accent, which the Greek one takes.
  const parts = word.normalize('NFD');
  const latin = parts.match(LATIN_LETTERS)!;
  if (!latin.every((c) => c in LATIN_TWINS)) return word;
  return parts.replace(LATIN_LETTERS, (c) => LATIN_TWINS[c]!).normalize('NFC');
}

/**
 * `Αναµόρφωση ∆ηµοτικού` → `Αναμόρφωση Δημοτικού`, `ΑΠΟΦAΣΗ` (Latin A) → `ΑΠΟΦΑΣΗ`: stored text
 * (ingest) and search queries alike.
 */
export function greekLetters(text: string): string {
  const greek = text.replace(LOOKALIKE, (c) => LOOKALIKES[c]!);
  // One scan finds whether any word may mix the scripts; word by word, a 100 KB text took 60x longer.
  return MIXED.test(greek) ? greek.replace(WORD, greekWord) : greek;
}
