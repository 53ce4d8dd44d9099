// How alert keywords and monitored names are compared with document text: the search engine's folding
// (case, accents, final sigma; lib/greek.ts). The one place to switch to the shared name folding and
// stemmers once they land, so matching keeps folding as search does.
import { tokens } from '../../lib/greek.js';

/** The folded words of a text, as matching compares them. */
export function wordsOf(text: string): string[] {
  return tokens(text);
}

/** A name or keyword as one folded phrase: its words joined by single spaces. */
export function phraseOf(text: string): string {
  return wordsOf(text).join(' ');
}
