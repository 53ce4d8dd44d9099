// The engine of a data folder with the real model, as ask benches open it: the model from PDI_MODEL_DIR
// (or the folder scripts/fetch-model.sh fills), the engine the environment names (ELASTICSEARCH_URL, else
// the embedded one in the folder).
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../lib/config.js';
import type { Embedder } from '../lib/embedding/embedder.js';
import { createEmbedder, defaultModelDir } from '../lib/embedding/index.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { createSearchProvider } from '../lib/search/index.js';
import type { SearchProvider } from '../lib/search/provider.js';

export async function modelEngine(dataDir: string): Promise<{ model: Embedder; engine: SearchProvider; log: Logger }> {
  const modelDir = process.env.PDI_MODEL_DIR || defaultModelDir();
  if (!fs.existsSync(path.join(modelDir, 'config.json'))) throw new Error(`no model in ${modelDir}: run scripts/fetch-model.sh`);
  const log = createLogger('silent');
  const config = loadConfig({ ...process.env, PDI_DATA_DIR: dataDir, PDI_MODEL_DIR: modelDir });
  const model = await createEmbedder({ modelDir, logger: log });
  if (model.fallback) throw new Error(`the model in ${modelDir} did not load`);
  return { model, engine: await createSearchProvider(config, model, log), log };
}
