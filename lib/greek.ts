// Text folding shared by the embedded engine, name matching and the fallback embedder, and the
// look-alike signs that stand for Greek letters in upstream text.
// SQLite's unicode61 does not strip Greek tonos/dialytika from precomposed letters, so we fold in JS:
// NFD, drop combining marks, lower-case, final sigma to sigma.

const COMBINING = /\p{M}/gu;

/** `Απόφαση ΥΠΟΥΡΓΕΊΟΥ` → `αποφαση υπουργειου`. */
export function fold(text: string): string {
  return text.normalize('NFD').replace(COMBINING, '').toLowerCase().replace(/ς/g, 'σ');
}

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
  '\u00b5': 'μ', '\u2206': 'Δ', '\u2211': 'Σ', '\u220f': 'Π',
  '\u03d0': 'β', '\u03d1': 'θ', '\u03d5': 'φ', '\u03f0': 'κ', '\u03f1': 'ρ', '\u03d6': 'π', '\u03f2': 'σ',
};
const LOOKALIKE = new RegExp(`[${Object.keys(LOOKALIKES).join('')}]`, 'gu');

/** `Αναµόρφωση ∆ηµοτικού` → `Αναμόρφωση Δημοτικού`: stored text (ingest) and search queries alike. */
export function greekLetters(text: string): string {
  return text.replace(LOOKALIKE, (c) => LOOKALIKES[c]!);
}
