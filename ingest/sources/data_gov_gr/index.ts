// Data.gov.gr: open datasets of Greek public bodies, one document per dataset and reference period.
import type { SourceModule } from '../types.js';
import { fetchDataGovGr } from './fetch.js';
import { normalizeDataGovGr } from './normalize.js';
import { contentTypeForFile, parseDataGovGr } from './parse.js';
import type { DataGovGrOptions } from './types.js';

export function createDataGovGrSource(options: DataGovGrOptions = {}): SourceModule {
  return {
    name: 'data_gov_gr',
    defaultBaseUrl: 'https://data.gov.gr',
    // A dataset for a span of days, as one array.
    maxPageBytes: 32 * 2 ** 20,
    fetch: (ctx) => fetchDataGovGr(ctx, options),
    parse: parseDataGovGr,
    normalize: normalizeDataGovGr,
    // `pdi ingest data_gov_gr --from DIR`: `mdg_emvolio-2021-04-22.json` → `application/json; dataset=mdg_emvolio`.
    replayContentType: contentTypeForFile,
  };
}

export const data_gov_gr: SourceModule = createDataGovGrSource();

export { contentTypeForFile, datasetFromFileName, withDataset } from './parse.js';
export { DEFAULT_DATASETS, PROFILES } from './types.js';
export type { DataGovGrOptions, DataGovGrRecord, DataGovGrCheckpoint } from './types.js';
