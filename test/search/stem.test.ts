// The stemmers the embedded engine indexes and queries with (lib/stem.ts): known words of each language
// reduced to the stems Elasticsearch's Greek and English analysis give them.
import t from 'tap';
import { tokens } from '../../lib/greek.js';
import { stem } from '../../lib/stem.js';

const stems = (text: string) => tokens(text).map(stem);

t.test('when Greek words differ only by inflection, then they share one stem', async (t) => {
  t.same(stems('σύμβαση συμβάσεις συμβάσεων σύμβασης'), ['συμβασ', 'συμβασ', 'συμβασ', 'συμβασ']);
  t.same(stems('δήμος δήμου δήμων'), ['δημ', 'δημ', 'δημ']);
  t.same(stems('προμήθεια προμήθειας'), ['προμηθ', 'προμηθ']);
  t.same(stems('υπηρεσίες υπηρεσιών'), ['υπηρεσ', 'υπηρεσ']);
  t.same(stems('Θεσσαλονίκη Θεσσαλονίκης'), ['θεσσαλονικ', 'θεσσαλονικ']);
  t.same(stems('έργο έργα έργων'), ['εργ', 'εργ', 'εργ']);
});

t.test('when English words differ by plural or suffix, then Porter gives them one stem', async (t) => {
  t.same(stems('contract contracts contracting'), ['contract', 'contract', 'contract']);
  t.same(stems('supply supplies'), ['suppli', 'suppli']);
  t.same(stems('services'), ['servic']);
});

t.test('when a word mixes scripts, has digits or is short, then it stays as it is', async (t) => {
  t.same(['covid19', 'ν4412', 'οτεnet', '2024', 'ο', 'η', 'αε'].map(stem), ['covid19', 'ν4412', 'οτεnet', '2024', 'ο', 'η', 'αε']);
});

t.test('when a word is stemmed twice, then the cached answer equals the first', async (t) => {
  t.equal(stem('αποφάσεις'.normalize('NFD').replace(/\p{M}/gu, '').replace(/ς/g, 'σ')), stem('αποφασεισ'));
  t.equal(stem('αποφασεισ'), 'αποφασ');
});
