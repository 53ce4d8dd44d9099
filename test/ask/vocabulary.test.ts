// The committed vocabulary (data/vocabulary/) as lib/vocabulary/ reads it, and how data/vocabulary.ts
// reads FreeDict's entries (samples in the dictionaries' own form).
import fs from 'node:fs';
import t from 'tap';
import { cpvEntries, cpvLabel, normalizeCpv } from '../../lib/vocabulary/cpv.js';
import { LEXICON_FILE, LEXICON_MAX_SENSES, LEXICON_MAX_WORDS, lookup } from '../../lib/vocabulary/lexicon.js';
import { buildLexicon, englishGreekSenses, greekEnglishGlosses } from '../../data/vocabulary.js';

t.test('when the CPV table is read, then every code of CPV 2008 has its parent and its English and Greek labels', async (t) => {
  t.same(cpvLabel('50232100'), {
    code: '50232100',
    parent: '50232000',
    en: 'Street-lighting maintenance services',
    el: 'Συντήρηση εγκαταστάσεων δημόσιου φωτισμού',
  });
  t.same(cpvLabel('90620000'), { code: '90620000', parent: '90600000', en: 'Snow-clearing services', el: 'Υπηρεσίες εκχιονισμού' });
  t.same(cpvLabel('33192120'), { code: '33192120', parent: '33192100', en: 'Hospital beds', el: 'Νοσοκομειακές κλίνες' });
  t.equal(cpvLabel('50232100-0')?.en, 'Street-lighting maintenance services', 'a code with its check digit, as KIMDIS writes it');
  t.equal(cpvLabel('03000000')?.parent, null, 'a division has no parent');
  t.equal(cpvLabel('99999999'), undefined);
  t.equal(cpvLabel('5023210'), undefined);

  const all = [...cpvEntries()];
  t.equal(all.length, 9454, 'all of CPV 2008');
  t.ok(
    all.every((e, i) => i === 0 || all[i - 1]!.code < e.code),
    'in code order',
  );
  const codes = new Set(all.map((e) => e.code));
  t.same(
    all.filter((e) => e.parent !== null && !codes.has(e.parent)),
    [],
    'every parent is a code of the table',
  );
  t.equal(all.filter((e) => e.parent === null).length, 45, 'the 45 divisions are the roots');
  t.ok(
    all.every((e) => /[α-ω]/i.test(e.el) && /[a-z]/i.test(e.en)),
    'each with a Greek and an English label',
  );
  t.equal(normalizeCpv(' 48510000-6 '), '48510000');
  t.equal(normalizeCpv('4851000'), null);
});

t.test('when the lexicon is asked an English word, then it answers its Greek translations, best first', async (t) => {
  const school = lookup('school');
  t.ok(school.includes('σχολείο') && school.includes('σχολικός'), `school: ${school}`);
  t.equal(school[0], 'σχολείο', 'the noun both dictionaries give first');
  t.ok(lookup('maintenance').includes('συντήρηση'));
  t.ok(lookup('extinguisher').includes('πυροσβεστήρας'));
  t.ok(lookup('fire extinguisher').includes('πυροσβεστήρας'), 'a phrase');
  t.same(lookup('School'), school, 'case does not matter');
  t.same(lookup('schools'), school, 'a plural the lexicon lacks is looked up as its singular');
  t.ok(lookup('municipalities').includes('δήμος'), '-ies → -y');
  t.same(lookup('zzzz'), []);
  const lines = fs.readFileSync(LEXICON_FILE, 'utf8').trimEnd().split('\n');
  t.ok(lines.length > 40_000, `${lines.length} headwords`);
  t.same(
    lines.filter((l) => {
      const [english, ...greek] = l.split('\t');
      return english !== english!.toLowerCase() || english!.split(' ').length > LEXICON_MAX_WORDS || greek.length < 1 || greek.length > LEXICON_MAX_SENSES;
    }),
    [],
    'each a lower-case headword of at most three words with one to eight translations',
  );
  t.equal(lookup('service')[0], 'υπηρεσία', 'not ρουσφέτι, which the English–Greek dictionary lists first');
});

t.test(
  'when FreeDict entries are read, then senses lose their parentheticals and notes, and the Greek–English one adds the forms the other lacks',
  async (t) => {
    t.same(englishGreekSenses('act /ˈakt/\n\nπράξη, παίζω  (από ηθοποιό), επενεργώ, ενεργώ\n'), ['πράξη', 'παίζω', 'επενεργώ', 'ενεργώ']);
    t.same(englishGreekSenses('pence /pˈɛns/\n\n100 = 1 λίρα\n'), [], 'not a translation');
    t.same(
      greekEnglishGlosses('άτομο /ˈa.to.mo/ <n>\n1. atom\nάτομο (φυσικές επιστήμες), λογική\n2. individual\nπρόσωπο\n'),
      [
        { gloss: 'atom', sense: 1, place: 0 },
        { gloss: 'individual', sense: 2, place: 0 },
      ],
      'numbered senses; the Greek lines are notes',
    );
    t.same(greekEnglishGlosses("ιδίοις όμμασι /iðˈiis ˈomasˌi/\nl=with one's own eyes\n"), [{ gloss: "with one's own eyes", sense: 1, place: 0 }]);
    const lexicon = buildLexicon(
      [{ headword: 'school', text: 'school /skˈuːl/\n\nσχολείο\n' }],
      [
        { headword: 'σχολικός', text: 'σχολικός /sxo.liˈkos/ <adj>\nschool, scholastic\n' },
        { headword: 'σχολείο', text: 'σχολείο /sxoˈli.o/ <n>\nschool\n' },
      ],
    );
    t.same(Object.fromEntries(lexicon), { school: ['σχολείο', 'σχολικός'], scholastic: ['σχολικός'] });
  },
);
