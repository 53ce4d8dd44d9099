import path from 'node:path';
import t from 'tap';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { tempDir } from '../helpers/app.js';
import { exportContract } from './export-contract.js';

// On a reader thread, as the server runs the embedded engine (cursors cross the thread boundary).
exportContract(t, 'embedded', async (t) => {
  const provider = new EmbeddedProvider({ file: path.join(tempDir(t), 'index.db'), dimension: 384, embeddingModel: 'pdi/hashing-384', readers: 1 });
  await provider.init();
  t.teardown(() => provider.close());
  return provider;
});
