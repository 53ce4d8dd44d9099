// Text handling for the embedded engine: what FTS5 indexes and how user text becomes a MATCH string.
//
// We tokenize in JavaScript and hand FTS5 the tokens joined by single spaces, with FTS5's `ascii`
// tokenizer. Every token is a run of letters/digits after fold() (NFD, marks stripped, lower case,
// ς→σ); ascii treats every non-ASCII character as a token character and only splits on ASCII
// non-alphanumerics, so FTS5 sees exactly our tokens, byte for byte. That gives two things:
//  - Greek folding that unicode61 cannot do (it keeps the tonos on precomposed letters);
//  - exact knowledge, on the JS side, of every term frequency and document length FTS5 uses in bm25(),
//    which the common-term lists (HotLists.top, hot-lists.ts) rely on to reproduce FTS5's scores bit for bit.
// Changing what a document's tokens are is a new TEXT_VERSION. Each table set records the version it
// was written with (schema.ts), and docText() keeps producing every older version's tokens: a
// contentless FTS5 delete must repeat exactly the tokens the row was inserted with.
import { fold } from '../../greek.js';
import { stem } from '../../stem.js';
import { exonymOf, latinKeysOf, latinPhraseKeys } from '../latin-names.js';
import { searchedContent, searchedCpvLabels, searchedSummary, searchedTitles, type SearchedFields } from '../../../index-mappings/searched-text.js';
import { readQuery } from '../query-text.js';

/**
 * The version new table sets are written with. 1: body values joined, so a phrase could run from one
 * value into the next; 2: VALUE_GAP between them; 3: words stemmed (stem.ts), each column followed by
 * the unstemmed words marked with RAW_MARK, for prefixes; 4: the Latin keys of the Greek words of the
 * title and of each entity name, marked with LATIN_MARK (latin-names.ts), after the title and the body;
 * 5: the content and summary as searched (index-mappings/searched-text.ts), without a source's labels;
 * 6: the title column holds every searched title (a TED notice's English title too), a gap between two;
 * 7: the body holds the English CPV labels after the summary; 8: the English, then the Greek ones
 * (searched-text.ts searchedCpvLabels).
 */
export const TEXT_VERSION = 8;

/**
 * A token between two values of the body column (content, summary, each entity name), so that a quoted
 * phrase never runs from one into the next (Elasticsearch keeps 100 positions between values). FTS5's
 * `ascii` tokenizer keeps it as one token; no query has it, since query tokens are letters and digits
 * only (U+2029 is a paragraph separator). It counts in the document's length, like any token.
 */
export const VALUE_GAP = '\u2029';

/**
 * Marks an unstemmed copy of a word (text version 3): prefixes match the words as written, as on
 * Elasticsearch, where a prefix is not analysed and also meets the English analysis's unstemmed Greek
 * words. Not a letter or digit, so no query token is one; FTS5's `ascii` tokenizer keeps it in the token.
 */
export const RAW_MARK = '\u2028';

/**
 * Marks the Latin key of a Greek word (text version 4): a Latin query word meets it through its own key
 * (`Thessaloniki`, `Dimos Athinaion`). Like RAW_MARK, in no query token.
 */
export const LATIN_MARK = '\u2027';

const TOKEN = /[\p{L}\p{N}]+/gu;
const TOKEN_CHAR = /[\p{L}\p{N}]/u;

/** The reference definition: letters and digits of fold(text). indexTokens() computes the same, faster. */
export function referenceTokens(text: string): string[] {
  return fold(text).match(TOKEN) ?? [];
}

// fold() acts on each code point on its own (NFD decomposes per code point, marks are dropped whatever
// their order, lower-casing is context-free but for final sigma, which folds to σ anyway), so a cache of
// fold(code point) — with separators turned into spaces — gives the same tokens at ~1/5 of the cost of
// normalizing whole documents. The test suite checks the equivalence on every BMP code point.
const foldCache = new Map<number, string>();
const FOLD_CACHE_LIMIT = 1 << 16;

function foldCodePoint(cp: number): string {
  let out = foldCache.get(cp);
  if (out === undefined) {
    out = '';
    for (const c of fold(String.fromCodePoint(cp))) out += TOKEN_CHAR.test(c) ? c : ' ';
    if (foldCache.size < FOLD_CACHE_LIMIT) foldCache.set(cp, out);
  }
  return out;
}

/** Folded tokens of `text`, as indexed and as queried: exactly referenceTokens(text). */
export function indexTokens(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    if (cp < 0x80) {
      if ((cp >= 0x61 && cp <= 0x7a) || (cp >= 0x30 && cp <= 0x39)) cur += text[i];
      else if (cp >= 0x41 && cp <= 0x5a) cur += String.fromCharCode(cp + 0x20);
      else if (cur) {
        out.push(cur);
        cur = '';
      }
      continue;
    }
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      const lo = text.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = (cp - 0xd800) * 0x400 + (lo - 0xdc00) + 0x10000;
        i++;
      }
    }
    const folded = foldCodePoint(cp);
    for (let j = 0; j < folded.length; j++) {
      if (folded[j] !== ' ') cur += folded[j];
      else if (cur) {
        out.push(cur);
        cur = '';
      }
    }
  }
  if (cur) out.push(cur);
  return out;
}

export interface DocText {
  /** Tokens of the title column. */
  title: string[];
  /** Tokens of the body column: content, summary and entity names. */
  body: string[];
}

/** The tokens of `doc` as a table set of text `version` indexes them. */
export function docText(doc: SearchedFields, version: number): DocText {
  // From version 5, the content and summary as searched (searched-text.ts: a source's labels left out).
  const [content, summary] = version >= 5 ? [searchedContent(doc), searchedSummary(doc)] : [doc.content ?? '', doc.summary ?? ''];
  const labels = version >= 8 ? searchedCpvLabels(doc) : version === 7 ? (doc.cpv_labels_en ?? []) : [];
  const values = [content, summary, ...labels, ...(doc.entities?.names ?? [])];
  const title = version >= 6 ? withGaps(searchedTitles(doc)) : indexTokens(doc.title ?? '');
  if (version === 1) return { title, body: indexTokens(values.join('\n')) };
  if (version < 2 || version > 8) throw new Error(`unknown text version ${version}`);
  const body = withGaps(values);
  if (version === 2) return { title, body };
  if (version === 3) return { title: stemmed(title), body: stemmed(body) };
  // Each value's keys after a gap, in order, so that a Latin phrase matches a name's adjacent words.
  const withKeys = (tokens: string[], values: string[]) => {
    for (const value of values) {
      const keys = latinKeysOf(value);
      if (keys.length) tokens.push(VALUE_GAP, ...keys.map((k) => LATIN_MARK + k));
    }
    return tokens;
  };
  return { title: withKeys(stemmed(title), [doc.title ?? '']), body: withKeys(stemmed(body), doc.entities?.names ?? []) };
}

/** The tokens of each non-empty value, VALUE_GAP between two values. */
function withGaps(values: string[]): string[] {
  const out: string[] = [];
  for (const value of values) {
    const tokens = indexTokens(value);
    if (tokens.length === 0) continue;
    if (out.length > 0) out.push(VALUE_GAP);
    for (const token of tokens) out.push(token);
  }
  return out;
}

/**
 * A column's words stemmed, then each distinct word that its stem changed, marked (RAW_MARK), after a
 * gap: only prefixes look for those, and a prefix needs a word's presence, not its count or position.
 */
function stemmed(tokens: string[]): string[] {
  const out: string[] = [];
  const raw = new Set<string>();
  for (const token of tokens) {
    const s = token === VALUE_GAP ? token : stem(token);
    out.push(s);
    if (s !== token) raw.add(RAW_MARK + token);
  }
  if (raw.size) out.push(VALUE_GAP, ...raw);
  return out;
}

/** Weighted term frequency per term, as bm25(fts, TITLE_WEIGHT, BODY_WEIGHT) accumulates it (index-mappings/ranking.ts). */
export function termFrequencies(text: DocText, titleWeight: number, bodyWeight: number): Map<string, number> {
  const f = new Map<string, number>();
  for (const tok of text.title) f.set(tok, (f.get(tok) ?? 0) + titleWeight);
  for (const tok of text.body) f.set(tok, (f.get(tok) ?? 0) + bodyWeight);
  return f;
}

export type QueryItem = { kind: 'term'; token: string } | { kind: 'prefix'; token: string } | { kind: 'phrase'; tokens: string[] };

/**
 * User text → items that are ANDed, from the reader both engines share (query-text.ts): a phrase of one
 * word is that word, and a word with punctuation inside is its words (FTS5 sees only our tokens).
 */
export function parseQuery(text: string): QueryItem[] {
  const items: QueryItem[] = [];
  for (const part of readQuery(text)) {
    if (part.kind === 'prefix') items.push({ kind: 'prefix', token: part.tokens[0] });
    else if (part.kind === 'phrase' && part.tokens.length > 1) items.push({ kind: 'phrase', tokens: part.tokens });
    else for (const token of part.tokens) items.push({ kind: 'term', token });
  }
  return dedupe(items);
}

function itemKey(item: QueryItem): string {
  return item.kind === 'phrase' ? `p:${item.tokens.join(' ')}` : `${item.kind[0]}:${item.token}`;
}

function dedupe(items: QueryItem[]): QueryItem[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = itemKey(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** What one table set is asked: the MATCH string, and the term when the query is one plain term. */
export interface SetQuery {
  match: string;
  single: string | null;
}

/**
 * The FTS5 MATCH string for `items` on a table set of text `version`. Built only from tokens we produced:
 * each is letters/digits only (RAW_MARK aside), so it cannot contain a double quote, and is always quoted,
 * so FTS5 never sees an operator or column name. From version 3 terms and phrases are stemmed, as the
 * set's words are, and a prefix meets both the stems and the unstemmed words.
 */
export function toMatch(items: QueryItem[], version = TEXT_VERSION): string {
  return queryFor(items, version).match;
}

export function queryFor(items: QueryItem[], version = TEXT_VERSION): SetQuery {
  // Two words with one stem are one clause (`σύμβαση συμβάσεις`).
  const clauses = [...new Set(items.map((item) => clauseOf(item, version)))];
  const only = items.length === 1 ? items[0] : null;
  const term = only?.kind === 'term' ? termFor(only.token, version) : null;
  return {
    // FTS5 reads two phrases side by side as AND, but not a parenthesised group (v3 prefixes, v4 words).
    match: clauses.join(version >= 3 ? ' AND ' : ' '),
    // One plain term with no alternative: the common-term lists serve it.
    single: term !== null && clauses[0] === `"${term}"` ? term : null,
  };
}

/** A translation's groups (TextQuery.translated) as query items, alternatives without a word left out. */
export function parseTranslated(groups: readonly string[][] | undefined): QueryItem[][][] {
  return (groups ?? []).map((group) => group.map(parseQuery).filter((alt) => alt.length > 0)).filter((group) => group.length > 0);
}

/**
 * The text's words ANDed, or, with a translation (parseTranslated), those or one alternative of every
 * group, each alternative's words ANDed. With a translation never a single term: the common-term lists
 * rank one term alone.
 */
export function textQueryFor(items: QueryItem[], translated: QueryItem[][][], version = TEXT_VERSION): SetQuery {
  if (translated.length === 0) return queryFor(items, version);
  const all = (alt: QueryItem[]) => `(${queryFor(alt, version).match})`;
  const translation = translated.map((group) => `(${group.map(all).join(' OR ')})`).join(' AND ');
  return { match: `${all(items)} OR (${translation})`, single: null };
}

/** One phrase of a MATCH string, as pruned ranking (pruned.ts) bounds it: `term` when it is one plain term. */
export interface RankPhrase {
  phrase: string;
  term: string | null;
}

/**
 * The phrases of `items`' MATCH string on a set of text `version`, when each clause is one phrase (no
 * prefix, no Latin alternatives): pruned ranking needs a bound per phrase. Null otherwise.
 */
export function rankPhrases(items: QueryItem[], version = TEXT_VERSION): RankPhrase[] | null {
  const out = new Map<string, RankPhrase>();
  for (const item of items) {
    if (item.kind === 'prefix') return null;
    const clause = clauseOf(item, version);
    if (clause.startsWith('(')) return null;
    out.set(clause, { phrase: clause, term: item.kind === 'term' ? termFor(item.token, version) : null });
  }
  return [...out.values()];
}

function clauseOf(item: QueryItem, version: number): string {
  if (item.kind === 'prefix') {
    return version >= 3 ? `("${item.token}"* OR "${RAW_MARK}${item.token}"*)` : `"${item.token}"*`;
  }
  const own = item.kind === 'phrase' ? `"${item.tokens.map((t) => termFor(t, version)).join(' ')}"` : `"${termFor(item.token, version)}"`;
  const alternatives = version >= 4 ? latinAlternatives(item, version) : [];
  return alternatives.length ? `(${[own, ...alternatives].join(' OR ')})` : own;
}

/**
 * What else a Latin word or phrase may be (text version 4): the Latin keys of Greek words
 * (`"thessaloniki"` meets `Θεσσαλονίκη`), and for a word, the Greek name it is an English name of.
 */
function latinAlternatives(item: Exclude<QueryItem, { kind: 'prefix' }>, version: number): string[] {
  const tokens = item.kind === 'term' ? [item.token] : item.tokens;
  const keys = latinPhraseKeys(tokens);
  const out: string[] = [];
  if (keys) out.push(`"${keys.map((k) => LATIN_MARK + k).join(' ')}"`);
  const greek = item.kind === 'term' ? exonymOf(item.token) : null;
  if (greek) out.push(`"${termFor(greek, version)}"`);
  return out;
}

/** A query word as a table set of text `version` indexes it: stemmed from version 3. */
export function termFor(token: string, version: number): string {
  return version >= 3 ? stem(token) : token;
}

/** The FTS5 MATCH ORing `words` (likeWords) on a table set of text `version`. */
export function likeMatchFor(words: string[], version: number): string {
  return likeTerms(words, version)
    .map((t) => `"${t}"`)
    .join(' OR ');
}

/** The distinct terms likeMatchFor ORs, in its order. */
export function likeTerms(words: string[], version: number): string[] {
  return [...new Set(words.map((w) => termFor(w, version)))];
}

/** Compares strings by Unicode code point, which is UTF-8 byte order: SQLite's BINARY collation and
 * Lucene's term order. (JS `<` compares UTF-16 units, which differs above U+FFFF.) */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}
