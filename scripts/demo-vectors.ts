// Writes data/demo-vectors.bin: the demo corpus loaded through the pipeline into a temporary data folder
// (with the lexical fallback: only the stored records and their content hashes are wanted), then each
// document's text embedded with the pinned model, one text a call, as ingest embeds it (documentText).
// One a call: the quantized model's vectors move slightly with the batch a text is padded in, and
// test/embedding/demo-vectors.test.ts re-embeds a sample the same way. Run after a change of the demo
// corpus, a normalizer or the text recipe:
//
//   node --import tsx scripts/demo-vectors.ts            # the model at scripts/fetch-model.sh's path, or PDI_MODEL_DIR
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultModelDir, documentText, HashingEmbedder, ModelEmbedder } from '../lib/embedding/index.js';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { SOURCE_NAMES } from '../index-mappings/sources.js';
import { createSearchProvider } from '../lib/search/index.js';
import { loadDemo } from '../ingest/demo.js';
import { DEMO_VECTORS_FILE, encodeDemoVectors, type DemoVector } from '../ingest/demo-vectors.js';
import { pipelineOn } from '../ingest/runtime.js';
import { embeddingCacheKey } from '../ingest/stages/embed.js';
import { IngestState } from '../ingest/state/store.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-demo-vectors-'));
try {
  const config = loadConfig({ PDI_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const log = createLogger('silent');
  const fallback = new HashingEmbedder();
  const search = await createSearchProvider(config, fallback, log);
  const state = new IngestState(IngestState.pathIn(dataDir));
  const rt = pipelineOn(config, search, fallback, state, log);
  await loadDemo(rt);
  const model = await ModelEmbedder.load(process.env.PDI_MODEL_DIR || defaultModelDir());
  const items: DemoVector[] = [];
  const started = Date.now();
  for (const source of SOURCE_NAMES) {
    for (const batch of rt.documents.batches(source)) {
      for (const r of batch) {
        const [vector] = await model.embed([documentText(r.doc)]);
        items.push({ contentHash: r.content_hash, vector });
      }
      process.stderr.write(`\r${items.length} documents embedded (${Math.round((Date.now() - started) / 1000)} s)`);
    }
  }
  const unique = [...new Map(items.map((it) => [it.contentHash, it])).values()];
  fs.writeFileSync(DEMO_VECTORS_FILE, encodeDemoVectors(embeddingCacheKey(model), unique));
  process.stderr.write(
    `\n${unique.length} vectors of ${embeddingCacheKey(model)} written to ${DEMO_VECTORS_FILE} (${fs.statSync(DEMO_VECTORS_FILE).size} bytes)\n`,
  );
  await model.dispose();
  await rt.close();
  await search.close();
  state.close();
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
