// Writes data/vocabulary/: the official CPV 2008 table (cpv.tsv) and the English→Greek lexicon
// (lexicon-en-el.tsv), from the files scripts/vocabulary.sh fetches and checks (README there). The server
// and tests read only the written files (lib/vocabulary/). Deterministic: the same inputs give
// byte-identical files.
//   node --import tsx data/vocabulary.ts --cpv cpv.gc --eng-ell DIR/freedict-eng-ell --ell-eng DIR/freedict-ell-eng [--out DIR]
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { XMLParser } from 'fast-xml-parser';
import { LEXICON_MAX_SENSES, LEXICON_MAX_WORDS } from '../lib/vocabulary/lexicon.js';

export interface CpvRow {
  code: string;
  parent: string;
  en: string;
  el: string;
}

const GREEK = /[\u0370-\u03ff\u1f00-\u1fff]/;
const LATIN = /[A-Za-z]/;

function tidy(s: string): string {
  return s.normalize('NFC').replace(/\s+/g, ' ').trim();
}

/** The rows of the SDK's Genericode CPV list (codes are 8 digits there, without check digit), ordered by code. */
export function cpvRows(genericode: string): CpvRow[] {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseTagValue: false,
    isArray: (name) => name === 'Row' || name === 'Value',
  });
  const list = parser.parse(genericode)['gc:CodeList'].SimpleCodeList.Row as { Value: { ColumnRef: string; SimpleValue: unknown }[] }[];
  const rows = list.map((row) => {
    const value = (ref: string) => tidy(String(row.Value.find((v) => v.ColumnRef === ref)?.SimpleValue ?? ''));
    return { code: value('code'), parent: value('parentCode'), en: value('eng_label'), el: value('ell_label') };
  });
  for (const r of rows) {
    if (!/^\d{8}$/.test(r.code) || !(r.parent === '' || /^\d{8}$/.test(r.parent)) || !r.en || !r.el) throw new Error(`unexpected CPV row ${JSON.stringify(r)}`);
  }
  return rows.sort((a, b) => (a.code < b.code ? -1 : 1));
}

export function cpvTsv(rows: CpvRow[]): string {
  return ['code\tparent\ten\tel', ...rows.map((r) => [r.code, r.parent, r.en, r.el].join('\t')), ''].join('\n');
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function base64Number(s: string): number {
  let n = 0;
  for (const c of s) n = n * 64 + B64.indexOf(c);
  return n;
}

/** The entries of a dictd dictionary (`<prefix>.index` + `<prefix>.dict.dz`), headword as written and text, in index order. */
export function dictdEntries(prefix: string): { headword: string; text: string }[] {
  const dict = gunzipSync(fs.readFileSync(`${prefix}.dict.dz`));
  return fs
    .readFileSync(`${prefix}.index`, 'utf8')
    .split('\n')
    .filter((line) => line && !line.startsWith('00database'))
    .map((line) => {
      const [headword, offset, length] = line.split('\t');
      const start = base64Number(offset!);
      const text = dict.subarray(start, start + base64Number(length!)).toString('utf8');
      // The index folds case (`μάλτα`); the entry's first line has the headword as written, then its pronunciation.
      return { headword: tidy(/^[^/<]*/.exec(text)![0]) || headword!, text };
    });
}

/** A sense as written, without parentheticals, brackets, quotes and `l=`/`alt=` markers. */
function cleanSense(s: string): string {
  return tidy(
    s
      .replace(/\([^)]*\)/g, ' ')
      .replace(/^\s*(?:l|alt)=/, '')
      .replace(/[[\]{}";]/g, ''),
  );
}

/** The Greek senses of an English–Greek entry: the lines after the headword, comma-separated, Greek only. */
export function englishGreekSenses(text: string): string[] {
  const lines = text.split('\n').slice(1);
  const senses = lines.flatMap((l) => l.split(',')).map(cleanSense);
  return senses.filter((s) => GREEK.test(s) && !LATIN.test(s) && !/[\d=]/.test(s));
}

/**
 * The English glosses of a Greek–English entry with their rank (numbered sense, place in its line):
 * lines in Latin letters are glosses, lines in Greek are the dictionary's notes on a sense.
 */
export function greekEnglishGlosses(text: string): { gloss: string; sense: number; place: number }[] {
  const out: { gloss: string; sense: number; place: number }[] = [];
  let sense = 1;
  for (const raw of text.split('\n').slice(1)) {
    const numbered = /^(\d+)\.\s*(.*)$/.exec(raw);
    if (numbered) sense = Number(numbered[1]);
    const line = numbered ? numbered[2]! : raw;
    if (!line.trim() || GREEK.test(line)) continue;
    line.split(',').forEach((part, place) => {
      const gloss = cleanSense(part).toLowerCase();
      if (gloss.length >= 2 && LATIN.test(gloss)) out.push({ gloss, sense, place });
    });
  }
  return out;
}

function headwordKey(s: string): string {
  return tidy(s.toLowerCase());
}

/** The part of speech of a Greek–English entry (`<n>`, `<adj>`…), from its first line. */
function partOfSpeech(text: string): string {
  return /<([a-z]+)>/.exec(text.split('\n', 1)[0]!)?.[1] ?? '';
}

interface Reversed {
  greek: string;
  sense: number;
  place: number;
  noun: boolean;
}

/** Earlier sense, earlier in its line, nouns first (a question names things), then code point order. */
function byRank(a: Reversed, b: Reversed): number {
  return a.sense - b.sense || a.place - b.place || Number(b.noun) - Number(a.noun) || (a.greek < b.greek ? -1 : a.greek > b.greek ? 1 : 0);
}

/**
 * English headword → Greek alternatives, LEXICON_MAX_SENSES at most: first those both dictionaries give (the
 * English–Greek one lists `service` as ρουσφέτι before υπηρεσία), then the rest of the English–Greek
 * senses in its order, then the Greek headwords whose Greek–English entry glosses the word (which add
 * the adjectives and other forms the first lacks: σχολικός for `school`), best ranked first.
 */
export function buildLexicon(engEll: { headword: string; text: string }[], ellEng: { headword: string; text: string }[]): Map<string, string[]> {
  const direct = new Map<string, string[]>();
  for (const e of engEll) {
    const key = headwordKey(e.headword);
    direct.set(key, [...(direct.get(key) ?? []), ...englishGreekSenses(e.text)]);
  }
  const reversed = new Map<string, Reversed[]>();
  for (const e of ellEng) {
    const greek = tidy(e.headword);
    if (!GREEK.test(greek) || LATIN.test(greek)) continue;
    const noun = partOfSpeech(e.text) === 'n';
    for (const g of greekEnglishGlosses(e.text)) reversed.set(g.gloss, [...(reversed.get(g.gloss) ?? []), { greek, sense: g.sense, place: g.place, noun }]);
  }
  const lexicon = new Map<string, string[]>();
  for (const key of new Set([...direct.keys(), ...reversed.keys()])) {
    if (key.split(' ').length > LEXICON_MAX_WORDS || !LATIN.test(key) || key.includes('\t')) continue;
    const first = direct.get(key) ?? [];
    const ranked = (reversed.get(key) ?? []).sort(byRank).map((r) => r.greek);
    const both = ranked.filter((g) => first.includes(g));
    const senses = [...new Set([...both, ...first, ...ranked])].slice(0, LEXICON_MAX_SENSES);
    if (senses.length > 0) lexicon.set(key, senses);
  }
  return lexicon;
}

export function lexiconTsv(lexicon: Map<string, string[]>): string {
  const keys = [...lexicon.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return [...keys.map((k) => [k, ...lexicon.get(k)!].join('\t')), ''].join('\n');
}

function main(): void {
  const { values } = parseArgs({
    options: {
      cpv: { type: 'string' },
      'eng-ell': { type: 'string' },
      'ell-eng': { type: 'string' },
      out: { type: 'string', default: path.join(path.dirname(fileURLToPath(import.meta.url)), 'vocabulary') },
    },
  });
  if (!values.cpv || !values['eng-ell'] || !values['ell-eng']) {
    process.stderr.write(
      'Usage: node --import tsx data/vocabulary.ts --cpv cpv.gc --eng-ell PREFIX --ell-eng PREFIX [--out DIR] (scripts/vocabulary.sh runs it)\n',
    );
    process.exit(2);
  }
  const rows = cpvRows(fs.readFileSync(values.cpv, 'utf8'));
  const lexicon = buildLexicon(dictdEntries(values['eng-ell']), dictdEntries(values['ell-eng']));
  fs.mkdirSync(values.out, { recursive: true });
  fs.writeFileSync(path.join(values.out, 'cpv.tsv'), cpvTsv(rows));
  fs.writeFileSync(path.join(values.out, 'lexicon-en-el.tsv'), lexiconTsv(lexicon));
  process.stderr.write(`${rows.length} CPV codes, ${lexicon.size} English headwords written to ${values.out}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
