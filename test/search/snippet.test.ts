// Snippets (lib/search/snippet.ts): the stored text they are cut from, the words they read, and the
// shortcut that passes most words over unread, held to what the whole matcher would say.
import t from 'tap';
import { fold } from '../../lib/greek.js';
import { toLatin } from '../../lib/names.js';
import { queryMatcher, SNIPPET_TEXT_CHARS, snippetOf, snippetText, wordSpans } from '../../lib/search/snippet.js';
import { SOURCE_NAMES } from '../../index-mappings/sources.js';
import { SOURCE_MODULES } from '../../ingest/sources/index.js';
import { demoBodies } from '../helpers/demo-records.js';

const FILLER = 'Εισαγωγή κειμένου χωρίς σημασία για την αναζήτηση. ';

t.test('when a content is longer than the cap, then the stored text is its opening, collapsed, cut at a word and marked as cut', async (t) => {
  const content = `Η   απόφαση\n\nαφορά ${FILLER.repeat(40)}`;
  const text = snippetText(content);
  t.ok(text.length <= SNIPPET_TEXT_CHARS + 1, `at most the cap and the ellipsis (${text.length})`);
  t.match(text, /^Η απόφαση αφορά Εισαγωγή /, 'runs of white space are one space');
  t.match(text, /[^\s]…$/, 'ends with an ellipsis');
  t.ok(FILLER.includes(`${text.slice(0, -1).split(' ').pop()} `), 'after a whole word');
  t.equal(snippetText('Σύντομο   κείμενο. '), 'Σύντομο κείμενο.', 'a short content whole, with no ellipsis');
  t.equal(snippetText(''), '');
  t.equal(snippetText(`${'α'.repeat(SNIPPET_TEXT_CHARS + 50)} τέλος`), `${'α'.repeat(SNIPPET_TEXT_CHARS)}…`, 'a word longer than the cap is cut inside');
  t.equal(snippetText(`${' '.repeat(5 * SNIPPET_TEXT_CHARS)}λέξη`), '…', 'only white space before the cap reads: nothing, cut');
});

t.test('when the query matches Greek and Latin words of the stored text, then the snippet marks them', async (t) => {
  const text = snippetText('Η ΑΠΌΦΑΣΗ αφορά τη σύμβαση καθαριότητας του Δήμου Θεσσαλονίκης (cleaning contracts) & άλλα.');
  t.equal(
    snippetOf('Τίτλος', text, queryMatcher('συμβάσεις θεσσαλονικη')),
    'Η ΑΠΌΦΑΣΗ αφορά τη <mark>σύμβαση</mark> καθαριότητας του Δήμου <mark>Θεσσαλονίκης</mark> (cleaning contracts) &amp; άλλα.',
  );
  t.match(snippetOf('Τίτλος', text, queryMatcher('contract')), /\(cleaning <mark>contracts<\/mark>\)/, 'an English word by its stem');
  t.match(snippetOf('Τίτλος', text, queryMatcher('Thessaloniki')), /Δήμου <mark>Θεσσαλονίκης<\/mark>/, 'a Greek name by its Latin spelling');
  t.match(snippetOf('Τίτλος', text, queryMatcher('καθαρ*')), /<mark>καθαριότητας<\/mark>/, 'a prefix');
});

t.test('when the only matching word sits past the cap, then the snippet is the opening of the text, unmarked, or the title marked', async (t) => {
  const content = `${FILLER.repeat(40)}Στο τέλος αναφέρεται η σύμβαση προμήθειας.`;
  const text = snippetText(content);
  t.notOk(text.includes('σύμβαση'), 'the word is not in the stored text');
  const snippet = snippetOf('Πρόσκληση', text, queryMatcher('σύμβαση'));
  t.match(snippet, /^Εισαγωγή κειμένου χωρίς σημασία/, 'the opening');
  t.match(snippet, /…$/);
  t.notOk(snippet.includes('<mark>'));
  t.equal(snippetOf('Σύμβαση\nπρομήθειας', text, queryMatcher('σύμβαση')), '<mark>Σύμβαση</mark> προμήθειας', 'the title, when it has the word');
});

t.test('when a text holds every BMP character and astral ones, then its words are those of the word pattern', async (t) => {
  const units: string[] = [];
  for (let c = 0; c < 0x10000; c++) if (c < 0xd800 || c > 0xdfff) units.push(String.fromCharCode(c));
  // Each character between two letters, alone, and after a space; astral letters, an emoji, lone surrogates.
  const text = `${units.map((c) => `a${c}b ${c} `).join('')} 𝐀𝐁 x😀y \ud800 z\udc00z a\u0301b \u0301c`;
  const expected = [...text.matchAll(/[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu)].map((m) => [m.index, m.index + m[0].length]);
  t.same(wordSpans(text), expected);
});

t.test('when a word of the demo corpus matches a query of its words, then the first-letter shortcut lets it through', async (t) => {
  const words = new Set<string>();
  for (const source of SOURCE_NAMES) {
    for (const { docs } of demoBodies(source, SOURCE_MODULES[source])) {
      for (const doc of docs) for (const [start, end] of wordSpans(`${doc.title} ${doc.content}`)) words.add(`${doc.title} ${doc.content}`.slice(start, end));
    }
  }
  const all = [...words];
  t.ok(all.length > 5_000, `the corpus's words (${all.length})`);
  // As queries: words as written, their prefixes, and Greek words spelled in Latin letters.
  const queries = all.filter((_, i) => i % 211 === 0);
  const greek = all.filter((w) => /^[α-ω]+$/.test(fold(w)) && w.length > 4).filter((_, i) => i % 47 === 0);
  const asked = [...queries, ...queries.filter((w) => w.length > 3).map((w) => `${w.slice(0, 3)}*`), ...greek.map((w) => toLatin(w))];
  const matched = { all: 0, latin: 0 };
  const missed: string[] = [];
  for (const query of asked) {
    const match = queryMatcher(query);
    for (const word of all) {
      if (match(word) === null) continue;
      matched.all++;
      if (/^[a-z]+$/.test(query) && /^[α-ω]+$/.test(fold(word))) matched.latin++;
      if (!match.first(fold(word[0]).charCodeAt(0))) missed.push(`${query}: ${word}`);
    }
  }
  t.ok(matched.all > 1_000 && matched.latin > 40, `matches looked at (${matched.all}, ${matched.latin} of a Latin query, of ${asked.length} queries)`);
  t.same(missed, [], 'no word the matcher takes is passed over');
});
