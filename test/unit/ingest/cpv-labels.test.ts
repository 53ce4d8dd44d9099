// The CPV label table learned from TED notices (ingest/sources/ted/cpv-labels.ts), as the document
// store keeps it (ingest/state/cpv-labels.ts), on the real TED fixture of ../shared/fixtures.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { contentHash } from '../../../ingest/stages/hash.js';
import { DocumentStore } from '../../../ingest/state/documents.js';
import { englishLabels, learnCpvLabels } from '../../../ingest/sources/ted/cpv-labels.js';
import type { NormalizedDocument } from '../../../index-mappings/document.js';
import { ted } from '../../../ingest/sources/ted/index.js';
import { FIXTURES, skipWithoutFixtures } from '../../helpers/paths.js';

skipWithoutFixtures();

const notices = ted.parse(readFileSync(path.join(FIXTURES, 'ted', 'search_v3_response_trimmed.json'), 'utf8')).map((r) => ted.normalize(r.record));

t.test('when TED notices are read, then each main CPV code gets the Greek and English label of their titles', async (t) => {
  const table = learnCpvLabels(notices);
  t.strictSame(Object.fromEntries(table), {
    48510000: { el: 'Πακέτα λογισμικού επικοινωνίας', en: 'Communication software package' },
    72222300: { el: 'Υπηρεσίες τεχνολογίας των πληροφοριών', en: 'Information technology services' },
  });
});

t.test('when most notices of a code agree on its label, then the label is theirs; documents of other sources are not read', async (t) => {
  const notice = (cpv: string, el: string, en: string): NormalizedDocument => ({
    ...notices[0]!,
    cpv: [cpv],
    title: `Ελλάδα – ${el} – Χ`,
    content: `Ελλάδα – ${el} – Χ\nTitle (English): Greece – ${en} – Χ`,
  });
  const kimdis = {
    ...notices[0]!,
    source: 'kimdis',
    cpv: ['34928500'],
    title: 'Α – Β – Γ',
    content: 'Α – Β – Γ\nTitle (English): A – B – C',
  } as NormalizedDocument;
  const table = learnCpvLabels([
    notice('34928500', 'Εξοπλισμός οδικού φωτισμού', 'Street-lighting equipment'),
    notice('34928500', 'Φωτισμός', 'Lighting'),
    notice('34928500', 'Εξοπλισμός οδικού φωτισμού', 'Street-lighting equipment'),
    kimdis,
  ]);
  t.strictSame(table.get('34928500'), { el: 'Εξοπλισμός οδικού φωτισμού', en: 'Street-lighting equipment' });
  t.strictSame(englishLabels({ cpv: ['34928500', '99999999', '34928500'] }, table), ['Street-lighting equipment']);
  const tie = learnCpvLabels([notice('31527200', 'Φωτιστικά', 'Lamps'), notice('31527200', 'Εξωτερικός φωτισμός', 'Outdoor lighting')]);
  t.strictSame(tie.get('31527200'), { el: 'Εξωτερικός φωτισμός', en: 'Outdoor lighting' }, 'on a tie, the first by code point, as the store');
});

t.test(
  'when the store saves TED notices, then its label table holds what they teach; an updated notice moves its vote, and relearning counts them again',
  async (t) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pdi-cpv-'));
    const store = new DocumentStore(DocumentStore.pathIn(dir));
    t.teardown(() => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const record = (doc: NormalizedDocument) => ({ doc, content_hash: contentHash(doc), original: null, indexed_at: '2026-01-01T00:00:00Z' });
    store.save(notices.map(record));
    t.strictSame(Object.fromEntries(store.cpvLabels()), Object.fromEntries(learnCpvLabels(notices)), 'as learned from the notices at once');
    t.strictSame(store.englishCpvLabels(['99999999', '72222300', '48510000', '72222300']), [
      'Information technology services',
      'Communication software package',
    ]);

    // Every notice of 48510000 now titled otherwise: their votes move, none is counted twice.
    const renamed = notices
      .filter((d) => d.cpv[0] === '48510000')
      .map((d) => ({
        ...d,
        title: 'Σουηδία – Λογισμικό – Χ',
        content: d.content.replace(/^Title \(English\): .*$/m, 'Title (English): Sweden – Software – X'),
      }));
    t.ok(renamed.length > 0);
    store.save(renamed.map(record));
    t.strictSame(store.cpvLabels().get('48510000'), { el: 'Λογισμικό', en: 'Software' });
    const votes = store.db.prepare("SELECT sum(votes) FROM cpv_labels WHERE code = '48510000'").pluck().get();
    t.equal(votes, renamed.length, 'one vote a notice');

    store.db.exec('DELETE FROM cpv_label_votes; DELETE FROM cpv_labels;');
    t.equal(store.cpvLabels().size, 0);
    store.relearnCpvLabels();
    t.strictSame(store.cpvLabels().get('48510000'), { el: 'Λογισμικό', en: 'Software' }, 'relearned from the stored notices');
    t.strictSame(store.cpvLabels().get('72222300'), learnCpvLabels(notices).get('72222300'));
  },
);
