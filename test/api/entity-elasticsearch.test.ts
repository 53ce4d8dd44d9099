import t from 'tap';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { deleteIndices, elasticsearchUrl, randomPrefix } from '../helpers/elasticsearch.js';
import { entityContract } from './entity-contract.js';

t.setTimeout(300_000);

entityContract(t, 'elasticsearch', async (t) => {
  const url = await elasticsearchUrl(t);
  const prefix = randomPrefix();
  const provider = new ElasticsearchProvider({ url, prefix, dimension: 384, embeddingModel: 'pdi/hashing-384' });
  await provider.init();
  t.teardown(async () => {
    await provider.close();
    await deleteIndices(url, prefix);
  });
  return provider;
});
