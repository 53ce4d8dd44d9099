// The embedded engine's more_like_this (provider.ts MoreLikeThisQuery): which words of a text are
// searched. As Elasticsearch does, the words of highest tf·idf (stop words and words no document
// holds left out), at most MORE_LIKE_THIS_TERMS, ORed into one FTS5 MATCH ranked by bm25().
import { ENGLISH_STOP_WORDS, GREEK_STOP_WORDS } from '../../../index-mappings/settings.js';
import { MORE_LIKE_THIS_TERMS } from '../provider.js';
import { parseQuery } from './text.js';

const STOP = new Set([...GREEK_STOP_WORDS, ...ENGLISH_STOP_WORDS]);

/**
 * The longest text read: each distinct word costs one FTS5 count per table set, so callers pass what
 * says what a document is about (its title and summary), not all of it.
 */
const MAX_TEXT_CHARS = 2_000;

/**
 * The text's most distinctive words (folded, as written), or null when it has none. `dfOf` gives a
 * word's document frequency over the searched table sets, `documents` their size. Each table set then
 * ORs them in its own text version's terms (text.ts likeMatchFor).
 */
export function likeWords(text: string, dfOf: (token: string) => number, documents: number): string[] | null {
  const scored: { token: string; weight: number }[] = [];
  for (const [token, f] of termCounts(text.slice(0, MAX_TEXT_CHARS))) {
    if (STOP.has(token)) continue;
    const df = dfOf(token);
    if (df === 0) continue;
    scored.push({ token, weight: f * Math.log(1 + documents / df) });
  }
  if (!scored.length) return null;
  scored.sort((a, b) => b.weight - a.weight || (a.token < b.token ? -1 : 1));
  return scored.slice(0, MORE_LIKE_THIS_TERMS).map((s) => s.token);
}

/** Occurrences of each word of `text`, tokenized as query words are (parseQuery dedupes, so word by word). */
function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  // Plain words only: quotes and stars are syntax of user queries, not of a text to be like.
  for (const word of text.replace(/["*]/g, ' ').split(/\s+/u)) {
    for (const item of parseQuery(word)) {
      if (item.kind === 'term') counts.set(item.token, (counts.get(item.token) ?? 0) + 1);
    }
  }
  return counts;
}
