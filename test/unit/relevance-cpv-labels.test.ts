// The CPV label table the relevance benchmark learns from TED notices (bench/relevance/cpv-labels.ts),
// on the real TED fixture of ../shared/fixtures.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { englishLabels, learnCpvLabels } from '../../bench/relevance/cpv-labels.js';
import type { NormalizedDocument } from '../../index-mappings/document.js';
import { ted } from '../../ingest/sources/ted/index.js';
import { FIXTURES, skipWithoutFixtures } from '../helpers/paths.js';

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
});
