// The one reader of the user's query text, shared by both engines; each renders its parts into its own
// syntax (elasticsearch/queries.ts queryChunks: simple_query_string; embedded/text.ts parseQuery: FTS5).
import { fold, tokens } from '../greek.js';
import { MIN_PREFIX_CHARS } from './provider.js';

/**
 * One part of a query; parts are ANDed. `text` is the part folded as written (punctuation inside kept,
 * for an engine whose own tokenizer reads it), `tokens` its letters and digits (never empty).
 * - `word`: a plain word;
 * - `prefix`: `text` is one token, to be matched as the start of a word;
 * - `phrase`: words in a row.
 */
export interface QueryPart {
  kind: 'word' | 'prefix' | 'phrase';
  text: string;
  tokens: string[];
}

/** Longest user text we read; the rest is ignored (a query is not a document). */
export const MAX_QUERY_CHARS = 4096;

const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * Emoji (with their modifiers and flags) and invisible format characters (joiners, zero-width spaces)
 * separate words: Elasticsearch's standard tokenizer keeps an emoji as a token, and a joiner inside the
 * word it joins, so either made a word that no document holds and emptied the whole search.
 */
const INVISIBLE_OR_PICTOGRAPHIC = /[\p{Cf}\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}]/gu;

/**
 * The parts of a user's text. Never throws; anything that looks like syntax but these is plain text:
 * - quotes pair up left to right into phrases; a quote left over is ignored;
 * - a word or phrase with no letter or digit is dropped (a `-` or `–` between two words is no part);
 * - `word*` is a prefix only when the star follows a letter or digit and the prefix has at least
 *   MIN_PREFIX_CHARS characters, otherwise a plain word (`σ* σ* …` cost seconds and matched most of
 *   the index); a prefix is split at punctuation into its words, the last one the prefix (`ν.4412*` is
 *   the word `ν` and the prefix `4412`);
 * - the text is folded (greek.ts fold: accents, including combining marks with no precomposed form,
 *   case, final sigma);
 * - a part given twice is read once.
 */
export function readQuery(text: string): QueryPart[] {
  const input = fold(
    String(text ?? '')
      .slice(0, MAX_QUERY_CHARS)
      .replace(INVISIBLE_OR_PICTOGRAPHIC, ' '),
  );
  const parts = new Map<string, QueryPart>();
  const add = (part: QueryPart) => {
    const key = `${part.kind}:${part.text}`;
    if (!parts.has(key)) parts.set(key, part);
  };
  let i = 0;
  while (i < input.length) {
    const open = input.indexOf('"', i);
    const close = open < 0 ? -1 : input.indexOf('"', open + 1);
    if (close < 0) {
      words(input.slice(i).replaceAll('"', ' '), add);
      break;
    }
    words(input.slice(i, open), add);
    const phrase = input
      .slice(open + 1, close)
      .replaceAll('*', ' ')
      .trim()
      .split(/\s+/u)
      .join(' ');
    const inPhrase = tokens(phrase);
    if (inPhrase.length > 0) add({ kind: 'phrase', text: phrase, tokens: inPhrase });
    i = close + 1;
  }
  return [...parts.values()];
}

function words(segment: string, add: (part: QueryPart) => void): void {
  for (const word of segment.split(/\s+/u)) {
    if (!WORD_CHAR.test(word)) continue;
    const star = /\*+$/u.exec(word);
    if (!star) {
      add({ kind: 'word', text: word, tokens: tokens(word) });
      continue;
    }
    const stem = word.slice(0, star.index);
    const inStem = tokens(stem);
    const last = inStem.pop() ?? '';
    if (!WORD_CHAR.test([...stem].pop() ?? '') || [...last].length < MIN_PREFIX_CHARS) {
      add({ kind: 'word', text: stem, tokens: [...inStem, last].filter((w) => w !== '') });
      continue;
    }
    for (const w of inStem) add({ kind: 'word', text: w, tokens: [w] });
    add({ kind: 'prefix', text: last, tokens: [last] });
  }
}
