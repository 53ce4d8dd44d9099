// The registry of source modules: one per canonical source name.
import type { SourceName } from '../../index-mappings/sources.js';
import { data_gov_gr } from './data_gov_gr/index.js';
import { diavgeia } from './diavgeia/index.js';
import { elstat } from './elstat/index.js';
import { geodata } from './geodata/index.js';
import { kimdis } from './kimdis/index.js';
import { mitos } from './mitos/index.js';
import { rae } from './rae/index.js';
import { ted } from './ted/index.js';
import type { SourceModule } from './types.js';

export const SOURCE_MODULES: Record<SourceName, SourceModule> = {
  ted,
  diavgeia,
  elstat,
  rae,
  data_gov_gr,
  mitos,
  kimdis,
  geodata,
};
