// The `snippet` of a search result: a passage of the document's own text (NFC, as stored) around the
// query's words, each marked `<mark>…</mark>` and everything else HTML-escaped, so a web client inserts
// it as it is and any other client strips two tags and five entities. Not «…»: Greek quotes with those.
// Cut here, one way for both engines: Elasticsearch keeps its searched field out of `_source` and the
// embedded FTS5 table is contentless, so neither engine could cut one from what it indexes. A word is
// marked when a search would match it: folded and stemmed as both engines index (stem.ts), a prefix, or
// a Greek word whose Latin key a Latin query word has (latin-names.ts: `Thessaloniki` marks Θεσσαλονίκη).
import { ENGLISH_STOP_WORDS, GREEK_STOP_WORDS } from '../../index-mappings/settings.js';
import { fold, GREEK_WORD } from '../greek.js';
import { stem } from '../stem.js';
import { exonymOf, latinKeyOf, latinKeysOf } from './latin-names.js';
import { readQuery } from './query-text.js';

/** About this many characters of text around the marked words. */
export const SNIPPET_CHARS = 200;
/** A document's text is looked into this far; a longer one's later matches are not shown. */
const SCAN_CHARS = 100_000;
/** Matched words weighed when choosing the passage: enough for any passage, bounded for a long text. */
const MAX_MATCHES = 400;

const WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;
/** Words whose verdict a matcher remembers (one query's page of texts). */
const SEEN_LIMIT = 50_000;
const STOP = new Set([...ENGLISH_STOP_WORDS, ...GREEK_STOP_WORDS]);

/** Which words of a text a query matches: `key` names the query word matched (for counting distinct ones), or null. */
export type WordMatcher = (word: string) => string | null;

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
  // Keyed by the word as written: a page's texts repeat most of their words, and folding is the cost.
  const seen = new Map<string, string | null>();
  return (word) => {
    let key = seen.get(word);
    if (key !== undefined) return key;
    const folded = fold(word);
    key = stems.get(stem(folded)) ?? prefixes.find((p) => folded.startsWith(p)) ?? null;
    if (key === null && latin.size > 0 && GREEK_WORD.test(folded)) key = latin.get(latinKeysOf(folded)[0] ?? '') ?? null;
    if (seen.size < SEEN_LIMIT) seen.set(word, key);
    return key;
  };
}

interface Match {
  start: number;
  end: number;
  key: string;
}

function matchesIn(text: string, match: WordMatcher): Match[] {
  const out: Match[] = [];
  for (const m of text.slice(0, SCAN_CHARS).matchAll(WORD)) {
    const key = match(m[0]);
    if (key === null) continue;
    out.push({ start: m.index, end: m.index + m[0].length, key });
    if (out.length >= MAX_MATCHES) break;
  }
  return out;
}

/** The run of matches, within SNIPPET_CHARS of its first, holding the most distinct query words (the first such run). */
function bestRun(matches: Match[]): Match[] {
  let best: Match[] = [];
  let bestKeys = 0;
  for (let i = 0; i < matches.length; i++) {
    const run: Match[] = [];
    const keys = new Set<string>();
    for (let j = i; j < matches.length && matches[j].end - matches[i].start <= SNIPPET_CHARS; j++) {
      run.push(matches[j]);
      keys.add(matches[j].key);
    }
    if (keys.size > bestKeys) {
      best = run;
      bestKeys = keys.size;
    }
  }
  return best;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** The passage [from, to) of `text`, its whitespace collapsed, `marks` marked, an ellipsis where it is cut. */
function render(text: string, from: number, to: number, marks: Match[]): string {
  let out = from > 0 ? '…' : '';
  let at = from;
  for (const m of marks) {
    if (m.start < at || m.end > to) continue;
    out += `${escapeHtml(text.slice(at, m.start))}<mark>${escapeHtml(text.slice(m.start, m.end))}</mark>`;
    at = m.end;
  }
  out += escapeHtml(text.slice(at, to));
  if (to < text.length) out += '…';
  return out.replace(/\s+/gu, ' ').trim();
}

/** A word boundary at or before `i` (a space or the start), so a passage never opens inside a word. */
function wordStart(text: string, i: number): number {
  if (i <= 0) return 0;
  const space = text.lastIndexOf(' ', i);
  const newline = text.lastIndexOf('\n', i);
  const at = Math.max(space, newline);
  return at < 0 || i - at > 30 ? i : at + 1;
}

/** A word boundary at or after `i`, so a passage never ends inside a word. */
function wordEnd(text: string, i: number): number {
  if (i >= text.length) return text.length;
  const m = /[\s]/u.exec(text.slice(i, i + 30));
  return m ? i + m.index : i;
}

/** The passage of `text` around its best run of matches, or null when nothing in it matches. */
function passage(text: string, match: WordMatcher): string | null {
  const all = matchesIn(text, match);
  const run = bestRun(all);
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
 * The snippet of a document for a query: the passage of its content with the most of the query's words,
 * else its title with them marked, else (a match through an entity name or a field not shown) the
 * opening of its content or title, unmarked.
 */
export function snippetOf(doc: { title?: string | null; content?: string | null }, match: WordMatcher): string {
  const content = doc.content ?? '';
  const title = doc.title ?? '';
  const found = passage(content, match) ?? passage(title, match);
  if (found !== null) return found;
  const text = content || title;
  return render(text, 0, wordEnd(text, Math.min(text.length, SNIPPET_CHARS)), []);
}
