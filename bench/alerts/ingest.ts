// The alerts bench's ingest, in a process of its own as `pdi ingest` runs beside the API server:
//   [PDI_MODEL_DIR=DIR] node --import tsx bench/alerts/ingest.ts DATA_DIR CORPUS_DIR...
// Loads each demo corpus through the whole pipeline (embedded engine; the model in PDI_MODEL_DIR, as
// production embeds, else the hashing embedder) and prints {"stored","seconds","cpu_seconds","embedder"}
// (CPU of every thread of this process: the model's threads included).
import path from 'node:path';
import { loadDemo } from '../../ingest/demo.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { IngestState } from '../../ingest/state/store.js';
import { SqliteBlobStore } from '../../lib/blob-store.js';
import { createEmbedder } from '../../lib/embedding/index.js';
import { createLogger } from '../../lib/logger.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';

const [dataDir, ...dirs] = process.argv.slice(2);
if (!dataDir || dirs.length === 0) throw new Error('usage: ingest.ts DATA_DIR CORPUS_DIR...');
const embedder = await createEmbedder({ modelDir: process.env.PDI_MODEL_DIR ?? null });
const search = new EmbeddedProvider({ file: path.join(dataDir, 'index.db'), dimension: embedder.dimension, embeddingModel: embedder.id });
await search.init();
const documents = new DocumentStore(DocumentStore.pathIn(dataDir));
const deps = {
  search,
  embedder,
  documents,
  log: createLogger('silent'),
  blobs: new SqliteBlobStore(SqliteBlobStore.pathIn(dataDir)),
  state: new IngestState(IngestState.pathIn(dataDir)),
};
const cpu0 = process.cpuUsage();
const started = performance.now();
let stored = 0;
for (const dir of dirs) for (const run of (await loadDemo(deps, { dir })).runs) stored += run.new + run.updated;
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpu0);
await search.close();
deps.state.close();
deps.blobs.close();
documents.close();
process.stdout.write(`${JSON.stringify({ stored, seconds, cpu_seconds: (cpu.user + cpu.system) / 1e6, embedder: embedder.id })}\n`);
