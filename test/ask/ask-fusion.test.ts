// Ask's fusion of its two legs, on both engines, with the real sentence model (skipped without it:
// scripts/fetch-model.sh). A document the full-text leg ranks first for a rare exact term (an ΑΦΜ, a name,
// a CPV code) is in ask's top ten where the semantic leg ranks 120 documents on the question's topic above
// it; and an English question naming no code leans on the full-text leg, which finds a Greek document by
// its English CPV label where the model ranks English documents of the topic above it.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { IndexedDocument } from '../../index-mappings/document.js';
import { defaultModelDir, documentText, ModelEmbedder } from '../../lib/embedding/index.js';
import { createLogger } from '../../lib/logger.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { AskService } from '../../lib/semantic/ask.js';
import { retrieve } from '../../lib/semantic/retrieve.js';
import { keepWithin, scoreFusion } from '../../lib/semantic/fusion.js';
import { SEMANTIC_WEIGHT } from '../../index-mappings/ranking.js';
import { tempDir } from '../helpers/app.js';
import { deleteIndices, elasticsearchUrl, makeDoc, randomPrefix } from '../helpers/elasticsearch.js';

const modelDir = process.env.PDI_MODEL_DIR || defaultModelDir();
const skip = existsSync(path.join(modelDir, 'config.json')) ? false : `no embedding model at ${modelDir}: run scripts/fetch-model.sh`;

const TOWNS = [
  'Αθηναίων',
  'Πειραιά',
  'Πατρέων',
  'Λαρισαίων',
  'Βόλου',
  'Ιωαννιτών',
  'Χανίων',
  'Καλαμάτας',
  'Σερρών',
  'Δράμας',
  'Κοζάνης',
  'Τρικκαίων',
  'Χαλκιδέων',
  'Ρόδου',
  'Κέρκυρας',
  'Ξάνθης',
  'Καβάλας',
  'Αγρινίου',
  'Κατερίνης',
  'Βέροιας',
];
const WORKS = [
  'Συντήρηση δικτύου οδοφωτισμού',
  'Αντικατάσταση φωτιστικών οδοφωτισμού με LED',
  'Επισκευή ιστών ηλεκτροφωτισμού οδών',
  'Επέκταση δημοτικού φωτισμού',
  'Προμήθεια λαμπτήρων οδοφωτισμού',
  'Ενεργειακή αναβάθμιση οδοφωτισμού',
];
const AFM = '094019245';

function exactTermCorpus(): IndexedDocument[] {
  const docs: IndexedDocument[] = [];
  const add = (id: string, title: string, content: string) =>
    docs.push(
      makeDoc('diavgeia', id, {
        title,
        content,
        content_hash: createHash('sha256').update(id).digest('hex'),
      }),
    );
  // Each with its own contractor's ΑΦΜ, so that a question naming one is like all of them to the model.
  TOWNS.forEach((town, i) =>
    WORKS.forEach((work, j) =>
      add(
        `ΟΔΟ${i}Φ${j}-ΑΒΓ`,
        `${work} του Δήμου ${town}`,
        `Ανάθεση σύμβασης για ${work.toLowerCase()} στους δρόμους του Δήμου ${town} στον ανάδοχο με ΑΦΜ ${String(800000000 + i * 10 + j)}.`,
      ),
    ),
  );
  for (let i = 0; i < 20; i++) add(`ΠΡΣ${i}-ΑΒΓ`, `Κλάδεμα δέντρων και συντήρηση πρασίνου ${i}`, 'Εργασίες κλαδέματος και άρδευσης σε πάρκα και πλατείες.');
  // The one document with the ΑΦΜ the question names: about stationery, nothing like street lighting.
  add('ΓΡΦ1-ΑΒΓ', 'Προμήθεια γραφικής ύλης για τις σχολικές μονάδες', `Προμήθεια χαρτιού και μελανιών από την εταιρεία με ΑΦΜ ${AFM}.`);
  return docs;
}

async function indexed(t: Test, search: SearchProvider, model: ModelEmbedder, docs: IndexedDocument[]): Promise<void> {
  const vectors = await model.embed(docs.map(documentText));
  docs.forEach((d, i) => {
    d.embedding = vectors[i];
  });
  t.equal((await search.upsert(docs)).failed.length, 0);
  await search.refresh();
}

async function exactTerm(t: Test, search: SearchProvider, model: ModelEmbedder): Promise<void> {
  await indexed(t, search, model, exactTermCorpus());
  const question = `Ποιες συμβάσεις οδοφωτισμού έχει ο ανάδοχος με ΑΦΜ ${AFM};`;
  const text = await search.moreLikeThis({ text: question, limit: 50 });
  t.equal(text[0]?.doc.source_id, 'diavgeia:ΓΡΦ1-ΑΒΓ', 'the full-text leg ranks the ΑΦΜ first');
  const semantic = await search.knn({ vector: (await model.embed([question]))[0], limit: 50 });
  // Where the model puts it moves with the CPU's int8 arithmetic (AVX2 or AVX-512 VNNI): what matters is
  // that street lighting fills the model's first twenty, so that ask keeps it in ten only by the fusion.
  const byModel = semantic.findIndex((h) => h.doc.source_id === 'diavgeia:ΓΡΦ1-ΑΒΓ');
  t.ok(byModel === -1 || byModel >= 20, `the semantic leg ranks street lighting above it (at ${byModel})`);
  const ask = new AskService({ search, embedder: model, generator: null, log: createLogger('silent') });
  const answer = await ask.ask(question, 10, 'any', {});
  t.ok(
    answer.sources.some((s) => s.source_id === 'diavgeia:ΓΡΦ1-ΑΒΓ'),
    'and ask keeps it in its top ten',
  );
  t.ok(
    answer.sources.slice(0, 5).every((s) => s.source_id.startsWith('diavgeia:ΟΔΟ')),
    'above it, street lighting',
  );
}

const TARGET = 'kimdis:26SYMV000000001';

/** English notices on software (the model's neighbours of the question) and one Greek contract of the code. */
function englishCorpus(): IndexedDocument[] {
  const english = [
    'Supply of accounting software licences for the regional finance office',
    'Maintenance and support of the municipal enterprise resource planning software',
    'Software development services for the tax administration portal',
    'Provision of IT support and software updates for hospitals',
    'Purchase of antivirus software for public schools',
    'Development of a mobile application for citizen services',
    'Cloud hosting and software as a service for the ministry',
    'Licences for office productivity software in universities',
    'Upgrade of the document management software of the courts',
    'Framework agreement for custom software maintenance',
  ];
  const docs = english.map((title, i) =>
    makeDoc('ted', `${100000 + i}-2026`, {
      title,
      content: `${title}. Call for tenders under the open procedure, with award on the best price-quality ratio.`,
      language: 'en',
      country: 'EU',
      content_hash: createHash('sha256').update(title).digest('hex'),
    }),
  );
  docs.push(
    makeDoc('kimdis', '26SYMV000000001', {
      title: 'Προμήθεια συστήματος τηλεδιάσκεψης για τα σχολεία του Δήμου',
      content: 'Σύμβαση προμήθειας εξοπλισμού και αδειών για τηλεδιασκέψεις των σχολικών μονάδων του Δήμου.',
      cpv: ['48510000'],
      cpv_labels_en: ['Communication software package'],
      content_hash: createHash('sha256').update(TARGET).digest('hex'),
    }),
  );
  return docs;
}

async function englishOverGreek(t: Test, search: SearchProvider, model: ModelEmbedder): Promise<void> {
  await indexed(t, search, model, englishCorpus());
  const question = 'Which contracts buy a communication software package?';
  const legs = await retrieve(search, model, question, 50);
  t.equal(legs.text[0]?.doc.source_id, TARGET, 'the full-text leg ranks the Greek contract first, by its English label');
  const byModel = legs.semantic.findIndex((h) => h.doc.source_id === TARGET);
  t.ok(byModel === -1 || byModel >= 3, `the semantic leg ranks English software notices above it (at ${byModel})`);
  const id = (h: { doc: { source_id: string } }) => h.doc.source_id;
  const withGreekWeight = keepWithin(
    scoreFusion(
      [
        { hits: legs.semantic, weight: SEMANTIC_WEIGHT },
        { hits: legs.text, weight: 1 - SEMANTIC_WEIGHT },
      ],
      id,
      (h) => h.score,
    ),
    id,
    TARGET,
    10,
  );
  t.not(id(withGreekWeight[0]!.item), TARGET, "fused with a Greek question's weight, an English notice comes first");
  const ask = new AskService({ search, embedder: model, generator: null, log: createLogger('silent') });
  const answer = await ask.ask(question, 10, 'any', {});
  t.equal(answer.sources[0]?.source_id, TARGET, "ask's first source is the Greek contract");
}

/** Runs `check` on a fresh index of each engine. */
function onBothEngines(t: Test, model: ModelEmbedder, check: (t: Test, search: SearchProvider, model: ModelEmbedder) => Promise<void>): void {
  t.test('embedded', async (t) => {
    const search = new EmbeddedProvider({ file: path.join(tempDir(t), 'index.db'), dimension: model.dimension, embeddingModel: model.id });
    await search.init();
    t.teardown(() => search.close());
    await check(t, search, model);
  });

  t.test('elasticsearch', async (t) => {
    const url = await elasticsearchUrl(t);
    const prefix = randomPrefix();
    const search = new ElasticsearchProvider({ url, prefix, dimension: model.dimension, embeddingModel: model.id });
    await search.init();
    t.teardown(async () => {
      await search.close();
      await deleteIndices(url, prefix);
    });
    await check(t, search, model);
  });
}

t.test('with the real sentence model', { skip }, async (t) => {
  const model = await ModelEmbedder.load(modelDir);
  t.teardown(() => model.dispose());
  t.test("when a question names a rare exact term, then the document the full-text leg ranks first for it is in ask's top ten", async (t) =>
    onBothEngines(t, model, exactTerm),
  );
  t.test("when an English question names no code, then a Greek document the full-text leg finds by its English CPV label is ask's first source", async (t) =>
    onBothEngines(t, model, englishOverGreek),
  );
});
