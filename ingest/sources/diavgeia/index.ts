// Δι@ύγεια (Diavgeia): decisions of Greek public bodies. fetch → parse → normalize.
import type { SourceModule } from '../types.js';
import { createDiavgeiaFetch, type DiavgeiaFetchOptions } from './fetch.js';
import { normalizeDiavgeia } from './normalize.js';
import { loadOrganizations } from './organizations.js';
import { parseDiavgeia } from './parse.js';

export const DIAVGEIA_BASE_URL = 'https://diavgeia.gov.gr/opendata';

/** A Diavgeia module with non-default paging or windows (tests use small pages). */
export function createDiavgeiaSource(options: DiavgeiaFetchOptions = {}): SourceModule {
  return {
    name: 'diavgeia',
    defaultBaseUrl: DIAVGEIA_BASE_URL,
    // Pages of decisions and the organisation directory: a few MB.
    maxPageBytes: 16 * 2 ** 20,
    fetch: createDiavgeiaFetch(options),
    parse: (body) => parseDiavgeia(body),
    normalize: (record) => normalizeDiavgeia(record),
    // Decisions name their publisher by uid only: the directory gives its name and ΑΦΜ.
    prepare: async (ctx) => {
      const organizations = await loadOrganizations(ctx);
      return (record) => normalizeDiavgeia(record, organizations);
    },
  };
}

export const diavgeia: SourceModule = createDiavgeiaSource();
