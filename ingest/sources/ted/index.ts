// TED (Tenders Electronic Daily): EU procurement notices for Greek buyers. fetch → parse → normalize.
import type { SourceModule } from '../types.js';
import { createTedFetch, type TedFetchOptions } from './fetch.js';
import { normalizeTed } from './normalize.js';
import { parseTed } from './parse.js';

export const TED_BASE_URL = 'https://api.ted.europa.eu';

export function createTedSource(options: TedFetchOptions = {}): SourceModule {
  return {
    name: 'ted',
    defaultBaseUrl: TED_BASE_URL,
    // Pages of notices: ~200 KB.
    maxPageBytes: 16 * 2 ** 20,
    fetch: createTedFetch(options),
    parse: parseTed,
    normalize: normalizeTed,
  };
}

export const ted: SourceModule = createTedSource();
