// The offline fallback: a lexical embedder that needs no model. Feature hashing ("hashing trick") of
// folded words plus character 3- and 4-grams of each word, so Greek inflections (σύμβαση / συμβάσεις)
// and accents/case (ΑΠΟΦΑΣΗ / απόφαση) land near each other. Signed hashing keeps collisions unbiased;
// term frequencies are sublinear (1 + ln tf); the vector is L2-normalised. Deterministic across runs
// and machines. It is not semantic: "road" and "highway" share nothing.
import { tokens } from '../greek.js';
import type { Embedder } from './embedder.js';

/** Weight of a whole-word feature, of each character n-gram, and of a stopword. */
const WORD_WEIGHT = 1;
const NGRAM_WEIGHT = 0.4;
const STOPWORD_WEIGHT = 0.15;

/** Frequent function words (folded), down-weighted so they do not dominate short texts. */
const STOPWORDS = new Set(
  (
    'the a an of and or to in on for by with at from is are was were be as that this it its not no ' +
    'και ο η το οι τα του τησ των τον την τουσ τισ σε στο στη στην στον στα στουσ στισ με για απο ' +
    'που να θα δεν μη ειναι ενα μια ωσ κατα προσ μετα επι δια υπο'
  ).split(' '),
);

// Seeds keep the three feature kinds in separate hash spaces.
const SEED_WORD = 0x9e3779b1;
const SEED_NGRAM3 = 0x85ebca6b;
const SEED_NGRAM4 = 0xc2b2ae35;
const EMPTY_FEATURE = 0x27d4eb2f;

/** FNV-1a over UTF-16 code units of s[start, end), xor-seeded. */
function fnv(s: string, start: number, end: number, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = start; i < end; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h;
}

/** murmur3 finalizer: spreads FNV's weak low bits before we take a bucket and a sign. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class HashingEmbedder implements Embedder {
  readonly fallback = true;
  readonly id: string;

  constructor(readonly dimension = 384) {
    if (!Number.isInteger(dimension) || dimension < 8 || dimension > 65536) {
      throw new RangeError(`HashingEmbedder dimension must be an integer from 8 to 65536, got ${dimension}`);
    }
    this.id = `pdi/hashing-${dimension}`;
  }

  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((t) => this.embedOne(t));
  }

  /** Synchronous single-text form (the async interface is for parity with the model). */
  embedOne(text: string): number[] {
    // feature hash -> occurrences; its weight depends only on its kind, kept beside it.
    const counts = new Map<number, number>();
    const weights = new Map<number, number>();
    const add = (h: number, w: number) => {
      const c = counts.get(h);
      if (c === undefined) {
        counts.set(h, 1);
        weights.set(h, w);
      } else counts.set(h, c + 1);
    };
    for (const word of tokens(text)) {
      const stop = STOPWORDS.has(word);
      add(fnv(word, 0, word.length, SEED_WORD), stop ? STOPWORD_WEIGHT : WORD_WEIGHT);
      if (stop || word.length < 3 || !/\p{L}/u.test(word)) continue;
      // n-grams of ^word$ so that beginnings and endings are features of their own.
      const padded = `^${word}$`;
      for (let i = 0; i + 3 <= padded.length; i++) add(fnv(padded, i, i + 3, SEED_NGRAM3), NGRAM_WEIGHT);
      for (let i = 0; i + 4 <= padded.length; i++) add(fnv(padded, i, i + 4, SEED_NGRAM4), NGRAM_WEIGHT);
    }
    if (counts.size === 0) add(EMPTY_FEATURE, 1);

    const v = new Float64Array(this.dimension);
    for (const [h, tf] of counts) {
      const m = mix(h);
      const value = weights.get(h)! * (1 + Math.log(tf)); // sublinear tf
      v[m % this.dimension] += m & 0x80000000 ? -value : value;
    }
    let norm = 0;
    for (let i = 0; i < v.length; i++) norm += v[i] * v[i];
    if (norm === 0) {
      // Every feature cancelled out by signed collisions (possible, vanishingly rare): a fixed unit vector.
      const out = new Array<number>(this.dimension).fill(0);
      out[mix(EMPTY_FEATURE) % this.dimension] = 1;
      return out;
    }
    const inv = 1 / Math.sqrt(norm);
    const out = new Array<number>(this.dimension);
    for (let i = 0; i < v.length; i++) out[i] = v[i] * inv;
    return out;
  }
}
