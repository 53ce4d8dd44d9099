import t from 'tap';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { deleteIndices, elasticsearchUrl, randomPrefix } from '../helpers/elasticsearch.js';
import { aggregateContract } from './aggregate-contract.js';

// Three shards: a terms aggregation would have to estimate across them; composite aggregations do not.
aggregateContract(t, 'elasticsearch', async (t) => {
  const url = await elasticsearchUrl(t);
  const prefix = randomPrefix();
  const provider = new ElasticsearchProvider({ url, prefix, dimension: 384, embeddingModel: 'pdi/hashing-384', layout: { shards: 3, replicas: 0 } });
  await provider.init();
  t.teardown(async () => {
    await provider.close();
    await deleteIndices(url, prefix);
  });
  return provider;
});
