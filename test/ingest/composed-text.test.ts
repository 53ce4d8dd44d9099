import t from 'tap';
import { contentHash } from '../../ingest/stages/hash.js';
import { composedText } from '../../ingest/sources/text.js';
import { makeDoc } from '../helpers/elasticsearch.js';

t.test('when a document is already in Greek letters and NFC, then composedText returns it as it is, so pdi reindex keeps its stored hash', async (t) => {
  const doc = makeDoc('kimdis', 'k1', {
    title: 'Σύμβαση οδοποιίας',
    content: 'Περιφέρεια Ανατολικής Μακεδονίας',
    summary: 'ZTEX, COVID',
    entities: { afm: [], ada: [], names: ['ΒΟΥΓΙΟΥΚΛΗ Α.Ε.'] },
    region: 'Ανατολική Μακεδονία, Θράκη',
    sector: null,
  });
  t.equal(composedText(doc), doc);
});

t.test('when one name carries a Latin letter drawn like a Greek one, then only that name changes, and so does the hash', async (t) => {
  const doc = makeDoc('kimdis', 'k1', { content: 'Σύμβαση', entities: { afm: [], ada: [], names: ['Δήμος Αθηναίων', 'ΔHΜOΣ ΚAΒAΛAΣ'] } });
  const composed = composedText(doc);
  t.not(composed, doc);
  t.same(composed.entities.names, ['Δήμος Αθηναίων', 'ΔΗΜΟΣ ΚΑΒΑΛΑΣ']);
  t.same({ ...composed, entities: doc.entities }, doc, 'nothing else changed');
  t.not(contentHash(composed), contentHash(doc));
});

t.test('when a region spells its accent as a combining mark, then it is composed', async (t) => {
  const doc = makeDoc('kimdis', 'k1', { region: 'Κρη\u0301τη' });
  t.equal(composedText(doc).region, 'Κρήτη');
});
