// The Elasticsearch search engine, the SearchProvider when ELASTICSEARCH_URL is set. Implementation in
// ./elasticsearch/ (provider.ts on top of its parts); design in docs/search-engines.md.
export { ElasticsearchProvider } from './elasticsearch/provider.js';
export type { ElasticsearchProviderOptions } from './elasticsearch/provider.js';
export { EngineResponseError } from './elasticsearch/client.js';
export { MIN_SERVER_MAJOR, unsupportedServer } from './elasticsearch/lifecycle.js';
export {
  buildKnn,
  buildListQuery,
  buildMoreLikeThis,
  buildScorePage,
  buildSort,
  buildTextQuery,
  fieldGroupOf,
  pageFromScoreWindow,
  queryChunks,
} from './elasticsearch/queries.js';
export { recordTieFields } from './elasticsearch/records.js';
