// ΚΗΜΔΗΣ (KIMDIS, alias e_procurement): the Greek central registry of public contracts.
// Fetch → parse → normalize.
import type { SourceModule } from '../types.js';
import { createKimdisFetch, type KimdisFetchOptions } from './fetch.js';
import { KIMDIS_BASE_URL, normalizeKimdis } from './normalize.js';
import { parseKimdis } from './parse.js';

export { KIMDIS_BASE_URL };

/** A KIMDIS module with other resources or windows than the defaults. */
export function createKimdisSource(options: KimdisFetchOptions = {}): SourceModule {
  return {
    name: 'kimdis',
    defaultBaseUrl: KIMDIS_BASE_URL,
    // Pages of contracts: ~20 KB.
    maxPageBytes: 16 * 2 ** 20,
    fetch: createKimdisFetch(options),
    parse: (body) => parseKimdis(body),
    normalize: normalizeKimdis,
  };
}

export const kimdis: SourceModule = createKimdisSource();
