// The English→Greek lexicon: a lower-case English word or short phrase → its Greek translations, best
// first (data/vocabulary/lexicon-en-el.tsv, from FreeDict's English–Greek dictionary and
// its Greek–English one reversed; data/vocabulary/README.md says where from and under which licence).
// Read once, on first use.
import fs from 'node:fs';
import { projectPath } from '../paths.js';

export const LEXICON_FILE = projectPath('data', 'vocabulary', 'lexicon-en-el.tsv');
/** The most Greek translations an English headword has. */
export const LEXICON_MAX_SENSES = 8;
/** The most words an English headword has: a question is looked up word by word and in phrases this long at most. */
export const LEXICON_MAX_WORDS = 3;

// Each line's translations kept as one string and split when asked: as arrays, its 46,000 lines took
// 11 MB of heap, as strings 7.5 MB.
let entries: ReadonlyMap<string, string> | undefined;

function load(): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const line of fs.readFileSync(LEXICON_FILE, 'utf8').split('\n')) {
    const tab = line.indexOf('\t');
    if (tab > 0) out.set(line.slice(0, tab), line.slice(tab + 1));
  }
  return out;
}

/** `Schools`, `street  lights` → `schools`, `street lights`: the lexicon's keys are lower case, single-spaced. */
function keyOf(english: string): string {
  return english.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The singulars an English plural may have (`companies` → `company`, `boxes` → `box`, `beds` → `bed`), likeliest first. */
function singulars(key: string): string[] {
  const out: string[] = [];
  if (key.endsWith('ies')) out.push(`${key.slice(0, -3)}y`);
  // `boxes` → `box`, but `tyres` → `tyre` (not `tyr`): -es is a plural's ending after s, x, z, ch, sh.
  if (/(?:s|x|z|ch|sh)es$/.test(key)) out.push(key.slice(0, -2));
  if (key.endsWith('s') && !key.endsWith('ss')) out.push(key.slice(0, -1));
  return out;
}

/**
 * The Greek translations of an English word or phrase (LEXICON_MAX_WORDS), best first; [] when the
 * lexicon has none. Case and spacing do not matter; a plural it lacks is looked up as its singular
 * (`schools` as `school`), the last word of a phrase too.
 */
export function lookup(english: string): string[] {
  entries ??= load();
  const key = keyOf(english);
  for (const k of [key, ...singulars(key)]) {
    const found = entries.get(k);
    if (found !== undefined) return found.split('\t');
  }
  return [];
}
