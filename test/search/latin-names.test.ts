// Latin keys of Greek names (lib/search/latin-names.ts): the spellings a foreign user types meet the
// Greek words in their inflections.
import t from 'tap';
import { exonymOf, latinKeyOf, latinKeysOf, latinValues } from '../../lib/search/latin-names.js';

t.test('when a Greek place is written in ELOT 743 or informally, then its key is that of the Greek word in any case', async (t) => {
  const [greek] = latinKeysOf('Θεσσαλονίκη');
  t.equal(latinKeyOf('thessaloniki'), greek);
  t.same(latinKeysOf('Θεσσαλονίκης ΘΕΣΣΑΛΟΝΙΚΗ'), [greek, greek], 'genitive and capitals');
  t.equal(latinKeyOf('iraklion'), latinKeysOf('Ηρακλείου')[0]);
  t.equal(latinKeyOf('hania'), latinKeysOf('Χανιά')[0]);
  t.equal(latinKeyOf('chania'), latinKeysOf('Χανίων')[0]);
  t.equal(latinKeyOf('a8hnaiwn'), latinKeysOf('Αθηναίων')[0], 'Greeklish with 8 and w');
  t.same(['dimos', 'athinaion'].map(latinKeyOf), latinKeysOf('Δήμος Αθηναίων'));
});

t.test('when a word is English, too short or not Latin, then it has no key', async (t) => {
  t.equal(latinKeyOf('for'), null, 'a stop word');
  t.equal(latinKeyOf('ae'), null);
  t.equal(latinKeyOf('δημοσ'), null);
  t.equal(latinKeyOf('covid19'), null);
  t.same(latinKeysOf('Covid 19 ΑΕ'), [], 'only Greek words of 3 key letters or more');
});

t.test('when an English name of a Greek place is typed, then its Greek name is known', async (t) => {
  t.equal(exonymOf('athens'), 'αθηνα');
  t.equal(exonymOf('heraklion'), 'ηρακλειο');
  t.equal(exonymOf('london'), null);
});

t.test('when a document is written to Elasticsearch, then the title and each name give one value of keys', async (t) => {
  t.same(latinValues({ title: 'Δήμος Ρόδου', entities: { names: ['Οδοποιία ΑΕ', 'ACME Ltd'] } }), [
    latinKeysOf('Δήμος Ρόδου').join(' '),
    latinKeysOf('Οδοποιία').join(' '),
  ]);
});
