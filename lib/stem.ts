// Stemming of folded words (greek.ts fold: lower case, no accents, σ for ς), as Elasticsearch's
// analysis stems them: Greek words by Ntais's algorithm (the one Lucene's GreekStemmer implements;
// here @nlpjs/lang-el's implementation), Latin words by Porter's (Lucene's `english` stemmer).
// Elasticsearch looks a Greek word up in the Greek analysis and a Latin one in the English analysis
// (elasticsearch buildTextQuery), so one function per script gives the embedded engine the same terms.
import { createRequire } from 'node:module';
import { stemmer as porter } from 'stemmer';
import { GREEK_WORD } from './greek.js';

interface SnowballLike {
  setCurrent(word: string): void;
  innerStem(): void;
  getCurrent(): string;
}

const require = createRequire(import.meta.url);
const StemmerEl = require('@nlpjs/lang-el/src/stemmer-el.js') as new () => SnowballLike;
// Called through innerStem: the package's stemWord keeps every word it ever saw in an unbounded cache.
const greek = new StemmerEl();

const LATIN_WORD = /^[a-z]+$/;

const cache = new Map<string, string>();
const CACHE_LIMIT = 1 << 16;

/**
 * The stem of one folded token: `συμβασεισ` → `συμβασ`, `contracts` → `contract`. Words mixing scripts
 * or with digits (`covid19`, `ν4412`) stay as they are, as both Elasticsearch stemmers leave them.
 */
export function stem(token: string): string {
  let out = cache.get(token);
  if (out !== undefined) return out;
  if (GREEK_WORD.test(token)) {
    greek.setCurrent(token);
    greek.innerStem();
    out = greek.getCurrent();
  } else if (LATIN_WORD.test(token)) {
    out = porter(token);
  } else {
    out = token;
  }
  // A stem is never empty: a word the algorithm would strip whole keeps its own form.
  if (!out) out = token;
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(token, out);
  return out;
}
