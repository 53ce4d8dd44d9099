// ΜΙΤΟΣ: administrative procedures (steps, documents, fees, legal basis), one document per procedure.
import type { SourceModule } from '../types.js';
import { fetchMitos } from './fetch.js';
import { normalizeMitos } from './normalize.js';
import { parseMitos } from './parse.js';
import type { MitosOptions } from './types.js';

export function createMitosSource(options: MitosOptions = {}): SourceModule {
  return {
    name: 'mitos',
    defaultBaseUrl: 'https://api.digigov.grnet.gr/v1',
    // Pages of services.
    maxPageBytes: 16 * 2 ** 20,
    fetch: (ctx) => fetchMitos(ctx, options),
    parse: parseMitos,
    normalize: normalizeMitos,
  };
}

export const mitos: SourceModule = createMitosSource();

export type { MitosCheckpoint, MitosOptions, MitosRecord } from './types.js';
