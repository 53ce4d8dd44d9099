// Ask keeps what the full-text leg is sure of: a document it ranks first for a rare exact term (an ΑΦΜ,
// a name, a CPV code) is in ask's top ten, on both engines, with the real sentence model, where the
// semantic leg ranks 120 documents on the question's topic above it. Skipped without the model
// (scripts/fetch-model.sh).
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

function corpus(): IndexedDocument[] {
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

async function check(t: Test, search: SearchProvider, model: ModelEmbedder): Promise<void> {
  const docs = corpus();
  const vectors = await model.embed(docs.map(documentText));
  docs.forEach((d, i) => {
    d.embedding = vectors[i];
  });
  t.equal((await search.upsert(docs)).failed.length, 0);
  await search.refresh();
  const question = `Ποιες συμβάσεις οδοφωτισμού έχει ο ανάδοχος με ΑΦΜ ${AFM};`;
  const text = await search.moreLikeThis({ text: question, limit: 50 });
  t.equal(text[0]?.doc.source_id, 'diavgeia:ΓΡΦ1-ΑΒΓ', 'the full-text leg ranks the ΑΦΜ first');
  const semantic = await search.knn({ vector: (await model.embed([question]))[0], limit: 50 });
  t.notOk(
    semantic.some((h) => h.doc.source_id === 'diavgeia:ΓΡΦ1-ΑΒΓ'),
    'the semantic leg does not have it in its 50',
  );
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

t.test("when a question names a rare exact term, then the document the full-text leg ranks first for it is in ask's top ten", { skip }, async (t) => {
  const model = await ModelEmbedder.load(modelDir);
  t.teardown(() => model.dispose());

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
});
