// Parties are fields: every real record that names a party comes out with `parties` filled, its
// content's party lines rendered from them, and a tender count where the format states one.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import type { NormalizedDocument } from '../../index-mappings/document.js';
import { partyLines } from '../../ingest/sources/parties.js';
import { SOURCE_MODULES } from '../../ingest/sources/index.js';
import type { SourceName } from '../../index-mappings/sources.js';
import { factsOf } from '../../lib/reports/facts.js';
import { assessIndicators } from '../../lib/reports/indicators.js';
import { FIXTURES, skipWithoutFixtures } from '../helpers/paths.js';

skipWithoutFixtures();

/** Every record of a source's fixtures that normalizes (directories and version logs are not records). */
function documents(source: SourceName): { file: string; doc: NormalizedDocument }[] {
  const module = SOURCE_MODULES[source];
  const out: { file: string; doc: NormalizedDocument }[] = [];
  for (const file of fs.readdirSync(path.join(FIXTURES, source)).sort()) {
    const body = fs.readFileSync(path.join(FIXTURES, source, file), 'utf8');
    let records;
    try {
      records = module.parse(body, file.endsWith('.xml') ? 'application/xml' : 'application/json');
    } catch {
      continue;
    }
    for (const r of records) {
      try {
        out.push({ file, doc: module.normalize(r.record) });
      } catch {
        // A record the normalizer refuses names nobody.
      }
    }
  }
  return out;
}

for (const source of ['diavgeia', 'kimdis', 'ted'] as const) {
  t.test(`when the real ${source} records are normalized, then every one that names a party has it in parties, rendered into its content`, async (t) => {
    const docs = documents(source);
    t.ok(docs.length > 0, 'the fixtures hold records');
    let named = 0;
    for (const { file, doc } of docs) {
      const label = `${file} ${doc.source_id}`;
      for (const name of doc.entities.names)
        t.ok(
          doc.parties.some((p) => p.name === name),
          `${label}: ${name} is a party`,
        );
      for (const p of doc.parties) {
        if (p.afm !== null) t.ok(doc.entities.afm.includes(p.afm), `${label}: the party's ΑΦΜ is an entity`);
      }
      const lines = doc.content.split('\n');
      // TED's content is labelled in English whatever the notice's language, the Greek sources' in Greek.
      for (const line of partyLines(doc.parties, source === 'ted' ? 'en' : 'el')) t.ok(lines.includes(line), `${label}: ${line}`);
      if (doc.parties.length > 0) named++;
    }
    t.ok(named > 0, 'some records name parties');
  });
}

t.test('when the real KIMDIS contracts are normalized, then buyer and contractor have their roles and the stated bids their count', async (t) => {
  const docs = documents('kimdis')
    .filter((d) => d.file === 'contract_content_items.json')
    .map((d) => d.doc);
  for (const doc of docs) {
    t.equal(doc.parties.filter((p) => p.role === 'buyer').length, 1, `${doc.source_id}: one buyer`);
    t.ok(
      doc.parties.some((p) => p.role === 'supplier'),
      `${doc.source_id}: a contractor`,
    );
    t.ok(doc.procedure_type, `${doc.source_id}: the procedure`);
  }
  t.same(
    docs.map((d) => d.tenders_received),
    [5, null, null, null],
    'bidsSubmitted where stated',
  );
});

t.test('when an eForms award states a lot with one tender, then single_bidder is assessed and flagged; without a count, not assessable', async (t) => {
  const [maximal] = documents('ted')
    .filter((d) => d.file === 'eforms_sdk_can_24_maximal.xml')
    .map((d) => d.doc);
  const entity = { identifier: 'x', type: 'name' as const };
  const stored = (doc: NormalizedDocument) => factsOf({ ...doc, indexed_at: '2026-01-01T00:00:00Z', content_hash: '', original: null });
  t.equal(maximal!.tenders_received, 1);
  const flagged = assessIndicators([stored(maximal!)], entity, 'en').find((i) => i.id === 'single_bidder')!;
  t.equal(flagged.status, 'flagged');
  t.same(flagged.evidence, [maximal!.source_id]);
  const [award] = documents('diavgeia')
    .filter((d) => d.file === 'decision_d1_award.json')
    .map((d) => d.doc);
  t.equal(assessIndicators([stored(award!)], entity, 'en').find((i) => i.id === 'single_bidder')!.status, 'not_assessable', 'Diavgeia states no count');
});
