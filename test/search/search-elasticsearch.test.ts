// The shared SearchProvider contract (search-contract.ts) against the Elasticsearch adapter and a real
// Elasticsearch (ELASTICSEARCH_URL, or one this file starts); each opening gets its own index prefix.
import t from 'tap';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { deleteIndices, elasticsearchUrl, randomPrefix } from '../helpers/elasticsearch.js';
import { CONTRACT_DIMENSION, searchContract } from './search-contract.js';

t.setTimeout(600_000);

const url = await elasticsearchUrl(t);

searchContract(t, 'elasticsearch', async () => {
  const prefix = randomPrefix();
  const provider = new ElasticsearchProvider({ url, prefix, dimension: CONTRACT_DIMENSION, embeddingModel: 'test/model' });
  return {
    provider,
    cleanup: async () => {
      await provider.close();
      await deleteIndices(url, prefix);
    },
  };
});
