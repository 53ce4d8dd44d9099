// data/demo-vectors.bin: every demo document has its vector for the pinned model there, and a sample of
// them equals what the model computes now (each text embedded alone, as scripts/demo-vectors.ts does).
// The sample needs the real model; without it that test is skipped, as the other model tests are.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { SOURCE_NAMES } from '../../index-mappings/sources.js';
import { loadDemo } from '../../ingest/demo.js';
import { DEMO_VECTORS_FILE, decodeDemoVectors, seedDemoVectors } from '../../ingest/demo-vectors.js';
import { pipelineOn } from '../../ingest/runtime.js';
import { embeddingCacheKey } from '../../ingest/stages/embed.js';
import { loadConfig } from '../../lib/config.js';
import { defaultModelDir, documentText, ModelEmbedder, PINNED_MODEL_ID } from '../../lib/embedding/index.js';
import { createLogger } from '../../lib/logger.js';
import { startTestApp } from '../helpers/app.js';

const modelDir = defaultModelDir();
const skip = fs.existsSync(path.join(modelDir, 'config.json')) ? false : `no embedding model at ${modelDir}: run scripts/fetch-model.sh`;
const { header, items } = decodeDemoVectors(fs.readFileSync(DEMO_VECTORS_FILE));
const byHash = new Map(items.map((it) => [it.contentHash, it.vector]));

t.test('when the demo corpus is loaded, then the shipped file holds a vector of the pinned model for every document, seeded into the cache', async (t) => {
  t.match(header.cacheKey, new RegExp(`^${PINNED_MODEL_ID}@text-v\\d+$`));
  t.equal(header.dimension, 384);
  t.ok(fs.statSync(DEMO_VECTORS_FILE).size < 4_000_000, 'a few MB at most');
  const app = await startTestApp(t);
  const deps = pipelineOn(loadConfig({ PDI_DATA_DIR: app.dataDir, LOG_LEVEL: 'silent' }), app.search, app.embedder, app.ingestState, createLogger('silent'));
  t.teardown(() => deps.close());
  await loadDemo(deps);
  const stale: string[] = [];
  let documents = 0;
  for (const source of SOURCE_NAMES) {
    for (const batch of deps.documents.batches(source)) {
      documents += batch.length;
      for (const r of batch) if (!byHash.has(r.content_hash)) stale.push(r.doc.source_id);
    }
  }
  t.ok(documents > 3000, `${documents} demo documents`);
  t.same(stale.slice(0, 5), [], `${stale.length} documents without a shipped vector: run node --import tsx scripts/demo-vectors.ts`);
  t.equal(seedDemoVectors(deps.documents, header.cacheKey), items.length);
  for (const source of SOURCE_NAMES) t.equal(deps.documents.uncached(source, header.cacheKey), 0, `${source}: every vector cached`);
  t.equal(seedDemoVectors(deps.documents, 'pdi/hashing-384@text-v2'), 0, 'another model is not seeded');
});

// The model's int8 matrix products round differently on CPUs with and without AVX-512 VNNI: the same
// text gave cosine 0.9984 against the shipped vector on a Sapphire Rapids machine. Another model or
// another text version lands far below.
const SAME_VECTOR = 1 - 5e-3;

t.test('when a sample of demo documents is embedded with the real model, then the shipped vectors equal its own within 5e-3 cosine', { skip }, async (t) => {
  const model = await ModelEmbedder.load(modelDir);
  t.teardown(() => model.dispose());
  t.equal(embeddingCacheKey(model), header.cacheKey);
  const app = await startTestApp(t);
  const deps = pipelineOn(loadConfig({ PDI_DATA_DIR: app.dataDir, LOG_LEVEL: 'silent' }), app.search, app.embedder, app.ingestState, createLogger('silent'));
  t.teardown(() => deps.close());
  // Two sources of different kinds are enough for a sample, and quicker to load than the whole corpus.
  await loadDemo(deps, { sources: ['kimdis', 'data_gov_gr'] });
  const records = [...deps.documents.batches('kimdis'), ...deps.documents.batches('data_gov_gr')].flat();
  const sample = records.filter((_, i) => i % Math.ceil(records.length / 16) === 0);
  for (const r of sample) {
    const [own] = await model.embed([documentText(r.doc)]);
    const shipped = byHash.get(r.content_hash)!;
    const cos = own.reduce((s, x, i) => s + x * shipped[i], 0);
    t.ok(cos >= SAME_VECTOR, `${r.doc.source_id}: cosine ${cos.toFixed(5)}`);
  }
});
