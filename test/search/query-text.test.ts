// The one reader of the user's query text (lib/search/query-text.ts), and both engines rendering it.
import t from 'tap';
import { queryChunks } from '../../lib/search/elasticsearch.js';
import { parseQuery } from '../../lib/search/embedded/text.js';
import { readQuery } from '../../lib/search/query-text.js';

t.test('when text holds words, a phrase and a prefix, then each is a part, folded', async (t) => {
  t.same(readQuery('Συμβάσεις "Οδικού  Δικτύου" προμηθ*'), [
    { kind: 'word', text: 'συμβασεισ', tokens: ['συμβασεισ'] },
    { kind: 'phrase', text: 'οδικου δικτυου', tokens: ['οδικου', 'δικτυου'] },
    { kind: 'prefix', text: 'προμηθ', tokens: ['προμηθ'] },
  ]);
});

t.test('when a prefix has punctuation in it, then its last word is the prefix and the others are words', async (t) => {
  t.same(readQuery('ν.4412*'), [
    { kind: 'word', text: 'ν', tokens: ['ν'] },
    { kind: 'prefix', text: '4412', tokens: ['4412'] },
  ]);
});

t.test('when a star follows a short stem or no letter, then the word is plain', async (t) => {
  t.same(readQuery('σ* ab-*'), [
    { kind: 'word', text: 'σ', tokens: ['σ'] },
    { kind: 'word', text: 'ab-', tokens: ['ab'] },
  ]);
});

t.test('when text has no letter or digit, stray quotes, emoji or repeats, then those give no part', async (t) => {
  t.same(readQuery('– 🙂 ""'), []);
  t.same(readQuery('a"b'), [
    { kind: 'word', text: 'a', tokens: ['a'] },
    { kind: 'word', text: 'b', tokens: ['b'] },
  ]);
  t.same(readQuery('road\u200droad Road'), [{ kind: 'word', text: 'road', tokens: ['road'] }], 'a joiner separates; a repeat is read once');
});

t.test('when a text longer than 4,096 characters comes, then only its start is read', async (t) => {
  t.equal(readQuery(`${'α '.repeat(2048)}ωμέγα`).length, 1);
});

t.test('when both engines render one text, then they hold the same words, phrases and prefixes', async (t) => {
  const text = 'Απόφαση "οδικού δικτύου" ν.4412* title:x';
  t.same(queryChunks(text), ['αποφαση', '"οδικου δικτυου"', 'ν', '4412*', 'title:x']);
  t.same(parseQuery(text), [
    { kind: 'term', token: 'αποφαση' },
    { kind: 'phrase', tokens: ['οδικου', 'δικτυου'] },
    { kind: 'term', token: 'ν' },
    { kind: 'prefix', token: '4412' },
    { kind: 'term', token: 'title' },
    { kind: 'term', token: 'x' },
  ]);
});
