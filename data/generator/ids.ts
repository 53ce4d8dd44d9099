// Upstream identifiers: Diavgeia ADA, KIMDIS ADAM, TED publication numbers. All unique per corpus.
import { DAY, START, END, yearOf } from './dates.js';
import type { Rng } from './prng.js';

/** Digits and the 24 Greek capitals, the alphabet ADAs are written in. */
const ADA_CHARS = '0123456789ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ';
const GREEK = 'ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ';

function chars(rng: Rng, alphabet: string, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[rng.int(0, alphabet.length - 1)];
  return s;
}

/**
 * The part of an ADA that is constant per organisation, as in real ADAs (`…469ΗΖΞ-…` for one hospital,
 * `…ΟΕΥΖ-…` for one port fund): older bodies have 3–4 letters, newer ones `46` + 4 characters.
 */
export function orgAdaCode(rng: Rng, taken: Set<string>): string {
  for (;;) {
    const code = rng.chance(0.5) ? '46' + chars(rng, ADA_CHARS, 4) : chars(rng, GREEK, rng.int(3, 4));
    if (!taken.has(code)) {
      taken.add(code);
      return code;
    }
  }
}

export class AdaFactory {
  private readonly taken = new Set<string>();
  constructor(private readonly rng: Rng) {}

  /** `Ψ11446ΜΓΨ7-ΠΚΛ`: 4 random characters, the organisation's code, a hyphen, 3 characters. */
  next(orgCode: string): string {
    for (;;) {
      const ada = chars(this.rng, ADA_CHARS, 4) + orgCode + '-' + chars(this.rng, ADA_CHARS, 3);
      if (!this.taken.has(ada)) {
        this.taken.add(ada);
        return ada;
      }
    }
  }
}

export type AdamType = 'REQ' | 'PROC' | 'AWRD' | 'SYMV' | 'PAY';

/**
 * ΚΗΜΔΗΣ reference numbers: `YY` + type + 9 digits from one running counter (≈12.0M in Jan 2023,
 * ≈19.2M in mid 2026, judging by real numbers such as 25SYMV016692582 and 26SYMV019210768).
 */
export class AdamFactory {
  private readonly taken = new Set<string>();
  constructor(private readonly rng: Rng) {}

  next(type: AdamType, ms: number): string {
    const span = END - START;
    const base = 12_000_000 + Math.round(((ms - START) / span) * 7_900_000);
    for (;;) {
      const n = base + this.rng.int(0, 2500);
      const yy = String(yearOf(ms) % 100).padStart(2, '0');
      const adam = `${yy}${type}${String(n).padStart(9, '0')}`;
      if (!this.taken.has(adam)) {
        this.taken.add(adam);
        return adam;
      }
    }
  }
}

/** TED `publication-number`, `NNNNNNNN-YYYY`, growing through the year (≈2,100 notices a day EU-wide). */
export class TedNumberFactory {
  private readonly taken = new Set<string>();
  constructor(private readonly rng: Rng) {}

  next(ms: number): string {
    const year = yearOf(ms);
    const dayOfYear = Math.floor((ms - Date.UTC(year, 0, 1)) / DAY);
    for (;;) {
      const n = 1 + dayOfYear * 2100 + this.rng.int(0, 2099);
      const id = `${String(n).padStart(8, '0')}-${year}`;
      if (!this.taken.has(id)) {
        this.taken.add(id);
        return id;
      }
    }
  }
}
