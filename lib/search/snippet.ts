// The `snippet` of a search result: a passage of the document's own text (NFC, as stored) around the
// query's words, each marked `<mark>…</mark>` and everything else HTML-escaped, so a web client inserts
// it as it is and any other client strips two tags and five entities. Not «…»: Greek quotes with those.
// Cut from the snippet text both engines store beside each document (snippetText: the opening of its
// content, capped), never from the whole content: a content runs to 100,000 characters, and reading and
// scanning a page of them on the API's main thread made a page with snippets cost 2.3x (embedded) and
// 12x (Elasticsearch) the page without (docs/benchmarks-history.md "Snippets from a stored text").
// Marked here, one way for both engines: Elasticsearch's highlighter would re-analyse the text with the
// Greek, the English and the Latin-key analyses in turn. A word is marked when a search would match it:
// folded and stemmed as both engines index (stem.ts), a prefix, or a Greek word whose Latin key a Latin
// query word has (latin-names.ts: `Thessaloniki` marks Θεσσαλονίκη).
import { ENGLISH_STOP_WORDS, GREEK_STOP_WORDS } from '../../index-mappings/settings.js';
import { fold, GREEK_WORD } from '../greek.js';
import { stem } from '../stem.js';
import { exonymOf, latinKeyOf, latinKeysOf } from './latin-names.js';
import { readQuery } from './query-text.js';

/** About this many characters of text around the marked words. */
export const SNIPPET_CHARS = 200;
/**
 * The stored snippet text's length at most (snippetText): five passages' worth, so a word of the
 * opening paragraphs is shown where it stands, while a page of 100 scans at most 100,000 characters.
 * A word further into the content is not marked: its document's snippet is the opening.
 */
export const SNIPPET_TEXT_CHARS = 1_000;
/** Where the stored text was cut short of the content, or a passage of it. */
const CUT = '…';
/** How far a cut moves to a word boundary at most: a longer word (a URL, a run of digits) is cut inside. */
const WORD_REACH = 30;

/**
 * The text a document's snippet is cut from, which both engines store with it (Elasticsearch as a
 * binary doc value, the embedded engine as a `_docs` column): the opening of its content, its
 * whitespace collapsed, at most SNIPPET_TEXT_CHARS characters ending at a word, then `…` when the
 * content goes on. The title is not in it: the metadata record that every hit carries has it.
 */
export function snippetText(content: string | null | undefined): string {
  const whole = content ?? '';
  // Collapsed before the cut, so that the cap counts words, not a scanned page's runs of spaces.
  const head = whole.slice(0, 4 * SNIPPET_TEXT_CHARS);
  const text = head.replace(/\s+/g, ' ').trim();
  if (text.length <= SNIPPET_TEXT_CHARS) return /\S/.test(whole.slice(head.length)) ? `${text}${CUT}` : text;
  let end = text.lastIndexOf(' ', SNIPPET_TEXT_CHARS);
  // Never between a surrogate pair.
  if (end < SNIPPET_TEXT_CHARS - WORD_REACH) end = isHighSurrogate(text.charCodeAt(SNIPPET_TEXT_CHARS - 1)) ? SNIPPET_TEXT_CHARS - 1 : SNIPPET_TEXT_CHARS;
  return `${text.slice(0, end).trimEnd()}${CUT}`;
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

const STOP = new Set([...ENGLISH_STOP_WORDS, ...GREEK_STOP_WORDS]);

/** A word as written, read as both engines index it: folded, stemmed, and a Greek word's Latin key. */
interface WordForms {
  folded: string;
  stem: string;
  /** latin-names.ts latinKeysOf of a Greek word, computed when a Latin query first asks; null for other words. */
  latin?: string | null;
}

/**
 * The forms of every word met, whatever the query: folding and stemming them was most of a snippet's
 * cost, and the texts of a corpus repeat their vocabulary. Emptied when full: ~170 bytes a word, 8.5 MB in all.
 */
const FORMS_LIMIT = 50_000;
const forms = new Map<string, WordForms>();

function formsOf(word: string): WordForms {
  let f = forms.get(word);
  if (f === undefined) {
    const folded = fold(word);
    f = { folded, stem: stem(folded) };
    if (forms.size >= FORMS_LIMIT) forms.clear();
    forms.set(word, f);
  }
  return f;
}

function latinOf(f: WordForms): string | null {
  if (f.latin === undefined) f.latin = GREEK_WORD.test(f.folded) ? (latinKeysOf(f.folded)[0] ?? null) : null;
  return f.latin;
}

/**
 * Which words of a text a query matches: `key` names the query word matched (for counting distinct ones),
 * or null. `first`: whether a word whose folded first letter is this UTF-16 unit can match at all, so
 * most words are passed over without being read (a stem keeps its word's first letter, on the corpus's
 * every word: test/search/snippet.test.ts).
 */
export interface WordMatcher {
  (word: string): string | null;
  first(unit: number): boolean;
  /** How many distinct keys the matcher gives: a passage with all of them can be bettered by none. */
  keys: number;
}

/** The matcher of a user's query text (query-text.ts readQuery, as both engines read it). */
export function queryMatcher(text: string): WordMatcher {
  const parts = readQuery(text);
  const words = parts.filter((p) => p.kind !== 'prefix').flatMap((p) => p.tokens);
  // Stop words only when the query has nothing else, as the engines look them up then only.
  const meaningful = words.some((w) => !STOP.has(w)) ? words.filter((w) => !STOP.has(w)) : words;
  const stems = new Map<string, string>();
  const latin = new Map<string, string>();
  for (const w of meaningful) {
    stems.set(stem(w), w);
    const greek = exonymOf(w);
    if (greek) stems.set(stem(greek), w);
    const key = latinKeyOf(w);
    if (key) latin.set(key, w);
  }
  const prefixes = parts.filter((p) => p.kind === 'prefix').map((p) => p.text);
  const firsts = new Set<number>([...stems.keys(), ...prefixes].map((w) => w.charCodeAt(0)));
  for (const key of latin.keys()) for (const unit of greekStartsOf(key)) firsts.add(unit);
  const matcher = (word: string) => {
    const f = formsOf(word);
    let key = stems.get(f.stem) ?? null;
    if (key === null && prefixes.length > 0) key = prefixes.find((p) => f.folded.startsWith(p)) ?? null;
    if (key === null && latin.size > 0) key = latin.get(latinOf(f) ?? '') ?? null;
    return key;
  };
  const keys = new Set([...stems.values(), ...latin.values(), ...prefixes]).size;
  return Object.assign(matcher, { first: (unit: number) => firsts.has(unit), keys });
}

const GREEK_LETTERS = 'αβγδεζηθικλμνξοπρστυφχψω';
/** Latin key's first letter → the first letters of the Greek words with such a key. */
let greekStarts: Map<string, number[]> | null = null;

/**
 * The folded first letters of the Greek words whose Latin key begins as `key` does: a key's first letter
 * comes from the word's first one or two letters (μπ is b, ου is u), so every pair is tried once.
 */
function greekStartsOf(key: string): number[] {
  if (greekStarts === null) {
    const starts = new Map<string, Set<number>>();
    for (const a of GREEK_LETTERS) {
      for (const b of ['', ...GREEK_LETTERS]) {
        const k = latinKeysOf(`${a}${b}ακα`)[0];
        if (!k) continue;
        if (!starts.has(k[0])) starts.set(k[0], new Set());
        starts.get(k[0])!.add(a.charCodeAt(0));
      }
    }
    greekStarts = new Map([...starts].map(([c, units]) => [c, [...units]]));
  }
  return greekStarts.get(key[0]) ?? [];
}

/** The first UTF-16 unit of each unit folded (greek.ts fold), filled as units are met; 0: not yet. */
const foldedFirst = new Uint16Array(0x10000);

function foldedFirstOf(unit: number): number {
  let f = foldedFirst[unit];
  if (f === 0) f = foldedFirst[unit] = fold(String.fromCharCode(unit)).charCodeAt(0) || 0xffff;
  return f;
}

// A word is a letter or digit followed by letters, marks and digits (`[\p{L}\p{N}][\p{L}\p{M}\p{N}]*`),
// read a UTF-16 unit at a time from a table filled as units are met: the Unicode-property pattern itself
// cost ~50 ns a character.
const OTHER = 1;
const LETTER = 2;
const MARK = 3;
/** Half of a surrogate pair: the pair is read whole (uncached: astral letters are rare). */
const SURROGATE = 4;
const unitClass = new Uint8Array(0x10000);
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const COMBINING_MARK = /\p{M}/u;

function classOf(ch: string): number {
  return LETTER_OR_DIGIT.test(ch) ? LETTER : COMBINING_MARK.test(ch) ? MARK : OTHER;
}

function unitClassOf(c: number): number {
  return (unitClass[c] = c >= 0xd800 && c <= 0xdfff ? SURROGATE : classOf(String.fromCharCode(c)));
}

/** The class of a surrogate pair at `i` (a lone surrogate is OTHER), for the loops below. */
function pairClassAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  const low = text.charCodeAt(i + 1);
  return isHighSurrogate(c) && low >= 0xdc00 && low <= 0xdfff ? classOf(text.slice(i, i + 2)) : OTHER;
}

/** Where the next word starts at or after `i` (text.length: none). */
function nextWordAt(text: string, i: number): number {
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const k = unitClass[c] || unitClassOf(c);
    if (k === LETTER) return i;
    if (k === SURROGATE && pairClassAt(text, i) === LETTER) return i;
  }
  return text.length;
}

/** The end of the word that starts at `i`. */
function wordEndAt(text: string, i: number): number {
  for (i += isHighSurrogate(text.charCodeAt(i)) ? 2 : 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const k = unitClass[c] || unitClassOf(c);
    if (k === OTHER) return i;
    if (k === SURROGATE) {
      if (pairClassAt(text, i) === OTHER) return i;
      i++;
    }
  }
  return Math.min(i, text.length);
}

/** The words of `text` as [start, end) offsets, as the word pattern finds them. */
export function wordSpans(text: string): [number, number][] {
  const out: [number, number][] = [];
  for (let i = nextWordAt(text, 0); i < text.length; ) {
    const end = wordEndAt(text, i);
    out.push([i, end]);
    i = nextWordAt(text, end);
  }
  return out;
}

interface Match {
  start: number;
  end: number;
  key: string;
}

/**
 * The words of `text` the query matches, up to where the first run holding every query word (bestRun)
 * is passed: no later run can better it. A word whose first letter no query word has is passed over unread.
 */
function matchesIn(text: string, match: WordMatcher): Match[] {
  const out: Match[] = [];
  let checked = 0;
  let stop = text.length;
  for (let i = nextWordAt(text, 0); i < stop; ) {
    const end = wordEndAt(text, i);
    const unit = text.charCodeAt(i);
    if (isHighSurrogate(unit) || match.first(foldedFirstOf(unit))) {
      const key = match(text.slice(i, end));
      if (key !== null) out.push({ start: i, end, key });
    }
    // Each run, once the text is read past its reach: with every key, the passage ends within a
    // word's length of it (passage, wordEnd), so the marks to its end are all that is left to find.
    for (; stop === text.length && checked < out.length && out[checked].start + SNIPPET_CHARS < end; checked++) {
      if (keysOfRun(out, checked) === match.keys) stop = Math.min(text.length, out[checked].start + SNIPPET_CHARS + 2 * WORD_REACH);
    }
    i = nextWordAt(text, end);
  }
  return out;
}

/** Distinct keys of the run of matches starting at `i` (within SNIPPET_CHARS of it). */
function keysOfRun(matches: Match[], i: number): number {
  const keys = new Set<string>();
  for (let j = i; j < matches.length && matches[j].end - matches[i].start <= SNIPPET_CHARS; j++) keys.add(matches[j].key);
  return keys.size;
}

/** The run of matches, within SNIPPET_CHARS of its first, holding the most distinct query words (the first such run; `all`: every one). */
function bestRun(matches: Match[], all: number): Match[] {
  let best = -1;
  let bestKeys = 0;
  for (let i = 0; i < matches.length && bestKeys < all; i++) {
    const keys = keysOfRun(matches, i);
    if (keys > bestKeys) {
      best = i;
      bestKeys = keys;
    }
  }
  if (best < 0) return [];
  let end = best;
  while (end < matches.length && matches[end].end - matches[best].start <= SNIPPET_CHARS) end++;
  return matches.slice(best, end);
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const TO_ESCAPE = /[&<>"']/;
const escapeHtml = (s: string) => (TO_ESCAPE.test(s) ? s.replace(/[&<>"']/g, (c) => ESCAPES[c]) : s);

/** The passage [from, to) of `text` (whitespace collapsed), `marks` (in text order) marked, an ellipsis where it is cut. */
function render(text: string, from: number, to: number, marks: Match[]): string {
  let out = from > 0 ? CUT : '';
  let at = from;
  for (const m of marks) {
    if (m.end > to) break;
    if (m.start < at) continue;
    out += `${escapeHtml(text.slice(at, m.start))}<mark>${escapeHtml(text.slice(m.start, m.end))}</mark>`;
    at = m.end;
  }
  out += escapeHtml(text.slice(at, to));
  if (to < text.length) out += CUT;
  return out.trim();
}

/** A word boundary at or before `i` (a space or the start), so a passage never opens inside a word. */
function wordStart(text: string, i: number): number {
  if (i <= 0) return 0;
  const at = text.lastIndexOf(' ', i);
  return at < 0 || i - at > WORD_REACH ? i : at + 1;
}

/** A word boundary at or after `i`, so a passage never ends inside a word. */
function wordEnd(text: string, i: number): number {
  if (i >= text.length) return text.length;
  const at = text.indexOf(' ', i);
  if (at >= 0 && at - i <= WORD_REACH) return at;
  return i + WORD_REACH >= text.length ? text.length : i;
}

/** The passage of `text` around its best run of matches, or null when nothing in it matches. */
function passage(text: string, match: WordMatcher): string | null {
  const all = matchesIn(text, match);
  const run = bestRun(all, match.keys);
  if (run.length === 0) return null;
  const first = run[0].start;
  const last = run[run.length - 1].end;
  // The room left around the matched words, a third of it before them.
  const room = Math.max(0, SNIPPET_CHARS - (last - first));
  const from = wordStart(text, Math.max(0, first - Math.floor(room / 3)));
  const to = wordEnd(text, Math.min(text.length, Math.max(last, from + SNIPPET_CHARS)));
  return render(text, from, to, all);
}

/**
 * The snippet of a document for a query, from its title and its stored snippet text (snippetText): the
 * passage of the text with the most of the query's words, else its title with them marked, else (a
 * match through an entity name, a field not shown, or a word past the stored text) the opening of the
 * text or the title, unmarked.
 */
export function snippetOf(title: string | null | undefined, text: string | null | undefined, match: WordMatcher): string {
  const found = passage(text ?? '', match);
  if (found !== null) return found;
  // The stored text is collapsed already (snippetText); a title may hold line breaks.
  const heading = (title ?? '').replace(/\s+/g, ' ').trim();
  const opening = text || heading;
  return passage(heading, match) ?? render(opening, 0, wordEnd(opening, Math.min(opening.length, SNIPPET_CHARS)), []);
}
