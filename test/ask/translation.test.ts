// English questions turned into Greek by vocabulary (lib/translation): CPV phrases, the lexicon, the
// concepts a document is judged by, and what a search takes.
import t from 'tap';
import { cpvCodesIn } from '../../lib/semantic/named.js';
import { coverage, documentStems, questionConcepts, searchAlternatives } from '../../lib/translation/concepts.js';
import { englishWords } from '../../lib/translation/cpv-phrases.js';
import { greekRendering, translateQuestion } from '../../lib/translation/translate.js';
import { makeDoc } from '../helpers/elasticsearch.js';

const groups = (q: string) => translateQuestion(q).groups.map((g) => ({ english: g.english, greek: g.greek, from: g.from }));

t.test('when an English phrase is an official CPV label, then its Greek label stands for it, the longest phrase first', async (t) => {
  t.same(groups('street lighting maintenance'), [
    { english: 'street lighting maintenance', greek: ['Συντήρηση εγκαταστάσεων δημόσιου φωτισμού'], from: 'cpv' },
  ]);
  t.match(groups('snow clearing services'), [{ english: 'snow clearing services', greek: ['Υπηρεσίες εκχιονισμού'] }], 'a kind word inside the phrase');
  t.match(groups('hospital beds for Patras'), [{ english: 'hospital beds', greek: ['Υπηρεσίες παροχής σεντονίων', 'Νοσοκομειακές κλίνες'] }]);
  t.match(groups('lifts'), [{ english: 'lifts', greek: ['Ανελκυστήρες'] }], 'a plural meets its label by its stem');
});

t.test("when a phrase's label is another word than the documents use, then the lexicon's senses stand beside it", async (t) => {
  const [fire] = groups('fire extinguisher servicing');
  t.ok(fire!.greek.includes('Πυροκατασβεστήρες') && fire!.greek.includes('πυροσβεστήρας'), fire!.greek.join(' | '));
  const [square] = groups('the central square').slice(-1);
  t.ok(square!.greek.includes('πλατεία'), 'the square of a town, beside "Squares", the instruments');
});

t.test('when a word names no CPV phrase, then the lexicon gives its senses, one group per word', async (t) => {
  const out = groups('mosquito spraying in schools');
  t.match(out[0], { english: 'mosquito', greek: ['κουνούπι'], from: 'lexicon' });
  t.ok(out.some((g) => g.greek.includes('σχολείο')));
  t.ok(
    out.every((g) => g.greek.length <= 8),
    'at most the senses kept',
  );
});

t.test('when a question is Greek, or a word is an acronym or unknown, then nothing is translated for it', async (t) => {
  t.same(groups('συντήρηση ανελκυστήρων'), []);
  t.same(
    englishWords('LED lamps').map((w) => w.word),
    ['lamps'],
    'LED is searched as written, not as the verb led',
  );
  t.same(groups('xyzzyplugh'), []);
});

t.test('when a translation is rendered, then each concept gives its first Greek form', async (t) => {
  t.equal(greekRendering(translateQuestion('lift maintenance')), 'Υπηρεσίες συντήρησης ανελκυστήρων');
});

t.test('when a document holds a concept in any of its forms, then it covers it; one that holds none covers nothing', async (t) => {
  const question = 'lift maintenance';
  const concepts = questionConcepts(question, translateQuestion(question));
  const lifts = makeDoc('kimdis', '1', { title: 'ΣΥΝΤΗΡΗΣΗ ΑΝΕΛΚΥΣΤΗΡΩΝ ΔΗΜΑΡΧΕΙΟΥ', content: '' });
  const cleaning = makeDoc('kimdis', '2', { title: 'Υπηρεσίες καθαρισμού κτιρίων', content: '' });
  t.equal(coverage(concepts, documentStems(lifts)), 1, 'its Greek label held, kind word aside');
  t.equal(coverage(concepts, documentStems(cleaning)), 0, '`Υπηρεσίες` alone holds nothing of it');
  const greek = questionConcepts('καθαρισμός σχολείων', translateQuestion('καθαρισμός σχολείων'));
  t.equal(greek.length, 2, 'a Greek question: one concept per word');
});

t.test('when a search takes a translation, then each group is its alternatives as words to hold, kind words left out', async (t) => {
  t.same(searchAlternatives(translateQuestion('lift maintenance')), [['συντηρησησ ανελκυστηρων']]);
  t.same(searchAlternatives(translateQuestion('ανελκυστήρες')), [], 'nothing for Greek');
});

t.test('when a question names a CPV code, then it is read with or without its check digit, and only a code CPV 2008 has', async (t) => {
  t.same(cpvCodesIn('contracts under 50232100-0 and 30192000, not 12345678 or 123456789'), ['50232100', '30192000']);
});
