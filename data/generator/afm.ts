// Greek VAT numbers (ΑΦΜ): 9 digits, the last a check digit.
// d8 == (Σ_{i=0..7} d_i · 2^(8−i)) mod 11 mod 10; 000000000 is never valid.
import type { Rng } from './prng.js';

export function afmCheckDigit(first8: string): number {
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(first8[i]) * 2 ** (8 - i);
  return (sum % 11) % 10;
}

export function isValidAfm(afm: string): boolean {
  if (!/^\d{9}$/.test(afm) || afm === '000000000') return false;
  return afmCheckDigit(afm.slice(0, 8)) === Number(afm[8]);
}

/** A valid AFM starting with `prefix` (e.g. `090` for older legal entities, `80`/`99` for newer ones). */
export function makeAfm(rng: Rng, prefix: string, taken: Set<string>): string {
  for (;;) {
    const first8 = prefix + rng.digits(8 - prefix.length);
    const afm = first8 + String(afmCheckDigit(first8));
    if (afm !== '000000000' && !taken.has(afm)) {
      taken.add(afm);
      return afm;
    }
  }
}
