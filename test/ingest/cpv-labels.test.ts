// The CPV labels a document is searched by (ingest/stages/cpv-labels.ts): the official vocabulary's,
// and for a code it lacks, the label learned from TED notices (ingest/sources/ted/cpv-labels.ts) as the
// document store keeps it (ingest/state/cpv-labels.ts); on the real TED fixture of ../shared/fixtures.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { NormalizedDocument } from '../../index-mappings/document.js';
import { LABEL_MAX_LENGTH, learnCpvLabels, noticeCpvVote } from '../../ingest/sources/ted/cpv-labels.js';
import { ted } from '../../ingest/sources/ted/index.js';
import { nameKey } from '../../lib/names.js';
import { withCpvLabels } from '../../ingest/stages/cpv-labels.js';
import { contentHash } from '../../ingest/stages/hash.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { makeDoc } from '../helpers/elasticsearch.js';
import { FIXTURES, skipWithoutFixtures } from '../helpers/paths.js';

skipWithoutFixtures();

const notices = ted.parse(readFileSync(path.join(FIXTURES, 'ted', 'search_v3_response_trimmed.json'), 'utf8')).map((r) => ted.normalize(r.record));

/** A code no CPV 2008 label has: only a learned label can serve it. */
const UNOFFICIAL = '99999990';

/** A notice of `buyer` whose titles give `code` the label `el` / `en`. */
function notice(id: string, buyer: string, code: string, el: string, en: string): NormalizedDocument {
  return {
    ...notices[0]!,
    source_id: `ted:${id}`,
    cpv: [code],
    parties: [{ role: 'buyer', name: buyer, afm: null }],
    title: `Ελλάδα – ${el} – Χ`,
    content: `Ελλάδα – ${el} – Χ\nTitle (English): Greece – ${en} – X`,
  };
}

function openStore(t: Test): DocumentStore {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pdi-cpv-'));
  const store = new DocumentStore(DocumentStore.pathIn(dir));
  t.teardown(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

const record = (doc: NormalizedDocument) => ({ doc, content_hash: contentHash(doc), original: null, indexed_at: '2026-01-01T00:00:00Z' });

t.test('when a TED notice is read, then it votes for its main code the label of its Greek and English titles, with its first buyer', async (t) => {
  t.strictSame(notices.map(noticeCpvVote), [
    {
      code: '48510000',
      label: { el: 'Πακέτα λογισμικού επικοινωνίας', en: 'Communication software package' },
      buyer: nameKey('Upphandlingscenter Falun Borlänge-regionen'),
    },
    {
      code: '72222300',
      label: { el: 'Υπηρεσίες τεχνολογίας των πληροφοριών', en: 'Information technology services' },
      buyer: nameKey('Stadsledningskontoret'),
    },
  ]);
  t.strictSame(Object.fromEntries(learnCpvLabels(notices)), {}, 'one notice a code, from one buyer: nothing is learned');
});

t.test('when labels are learned, then a label needs two buyers, has a length cap, and a tie keeps the label there is', async (t) => {
  const a = (id: string, buyer: string) => notice(id, buyer, UNOFFICIAL, 'Εξοπλισμός οδικού φωτισμού', 'Street-lighting equipment');
  const planted = (id: string, buyer: string) => notice(id, buyer, UNOFFICIAL, 'AAA', 'Free money');
  t.strictSame(Object.fromEntries(learnCpvLabels([planted('1', 'Δήμος Α')])), {}, 'one crafted notice sets nothing');
  t.strictSame(Object.fromEntries(learnCpvLabels([planted('1', 'Δήμος Α'), planted('2', 'ΔΗΜΟΣ Α.')])), {}, 'nor two of one buyer, however spelt');
  t.strictSame(learnCpvLabels([a('1', 'Δήμος Α'), a('2', 'Δήμος Β')]).get(UNOFFICIAL), { el: 'Εξοπλισμός οδικού φωτισμού', en: 'Street-lighting equipment' });
  const long = 'Λ'.repeat(LABEL_MAX_LENGTH + 1);
  t.equal(noticeCpvVote(notice('3', 'Δήμος Γ', UNOFFICIAL, long, 'Long')), null, 'a label past the cap is no vote');
  t.strictSame(
    learnCpvLabels([a('1', 'Δήμος Α'), a('2', 'Δήμος Β'), planted('3', 'Δήμος Γ'), planted('4', 'Δήμος Δ')]).get(UNOFFICIAL)?.en,
    'Street-lighting equipment',
    'learned at once, a tie goes to the label in Greek letters, not to the one ASCII sorts first',
  );

  const store = openStore(t);
  store.save([a('1', 'Δήμος Α'), planted('3', 'Δήμος Γ')].map(record));
  t.equal(store.learnedCpvLabel(UNOFFICIAL), undefined, 'one buyer each: no label');
  store.save([a('2', 'Δήμος Β')].map(record));
  t.equal(store.learnedCpvLabel(UNOFFICIAL)?.en, 'Street-lighting equipment', 'a second buyer sets it');
  store.save([planted('4', 'Δήμος Δ')].map(record));
  t.equal(store.learnedCpvLabel(UNOFFICIAL)?.en, 'Street-lighting equipment', 'a tie keeps the label there is');
  store.relearnCpvLabels();
  t.equal(store.learnedCpvLabel(UNOFFICIAL)?.en, 'Street-lighting equipment', 'counted again from the stored notices, too');
  store.save([planted('5', 'Δήμος Ε')].map(record));
  t.equal(store.learnedCpvLabel(UNOFFICIAL)?.en, 'Free money', 'more buyers win');
  // Every notice of the winning label retitled: their votes move, and a code without a label with two buyers has none.
  store.save([3, 4, 5].map((i) => notice(String(i), `Δήμος ${i}`, '99999991', 'Άλλο', 'Other')).map(record));
  t.equal(store.learnedCpvLabel(UNOFFICIAL)?.en, 'Street-lighting equipment');
  t.equal(store.learnedCpvLabel('99999991')?.en, 'Other');
  store.save([1, 2].map((i) => notice(String(i), `Δήμος ${i}`, '99999991', 'Άλλο', 'Other')).map(record));
  t.equal(store.learnedCpvLabel(UNOFFICIAL), undefined, 'no votes left');
  t.equal(store.db.prepare('SELECT count(*) FROM cpv_votes').pluck().get(), 5, 'one vote a notice');
});

t.test(
  'when a document carries CPV codes, then it is searched by their official English and Greek labels, a learned one only where CPV 2008 has none',
  async (t) => {
    const learned = (code: string) => ({ el: `Μαθημένο ${code}`, en: `Learned ${code}` });
    const diavgeia = makeDoc('diavgeia', 'Α1', { title: 'Ανάθεση εργασιών', content: 'CPV: 50232100, 90620000', cpv: ['50232100', '90620000', UNOFFICIAL] });
    const done = withCpvLabels(diavgeia, learned);
    t.strictSame(
      done.cpv_labels_en,
      ['Street-lighting maintenance services', 'Snow-clearing services', `Learned ${UNOFFICIAL}`],
      'the official label wins over a learned one',
    );
    t.strictSame(done.cpv_labels_el, ['Συντήρηση εγκαταστάσεων δημόσιου φωτισμού', 'Υπηρεσίες εκχιονισμού', `Μαθημένο ${UNOFFICIAL}`]);
    t.strictSame(withCpvLabels(done, () => undefined).cpv_labels_en?.length, 2, 'labelled again from the codes, not added to');

    const kimdis = makeDoc('kimdis', 'Κ1', {
      title: 'Εκχιονισμός οδών',
      content: 'Αντικείμενο: Εκχιονισμός (CPV 90620000-9 Υπηρεσίες εκχιονισμού)',
      cpv: ['90620000'],
    });
    const k = withCpvLabels(kimdis, learned);
    t.strictSame(k.cpv_labels_en, ['Snow-clearing services']);
    t.notOk('cpv_labels_el' in k, 'a label its content already holds is not written twice');
    const bare = withCpvLabels(makeDoc('rae', 'R1'), learned);
    t.notOk('cpv_labels_en' in bare || 'cpv_labels_el' in bare, 'no codes, no labels');
  },
);
