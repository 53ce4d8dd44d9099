import path from 'node:path';
import t, { type Test } from 'tap';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { tempDir } from '../helpers/app.js';
import { documentsContract } from './documents-contract.js';
import { searchFeaturesContract } from './search-features-contract.js';

const openEmbedded = async (t: Test) => {
  const provider = new EmbeddedProvider({ file: path.join(tempDir(t), 'index.db'), dimension: 384, embeddingModel: 'pdi/hashing-384' });
  await provider.init();
  t.teardown(() => provider.close());
  return provider;
};

documentsContract(t, 'embedded', openEmbedded);
searchFeaturesContract(t, 'embedded', openEmbedded);
