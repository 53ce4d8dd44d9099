// English finds Greek through the official CPV vocabulary, on both engines, through the real pipeline
// and the real KIMDIS and Diavgeia fixtures: a Greek-only KIMDIS contract is found by an English search
// and question, and a Diavgeia decision that writes only its code by English and Greek words of its
// code's labels, codes no TED notice of the corpus teaches; an alert keyword meets them as search does;
// `pdi reindex` gives the labels to documents indexed without them.
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

const kimdisTemplate = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'kimdis/contract_page_anonymized_shape.json'), 'utf8'));
const item = kimdisTemplate.content[0];
const diavgeiaTemplate = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'diavgeia/search_page_reserialized_trimmed.json'), 'utf8'));
const notice = diavgeiaTemplate.decisions.find((d: { ada: string }) => d.ada === '9ΓΤΕ469ΗΖΞ-ΩΜ1');

/** A KIMDIS contract of the fixture's shape, Greek only, with one object of `cpv` (code and Greek label, as KIMDIS writes them). */
function contract(ref: string, title: string, cpv: [string, string]) {
  const [object] = item.objectDetailsList;
  return { ...item, referenceNumber: ref, title, objectDetailsList: [{ ...object, shortDescription: title, cpvs: [{ key: cpv[0], value: cpv[1] }] }] };
}

/** A Diavgeia contest notice of the fixture's shape: its code is in its extra fields only. */
function decision(ada: string, subject: string, cpv: string) {
  return { ...notice, ada, subject, versionId: `v-${ada}`, extraFieldValues: { ...notice.extraFieldValues, cpv: [cpv] } };
}

/** A folder holding one saved page that `ingestSource --from` replays. */
function savedPage(t: Test, page: unknown): string {
  const dir = tempDir(t);
  fs.writeFileSync(path.join(dir, 'page.json'), JSON.stringify(page));
  return dir;
}

const LIGHTING: [string, string] = ['50232100-0', 'Συντήρηση εγκαταστάσεων δημόσιου φωτισμού'];
const TITLE = 'Ετήσια σύμβαση για τις εγκαταστάσεις του Δήμου';
const TARGET = 'kimdis:26SYMV000000001';
const TWIN = 'kimdis:26SYMV000000002';
const DECOYS = ['Συντήρηση πυροσβεστήρων', 'Καθαρισμός σχολικών κτιρίων', 'Προμήθεια καυσίμων', 'Κλάδεμα δέντρων', 'Επισκευή οδοστρωμάτων'];
const SUBJECT = 'ΠΡΟΚΗΡΥΞΗ ΑΝΟΙΚΤΟΥ ΔΙΑΓΩΝΙΣΜΟΥ ΓΙΑ ΤΟ ΟΔΙΚΟ ΔΙΚΤΥΟ ΤΟΥ ΔΗΜΟΥ';
const SNOW = 'diavgeia:ΨΧΙΟ469ΗΖΞ-ΑΑ1';
const ROADS = 'diavgeia:ΨΧΙΟ469ΗΖΞ-ΑΑ2';

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
  const found = async (q: string) =>
    (await app.request(`/v1/search?q=${encodeURIComponent(q)}&limit=50`, { key })).body.results.map((r: { source_id: string }) => r.source_id);

  // TED's notices teach 48510000 and 72222300 at most: not the codes below.
  const tedDir = tempDir(t);
  fs.copyFileSync(path.join(FIXTURES, 'ted/search_v3_response_trimmed.json'), path.join(tedDir, 'search.json'));
  t.equal((await ingestSource(deps, SOURCE_MODULES.ted, { fromDir: tedDir })).status, 'succeeded');

  // The twins: the same Greek text, a code whose labels say something else.
  const contracts = [
    contract('26SYMV000000001', TITLE, LIGHTING),
    contract('26SYMV000000002', TITLE, ['30213000-5', 'Προσωπικοί ηλεκτρονικοί υπολογιστές']),
    ...DECOYS.flatMap((d, i) => [0, 1, 2].map((j) => contract(`26SYMV00000010${i}${j}`, `${d} ${j + 1}`, ['75251000-0', 'Πυροσβεστικές υπηρεσίες']))),
  ];
  const kimdisPage = { ...kimdisTemplate, content: contracts, numberOfElements: contracts.length, totalElements: contracts.length };
  const kimdis = await ingestSource(deps, SOURCE_MODULES.kimdis, { fromDir: savedPage(t, kimdisPage) });
  t.equal(kimdis.new, contracts.length, kimdis.error ?? 'the KIMDIS page is stored');
  const decisions = [decision('ΨΧΙΟ469ΗΖΞ-ΑΑ1', SUBJECT, '90620000-9'), decision('ΨΧΙΟ469ΗΖΞ-ΑΑ2', SUBJECT, '45233141-9')];
  const diavgeia = await ingestSource(deps, SOURCE_MODULES.diavgeia, { fromDir: savedPage(t, { ...diavgeiaTemplate, decisions }) });
  t.equal(diavgeia.new, 2, diavgeia.error ?? 'the Diavgeia page is stored');

  const indexed = await app.search.get(TARGET);
  t.same(indexed?.cpv_labels_en, ['Street-lighting maintenance services'], 'the contract is indexed with its official English label');
  t.notOk(indexed && 'cpv_labels_el' in indexed, 'not its Greek one, which its content already writes');
  t.equal(indexed?.content_hash, app.documents.hash(TARGET), 'its content hash is the stored one, the label left out');
  t.same((await app.search.get(SNOW))?.cpv_labels_el, ['Υπηρεσίες εκχιονισμού'], 'the decision with its Greek label too');

  const english = 'street lighting maintenance';
  let hits = await found(english);
  t.ok(hits.includes(TARGET), 'an English search finds the Greek-only contract by its code');
  t.notOk(hits.includes(TWIN), 'and not its twin of another code: the label is the reason');
  hits = await found('snow clearing');
  t.ok(hits.includes(SNOW) && !hits.includes(ROADS), 'an English search finds the Diavgeia decision by its code, and not its twin');
  hits = await found('εκχιονισμός');
  t.ok(hits.includes(SNOW) && !hits.includes(ROADS), 'so does a Greek word of its Greek label, in another case');
  // The feed gives alert matching each document with its labels, so an alert keyword meets it as search does.
  const fed = app.documents.feedAfter(0, 1000).map((e) => e.doc);
  const alerted = alertedBy([english], fed);
  t.ok(alerted.includes(TARGET) && !alerted.includes(TWIN), 'an alert on the English label matches the Greek contract as the feed gives it');
  t.same(alerted, (await found(english)).sort(), 'and every document the search finds, no other');

  const question = 'Which contracts cover street lighting maintenance services?';
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

  // Indexed as a build before the vocabulary did: `pdi reindex` gives the labels.
  for (const id of [TARGET, SNOW]) {
    const { cpv_labels_en: _en, cpv_labels_el: _el, ...bare } = (await app.search.get(id))!;
    await app.search.upsert([bare]);
  }
  await app.search.refresh();
  t.notOk((await found(english)).includes(TARGET), 'without its labels, the English search misses the contract');
  t.notOk((await found('εκχιονισμός')).includes(SNOW), 'and the Greek one the decision');
  await reindex(deps, 'kimdis');
  await reindex(deps, 'diavgeia');
  t.ok((await found(english)).includes(TARGET), 'after reindex, found again');
  t.ok((await found('εκχιονισμός')).includes(SNOW));
}

t.test('when a document carries a CPV code, then it is found by the official English and Greek labels of its code', async (t) => {
  t.test('embedded', async (t) => {
    await scenario(t, await startTestApp(t));
  });
  t.test('elasticsearch', async (t) => {
    const search: SearchProvider = await apiTestProvider(t);
    await scenario(t, await startTestApp(t, { search }));
  });
});
