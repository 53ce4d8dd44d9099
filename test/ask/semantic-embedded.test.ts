import path from 'node:path';
import t from 'tap';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { tempDir } from '../helpers/app.js';
import { semanticContract } from './semantic-contract.js';

semanticContract(t, 'embedded', async (t) => {
  const provider = new EmbeddedProvider({ file: path.join(tempDir(t), 'index.db'), dimension: 384, embeddingModel: 'pdi/hashing-384' });
  await provider.init();
  t.teardown(() => provider.close());
  return provider;
});
