// ΡΑΑΕΥ geoportal: energy licences and applications (photovoltaic, wind, hydro), one document per
// Licence and layer, with snapshot comparison standing in for the missing modification dates.
import type { SourceModule } from '../types.js';
import { fetchRae } from './fetch.js';
import { normalizeRae } from './normalize.js';
import { parseRae } from './parse.js';
import type { RaeOptions } from './types.js';

export function createRaeSource(options: RaeOptions = {}): SourceModule {
  return {
    name: 'rae',
    defaultBaseUrl: 'https://geo.rae.gr/geoserver/wfs',
    // A whole WFS layer as GeoJSON.
    maxPageBytes: 64 * 2 ** 20,
    fetch: (ctx) => fetchRae(ctx, options),
    parse: parseRae,
    normalize: normalizeRae,
  };
}

export const rae: SourceModule = createRaeSource();

export { diffSnapshots, hashFeature, snapshotOf } from './fetch.js';
export { DEFAULT_LAYERS, LAYERS } from './types.js';
export type { RaeCheckpoint, RaeOptions, RaeRecord, RaeSnapshot, SnapshotDiff } from './types.js';
