import path from 'node:path';
import t from 'tap';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { tempDir } from '../helpers/app.js';
import { aggregateContract } from './aggregate-contract.js';

// On a reader thread, as the server runs the embedded engine (aggregates cross the thread boundary).
aggregateContract(t, 'embedded', async (t) => {
  const provider = new EmbeddedProvider({ file: path.join(tempDir(t), 'index.db'), dimension: 384, embeddingModel: 'pdi/hashing-384', readers: 1 });
  await provider.init();
  t.teardown(() => provider.close());
  return provider;
});
