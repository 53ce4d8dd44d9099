// Names across scripts: the ELOT 743 transliteration of Greek, and the name key under which the
// spellings of one organization meet (Greek in any case or accent, ELOT 743 Latin, informal Greeklish,
// with or without its legal form): `ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ`, `Δήμος Αθηναίων`, `dimos athinaion`, `DHMOS A8HNAIWN`.
// Used by the entity index (entity resolution), monitoring and alerts; bump NAME_KEY_VERSION when a
// key changes, so stored keys are rebuilt (ingest/state/entity-index.ts). Search indexes toLatin
// and skeleton too (lib/search/latin-names.ts): a change there is also a new embedded TEXT_VERSION and
// MAPPING_VERSION.
import { fold, greekLetters } from './greek.js';

// ELOT 743 (= ISO 843, transcription), on folded text (lower case, no accents, σ for ς).
const ELOT_PAIRS: [string, string][] = [
  ['γγ', 'ng'],
  ['γκ', 'gk'],
  ['γξ', 'nx'],
  ['γχ', 'nch'],
  ['μπ', 'mp'],
  ['ντ', 'nt'],
  ['αι', 'ai'],
  ['ει', 'ei'],
  ['οι', 'oi'],
  ['ου', 'ou'],
  ['υι', 'yi'],
];
const ELOT_LETTERS: Record<string, string> = {
  α: 'a',
  β: 'v',
  γ: 'g',
  δ: 'd',
  ε: 'e',
  ζ: 'z',
  η: 'i',
  θ: 'th',
  ι: 'i',
  κ: 'k',
  λ: 'l',
  μ: 'm',
  ν: 'n',
  ξ: 'x',
  ο: 'o',
  π: 'p',
  ρ: 'r',
  σ: 's',
  τ: 't',
  υ: 'y',
  φ: 'f',
  χ: 'ch',
  ψ: 'ps',
  ω: 'o',
};
/** αυ, ευ, ηυ: `f` before a voiceless consonant or at the end of the word, else `v` (ELOT 743). */
const U_DIPHTHONG = /([αεη])υ(?=([^\p{L}]|$|[θκξπστφχψ])?)/gu;
const U_FIRST: Record<string, string> = { α: 'a', ε: 'e', η: 'i' };
const PAIR_RE = new RegExp(ELOT_PAIRS.map(([g]) => g).join('|'), 'g');
const PAIRS = Object.fromEntries(ELOT_PAIRS);

/** `Θεσσαλονίκη` → `thessaloniki`, `Ευαγγελισμός` → `evangelismos`: folded, Greek letters in Latin. */
export function toLatin(text: string): string {
  return fold(greekLetters(text))
    .replace(U_DIPHTHONG, (_m, v: string, after: string | undefined) => U_FIRST[v] + (after === undefined ? 'v' : 'f'))
    .replace(PAIR_RE, (p) => PAIRS[p]!)
    .replace(/[α-ω]/g, (c) => ELOT_LETTERS[c] ?? c);
}

/**
 * One Latin word reduced to where ELOT 743 and the informal spellings agree: th/8 for θ, ch/h/x
 * for χ (and ξ, which x also spells), ks for ξ, w for ω, h/y/u/ei/oi for the sounds of ι, ai for ε,
 * b for μπ, d for ντ, g/ng/gk for γγ and γκ, au/af/av and eu/ef/ev, c for κ, doubled letters once.
 * Two words that spell one Greek word meet; the key is for comparison, never shown.
 */
export function skeleton(word: string): string {
  return (
    word
      .replace(/(?<=\p{L})8|8(?=\p{L})/gu, 'th')
      .replace(/th/g, 'Q')
      .replace(/ch/g, 'X')
      .replace(/ph/g, 'f')
      .replace(/ks|cs|x/g, 'X')
      // h left alone after th/ch/ph is η; at the start before a vowel it is χ (hania, hristos).
      .replace(/^h(?=[aeiouyw])/, 'X')
      .replace(/h/g, 'i')
      .replace(/c/g, 'k')
      .replace(/ou/g, 'U')
      .replace(/a[uvf]/g, 'aV')
      .replace(/e[uvf]/g, 'eV')
      .replace(/mp/g, 'b')
      .replace(/nt/g, 'd')
      .replace(/ng|gk|nk|gg/g, 'g')
      .replace(/ai/g, 'e')
      .replace(/ei|oi|ui|yi/g, 'i')
      .replace(/[yu]/g, 'i')
      .replace(/w/g, 'o')
      .replace(/(.)\1+/g, '$1')
      .replace(/Q/g, 'th')
      .replace(/X/g, 'x')
      .replace(/U/g, 'u')
      .replace(/V/g, 'v')
  );
}

/** `Α.Ε.`, `Ε.Π.Ε.`, `S.A.` → `Α.Ε.` written without dots: letters one by one with a dot between. */
const DOTTED_ABBREVIATION = /(?<![\p{L}\p{N}])\p{L}(?:\.\p{L})+\.?(?![\p{L}\p{N}])/gu;
/** Words a name may join its parts with, in either language. */
const JOINERS = new Set(['kai', 'ke', 'and']);

function words(name: string): string[] {
  const compact = greekLetters(name).replace(DOTTED_ABBREVIATION, (m) => m.replace(/\./g, ''));
  const latin = toLatin(compact).match(/[\p{L}\p{N}]+/gu) ?? [];
  return latin.filter((w) => !JOINERS.has(w)).map(skeleton);
}

/**
 * Legal forms, written as people write them; compared by their keys, so a Greek form written in Latin
 * letters (`AE`, `EPE`) is one too. Removed from the end of a name: `ΤΟΜΕΣ Α.Τ.Ε.` is `ΤΟΜΕΣ`.
 */
const LEGAL_FORMS = [
  'Α.Ε.',
  'Α.Ε.Ε.',
  'Α.Τ.Ε.',
  'Α.Β.Ε.Ε.',
  'Α.Ε.Β.Ε.',
  'Α.Β.Ε.Τ.Ε.',
  'Ε.Π.Ε.',
  'Μ.Ε.Π.Ε.',
  'Ι.Κ.Ε.',
  'Μ.Ι.Κ.Ε.',
  'AEBE',
  'ABEE',
  'ABETE',
  'Ο.Ε.',
  'Ε.Ε.',
  'Ν.Π.Ι.Δ.',
  'ΚΟΙΝΣΕΠ',
  'ΜΟΝΟΠΡΟΣΩΠΗ',
  'ΜΟΝ.',
  'ΣΙΑ',
  'ΑΝΩΝΥΜΗ ΕΤΑΙΡΕΙΑ',
  'ΕΤΑΙΡΕΙΑ ΠΕΡΙΟΡΙΣΜΕΝΗΣ ΕΥΘΥΝΗΣ',
  'ΙΔΙΩΤΙΚΗ ΚΕΦΑΛΑΙΟΥΧΙΚΗ ΕΤΑΙΡΕΙΑ',
  'ΟΜΟΡΡΥΘΜΗ ΕΤΑΙΡΕΙΑ',
  'ΕΤΕΡΟΡΡΥΘΜΗ ΕΤΑΙΡΕΙΑ',
  'S.A.',
  'S.A.R.L.',
  'S.R.L.',
  'S.p.A.',
  'Ltd',
  'Limited',
  'LLC',
  'LLP',
  'Inc',
  'Corp',
  'Co',
  'GmbH',
  'PLC',
  'B.V.',
  'N.V.',
  'AG',
  'Oy',
  'AB',
  'SE',
  'S.L.',
  'Sp. z o.o.',
];
const FORM_KEYS: string[][] = LEGAL_FORMS.map(words).sort((a, b) => b.length - a.length);

function withoutLegalForm(ws: string[]): string[] {
  let out = ws;
  for (let changed = true; changed; ) {
    changed = false;
    for (const form of FORM_KEYS) {
      const n = form.length;
      if (out.length > n && form.every((w, i) => out[out.length - n + i] === w)) {
        out = out.slice(0, out.length - n);
        changed = true;
        break;
      }
    }
  }
  return out;
}

/** The words of a name's key (see nameKey); empty when the name has no letter or digit. */
export function nameKeyWords(name: string): string[] {
  return withoutLegalForm(words(name));
}

/**
 * The version of nameKey's folding: bump it with any change to what a name's key is (words, legal
 * forms, transliteration). Stores record it and rebuild their name keys when it changes
 * (ingest/state/entity-index.ts), so keys written by an older folding never miss a lookup.
 */
export const NAME_KEY_VERSION = 1;

/**
 * The key of an organization or person name: `ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ`, `Δήμος Αθηναίων` and `dimos athinaion`
 * have one key, as have `ΤΟΜΕΣ Α.Τ.Ε.` and `Tomes ATE`. Empty when the name has no letter or digit.
 */
export function nameKey(name: string): string {
  return nameKeyWords(name).join(' ');
}

/** True when two names are spellings of one name (their keys are equal and not empty). */
export function sameName(a: string, b: string): boolean {
  const k = nameKey(a);
  return k !== '' && k === nameKey(b);
}
