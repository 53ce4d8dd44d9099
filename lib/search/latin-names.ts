// Greek names found by their Latin spelling, as a foreign user types them: `Thessaloniki`,
// `Dimos Athinaion`, `Heraklion`. Both engines index, beside a document's title and entity names, a
// Latin key of each Greek word (latinKeysOf), and look a Latin query word up by the same key
// (latinKeyOf) and by the Greek name it may be the exonym of (exonymOf). Keys come from lib/names.ts
// (ELOT 743 and the informal spellings meet in one skeleton); a change to them, here or there, is a new
// embedded TEXT_VERSION and MAPPING_VERSION.
import { ENGLISH_STOP_WORDS } from '../../index-mappings/settings.js';
import { fold, GREEK_WORD } from '../greek.js';
import { skeleton, toLatin } from '../names.js';

/** Shortest key kept: shorter ones (`ki`, `to`) would meet too many words. */
const MIN_KEY = 3;
/**
 * Greek inflection endings, as the skeleton spells them (ου is u, ω is o, η ι υ ει οι are i, αι is e):
 * `thessalonikis` and `thessaloniki`, `dimou` and `dimos`, `irakleiou` and `iraklion` meet.
 */
const ENDING = /i?[aeiou][sn]?$/;

/** Latin letters, and the 8 Greeklish writes for θ (`a8hna`). */
const LATIN_WORD = /^(?=.*[a-z])[a-z8]+$/;

function keyOf(latin: string): string | null {
  const full = skeleton(latin);
  const stripped = full.replace(ENDING, '');
  const key = stripped.length >= MIN_KEY ? stripped : full;
  return key.length >= MIN_KEY ? key : null;
}

/** English stop words are English: `for` is not a spelling of φόρος. */
const ENGLISH_STOP = new Set(ENGLISH_STOP_WORDS);

/** The key of a folded Latin query word (`thessaloniki` → `thesalonik`); null for other words. */
export function latinKeyOf(token: string): string | null {
  return LATIN_WORD.test(token) && !ENGLISH_STOP.has(token) ? keyOf(token) : null;
}

/** The keys of a Latin word or phrase's words, or null when one of them has none. */
export function latinPhraseKeys(tokens: string[]): string[] | null {
  const keys = tokens.map(latinKeyOf);
  return keys.length && keys.every((k) => k !== null) ? (keys as string[]) : null;
}

/** The keys of the Greek words of `text`, in order (`Δήμος Αθηναίων` → `dim athine`). */
export function latinKeysOf(text: string): string[] {
  const out: string[] = [];
  for (const word of fold(text).match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (!GREEK_WORD.test(word)) continue;
    const key = keyOf(toLatin(word));
    if (key) out.push(key);
  }
  return out;
}

/** What Elasticsearch indexes in SEARCH_LATIN_FIELD: the keys of the title, then of each name, one value each. */
export function latinValues(doc: { title?: string | null; entities?: { names?: string[] } | null }): string[] {
  return [doc.title ?? '', ...(doc.entities?.names ?? [])].map((v) => latinKeysOf(v).join(' ')).filter((v) => v !== '');
}

/**
 * English (and older) names of Greek places that no transliteration reaches, with the Greek name they
 * stand for (folded): `Athens` is `Αθήνα`, `Heraklion` `Ηράκλειο`. Spellings a key already joins
 * (`Thessaloniki`, `Patras`, `Chania`, `Iraklion`) are not listed.
 */
const EXONYMS: Record<string, string> = {
  athens: 'αθηνα',
  attica: 'αττικη',
  heraklion: 'ηρακλειο',
  piraeus: 'πειραιασ',
  crete: 'κρητη',
  rhodes: 'ροδοσ',
  corfu: 'κερκυρα',
  salonica: 'θεσσαλονικη',
  thessalonica: 'θεσσαλονικη',
  thrace: 'θρακη',
  epirus: 'ηπειροσ',
  peloponnese: 'πελοποννησοσ',
  cyclades: 'κυκλαδεσ',
  dodecanese: 'δωδεκανησα',
  euboea: 'ευβοια',
  aegean: 'αιγαιο',
  ionian: 'ιονιο',
  greece: 'ελλαδα',
  hellas: 'ελλαδα',
  zante: 'ζακυνθοσ',
  candia: 'ηρακλειο',
  thebes: 'θηβα',
  corinth: 'κορινθοσ',
  sparta: 'σπαρτη',
  delphi: 'δελφοι',
  olympia: 'ολυμπια',
  mytilene: 'μυτιληνη',
  lesbos: 'λεσβοσ',
};

/** The Greek name (folded) a Latin query word is the exonym of, or null. */
export function exonymOf(token: string): string | null {
  return EXONYMS[token] ?? null;
}
