// Geodata.gov.gr: the CKAN catalogue of Greek geospatial datasets, one document per dataset.
import type { SourceModule } from '../types.js';
import { fetchGeodata } from './fetch.js';
import { normalizeGeodata } from './normalize.js';
import { parseGeodata } from './parse.js';
import type { GeodataOptions } from './types.js';

export function createGeodataSource(options: GeodataOptions = {}): SourceModule {
  return {
    name: 'geodata',
    defaultBaseUrl: 'https://geodata.gov.gr',
    // CKAN package_search pages: ~200 KB.
    maxPageBytes: 16 * 2 ** 20,
    fetch: (ctx) => fetchGeodata(ctx, options),
    parse: parseGeodata,
    normalize: normalizeGeodata,
  };
}

export const geodata: SourceModule = createGeodataSource();

export type { CkanDataset, GeodataCheckpoint, GeodataOptions } from './types.js';
