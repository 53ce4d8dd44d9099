// English finds Greek through a learned CPV label, on both engines, through the real pipeline and the
// real TED and KIMDIS fixtures: ingesting TED teaches the store a code's English label, a KIMDIS
// document carrying the code is then found by an English search and question although its text is
// Greek, and `pdi reindex` learns the table again and gives the label to documents stored before it.
// The feed gives alert matching the document with its label, so an alert keyword meets it as search does.
import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { ingestSource, type PipelineDeps } from '../../ingest/pipeline.js';
import { reindex } from '../../ingest/reindex.js';
import { SOURCE_MODULES } from '../../ingest/sources/index.js';
import { createLogger } from '../../lib/logger.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { alertedBy } from '../helpers/alert-profile.js';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.js';
import { apiTestProvider } from '../helpers/elasticsearch.js';
import { FIXTURES, skipWithoutFixtures } from '../helpers/paths.js';

skipWithoutFixtures();

const template = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'kimdis/contract_page_anonymized_shape.json'), 'utf8'));
const item = template.content[0];

/** A KIMDIS contract of the fixture's shape, Greek only, with one object of `cpv` (code and Greek label). */
function contract(ref: string, title: string, cpv: [string, string]) {
  const [object] = item.objectDetailsList;
  return { ...item, referenceNumber: ref, title, objectDetailsList: [{ ...object, shortDescription: title, cpvs: [{ key: cpv[0], value: cpv[1] }] }] };
}

/** A folder of one saved KIMDIS page that `ingestSource --from` replays. */
function kimdisPage(t: Test, contracts: unknown[]): string {
  const dir = tempDir(t);
  fs.writeFileSync(
    path.join(dir, 'page.json'),
    JSON.stringify({ ...template, content: contracts, numberOfElements: contracts.length, totalElements: contracts.length }),
  );
  return dir;
}

const SOFTWARE: [string, string] = ['48510000-6', 'Πακέτα λογισμικού επικοινωνίας'];
const TITLE = 'Προμήθεια συστήματος τηλεδιάσκεψης για τα σχολεία του Δήμου';
const TARGET = 'kimdis:26SYMV000000001';
const TWIN = 'kimdis:26SYMV000000002';
const DECOYS = ['Συντήρηση πυροσβεστήρων', 'Καθαρισμός σχολικών κτιρίων', 'Προμήθεια καυσίμων', 'Κλάδεμα δέντρων', 'Επισκευή οδοστρωμάτων'];

async function scenario(t: Test, app: TestApp) {
  const deps: PipelineDeps = {
    search: app.search,
    blobs: app.blobs,
    embedder: app.embedder,
    state: app.ingestState,
    documents: app.documents,
    log: createLogger('silent'),
  };
  const key = app.key('enterprise');
  const english = 'communication software package';
  const found = async (q = english) =>
    (await app.request(`/v1/search?q=${encodeURIComponent(q)}&limit=50`, { key })).body.results.map((r: { source_id: string }) => r.source_id);

  // The twin: the same Greek text, a code TED teaches nothing of.
  const contracts = [
    contract('26SYMV000000001', TITLE, SOFTWARE),
    contract('26SYMV000000002', TITLE, ['30213000-5', 'Προσωπικοί ηλεκτρονικοί υπολογιστές']),
    ...DECOYS.flatMap((d, i) => [0, 1, 2].map((j) => contract(`26SYMV00000010${i}${j}`, `${d} ${j + 1}`, ['75251000-0', 'Πυροσβεστικές υπηρεσίες']))),
  ];
  const kimdis = await ingestSource(deps, SOURCE_MODULES.kimdis, { fromDir: kimdisPage(t, contracts) });
  t.equal(kimdis.new, contracts.length, kimdis.error ?? 'the KIMDIS page is stored');
  t.notOk((await found()).includes(TARGET), 'before TED taught the label, an English search misses the Greek contract');

  const tedDir = tempDir(t);
  fs.copyFileSync(path.join(FIXTURES, 'ted/search_v3_response_trimmed.json'), path.join(tedDir, 'search.json'));
  const ted = await ingestSource(deps, SOURCE_MODULES.ted, { fromDir: tedDir });
  t.equal(ted.status, 'succeeded', ted.error ?? 'TED ingested');
  t.strictSame(
    app.documents.cpvLabels().get('48510000'),
    { el: 'Πακέτα λογισμικού επικοινωνίας', en: 'Communication software package' },
    'the store learned the label from the real notices',
  );

  // What was stored before the label was known gets it at the next reindex; the table is learned again.
  app.documents.db.exec('DELETE FROM cpv_label_votes; DELETE FROM cpv_labels;');
  await reindex(deps, 'kimdis');
  t.equal(app.documents.cpvLabels().get('48510000')?.en, 'Communication software package', 'reindex learned the table again from the stored notices');
  const stored = await app.search.get(TARGET);
  t.same(stored?.cpv_labels_en, ['Communication software package'], 'the indexed contract carries the label');
  t.equal(stored?.content_hash, app.documents.hash(TARGET), 'its content hash is the stored one, the label left out');

  const hits = await found();
  t.ok(hits.includes(TARGET), 'an English search finds the Greek-only contract by its code');
  t.notOk(hits.includes(TWIN), 'and not its twin of another code: the label is the reason');
  const question = 'Which contracts buy a communication software package?';
  const textLeg = (await app.search.moreLikeThis({ text: question, limit: 50 })).map((h) => h.doc.source_id);
  t.ok(textLeg.includes(TARGET) && !textLeg.includes(TWIN), "ask's full-text leg finds it for an English question, and not its twin");
  const asked = await app.request('/v1/ask', { key, method: 'POST', body: { question, limit: 10 } });
  t.ok(
    asked.body.sources.some((s: { source_id: string }) => s.source_id === TARGET),
    "and ask's ten sources hold it",
  );
  const listing = await app.request('/v1/kimdis/documents?limit=100', { key });
  const listed = listing.body.documents.find((d: { source_id: string }) => d.source_id === TARGET);
  t.ok(listed && !('cpv_labels_en' in listed), 'the label is searched, not a field of the API document');

  // Now that TED taught it, a contract of the code is searched by its label as it is ingested.
  const later = await ingestSource(deps, SOURCE_MODULES.kimdis, {
    fromDir: kimdisPage(t, [contract('26SYMV000000003', 'Αναβάθμιση τηλεφωνικού κέντρου', SOFTWARE)]),
  });
  t.equal(later.new, 1);
  t.ok((await found()).includes('kimdis:26SYMV000000003'), 'a contract ingested after TED is found at once');
  const fed = app.documents.feedAfter(0, 1000).map((e) => e.doc);
  const alerted = alertedBy([english], fed);
  t.ok(alerted.includes(TARGET) && !alerted.includes(TWIN), 'an alert on the English label matches the Greek contract as the feed gives it');
  t.same(alerted, (await found()).sort(), 'and every document the search finds, no other');
  // A rebuild of TED alone leaves the other sources' labels in place.
  await reindex(deps, 'ted');
  t.ok((await found()).includes(TARGET), 'after a TED-only reindex, still found');
}

t.test('when TED teaches a CPV code its English label, then KIMDIS documents of that code are found in English', async (t) => {
  t.test('embedded', async (t) => {
    await scenario(t, await startTestApp(t));
  });
  t.test('elasticsearch', async (t) => {
    const search: SearchProvider = await apiTestProvider(t);
    await scenario(t, await startTestApp(t, { search }));
  });
});
