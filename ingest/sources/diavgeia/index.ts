// Δι@ύγεια (Diavgeia): decisions of Greek public bodies. fetch → parse → normalize.
import type { SourceModule } from '../types.js';
import { createDiavgeiaFetch, type DiavgeiaFetchOptions } from './fetch.js';
import { normalizeDiavgeia } from './normalize.js';
import { parseDiavgeia } from './parse.js';

export const DIAVGEIA_BASE_URL = 'https://diavgeia.gov.gr/opendata';

/** A Diavgeia module with non-default paging or windows (tests use small pages). */
export function createDiavgeiaSource(options: DiavgeiaFetchOptions = {}): SourceModule {
  return {
    name: 'diavgeia',
    defaultBaseUrl: DIAVGEIA_BASE_URL,
    fetch: createDiavgeiaFetch(options),
    parse: (body) => parseDiavgeia(body),
    normalize: normalizeDiavgeia,
  };
}

export const diavgeia: SourceModule = createDiavgeiaSource();
