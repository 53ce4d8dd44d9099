// The embedded engine's reading of text (lib/search/embedded/text.ts): the user's query parsed into
// terms, phrases and prefixes and written as an FTS5 MATCH of quoted tokens only, and the tokenizer's
// fast path equal to its reference on every code point.
import t from 'tap';
import { LATIN_MARK, RAW_MARK, indexTokens, parseQuery, queryFor, referenceTokens, toMatch } from '../../lib/search/embedded/text.js';

t.test('when the user text is parsed, then only quotes and trailing stars are syntax', async (t) => {
  t.same(parseQuery('Απόφαση ΔΗΜΟΥ'), [
    { kind: 'term', token: 'αποφαση' },
    { kind: 'term', token: 'δημου' },
  ]);
  t.same(parseQuery('"οδικού  δικτύου" προμηθ*'), [
    { kind: 'phrase', tokens: ['οδικου', 'δικτυου'] },
    { kind: 'prefix', token: 'προμηθ' },
  ]);
  t.same(
    parseQuery('title:x AND (y OR -z)'),
    ['title', 'x', 'and', 'y', 'or', 'z'].map((token) => ({ kind: 'term', token })),
  );
  t.same(parseQuery('"unbalanced phrase'), [
    { kind: 'term', token: 'unbalanced' },
    { kind: 'term', token: 'phrase' },
  ]);
  t.same(
    parseQuery('a* *b ** x*y'),
    [
      { kind: 'term', token: 'a' },
      { kind: 'term', token: 'b' },
      { kind: 'term', token: 'x' },
      { kind: 'term', token: 'y' },
    ],
    'one-letter prefixes are plain terms; a star not ending a word is a separator',
  );
  t.same(parseQuery('same Same SAME'), [{ kind: 'term', token: 'same' }], 'duplicates collapse');
  t.same(parseQuery('"" 😀 ()'), []);
  t.equal(toMatch(parseQuery('"a b" cc* d'), 2), '"a b" "cc"* "d"');
  t.equal(
    toMatch(parseQuery('"contracts signed" δημ* Συμβάσεις'), 3),
    `"contract sign" AND ("δημ"* OR "${RAW_MARK}δημ"*) AND "συμβασ"`,
    'version 3: terms and phrases stemmed, a prefix on stems and unstemmed words',
  );
  t.equal(
    toMatch(parseQuery('"Dimos Rodou" Athens contracts'), 4),
    `("dimo rodou" OR "${LATIN_MARK}dim ${LATIN_MARK}rod") AND ("athen" OR "${LATIN_MARK}athens" OR "αθην") AND ("contract" OR "${LATIN_MARK}kodrakts")`,
    'version 4: a Latin word or phrase also meets the Latin keys of Greek names, and an English place name its Greek one',
  );
  t.equal(queryFor(parseQuery('contracts'), 3).single, 'contract', 'one plain term takes the common-term lists');
  t.equal(queryFor(parseQuery('contracts'), 4).single, null, 'not when it has alternatives');
  t.equal(queryFor(parseQuery('συμβάσεις'), 4).single, 'συμβασ');
  for (const text of ['"; DROP TABLE x; --', 'NEAR(a b, 3)', '{title}: x', 'a"b"c', '\\"', 'x* OR y*']) {
    t.notMatch(toMatch(parseQuery(text), 2), /[^"\p{L}\p{N} *]/u, `${text}: only quoted tokens`);
    // Outside the quotes, version 3 adds only AND, OR and parentheses around a prefix's two forms.
    for (const version of [3, 4]) {
      t.notMatch(
        toMatch(parseQuery(text), version)
          .replace(/"[^"]*"\*?/g, '')
          .replace(/\b(AND|OR)\b/g, ''),
        /[^ ()]/u,
        `${text}: v${version}, only quoted tokens`,
      );
    }
  }
});

t.test('when any text is tokenized, then the fast path equals fold() + letter/digit runs, on every BMP code point', async (t) => {
  let differing = 0;
  for (let start = 0; start < 0x10000; start += 256) {
    let text = '';
    for (let cp = start; cp < start + 256; cp++) text += String.fromCharCode(cp) + (cp % 7 ? '' : ' ') + (cp % 5 ? '' : 'Άλφα');
    if (JSON.stringify(indexTokens(text)) !== JSON.stringify(referenceTokens(text))) differing += 1;
  }
  t.equal(differing, 0, 'blocks of 256 code points that tokenize differently');
  const astral = '𝐀𝐁 x𝟙y 😀 𠀀𠀁 \u{1D400}\u0301Β \uD800x\uDC00 ΠΡΟΜΗΘΕΙΑ Προμήθεια προμήθειας';
  t.same(indexTokens(astral), referenceTokens(astral));
  t.same(indexTokens('ΠΡΟΜΗΘΕΙΑ Προμήθεια ΔΉΜΟΣ'), ['προμηθεια', 'προμηθεια', 'δημοσ']);
});
