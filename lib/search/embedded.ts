// The embedded search engine (SQLite FTS5, a usearch graph for vectors), the default SearchProvider when
// ELASTICSEARCH_URL is unset. Implementation in ./embedded/; design in docs/search-engines.md.
export { EmbeddedProvider, DEFAULT_TUNING } from './embedded/provider.js';
export type { EmbeddedOptions, Tuning } from './embedded/provider.js';
export { EmbeddedIndexDamagedError, EmbeddedIndexMismatchError } from './embedded/index-file.js';
