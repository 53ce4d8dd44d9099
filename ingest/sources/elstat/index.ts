// ΕΛΣΤΑΤ: official statistics for Greece, taken from Eurostat's dissemination API (JSON-stat), one document
// Per indicator series release.
import type { SourceModule } from '../types.js';
import { fetchElstat } from './fetch.js';
import { normalizeElstat } from './normalize.js';
import { parseElstat } from './parse.js';
import type { ElstatOptions } from './types.js';

export function createElstatSource(options: ElstatOptions = {}): SourceModule {
  return {
    name: 'elstat',
    defaultBaseUrl: 'https://ec.europa.eu',
    // A whole Eurostat JSON-stat cube.
    maxPageBytes: 64 * 2 ** 20,
    fetch: (ctx) => fetchElstat(ctx, options),
    parse: parseElstat,
    normalize: normalizeElstat,
  };
}

export const elstat: SourceModule = createElstatSource();

export { DEFAULT_INDICATORS } from './types.js';
export type { ElstatCheckpoint, ElstatOptions, ElstatSeries, Indicator } from './types.js';
