// Text folding shared by the embedded engine, name matching and the fallback embedder.
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
