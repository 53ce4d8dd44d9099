// CKAN action envelopes: a `package_search` page yields one record per dataset; a `package_show` body
// yields its one dataset. `success:false` (CKAN's error envelope) and bodies that are not JSON throw.
import type { ParsedRecord } from '../types.js';
import type { CkanDataset, CkanEnvelope } from './types.js';
import { parseJsonObject } from '../values.js';

export interface CkanSearchPage {
  count: number;
  /** Every entry as sent: the offset moves by these, and normalize refuses (and counts) the unusable. */
  results: unknown[];
}

export function isDataset(v: unknown): v is CkanDataset {
  return !!v && typeof v === 'object' && !Array.isArray(v) && (typeof (v as CkanDataset).id === 'string' || typeof (v as CkanDataset).name === 'string');
}

function readEnvelope(body: string): CkanEnvelope {
  const env = parseJsonObject<CkanEnvelope>('geodata', body, 'a CKAN envelope object');
  if (env.success !== true) {
    const msg = env.error ? `${env.error.__type ?? 'Error'}: ${env.error.message ?? JSON.stringify(env.error)}` : 'success is not true';
    throw new Error(`geodata: CKAN reported failure (${msg.slice(0, 200)})`);
  }
  if (!env.result || typeof env.result !== 'object') throw new Error('geodata: CKAN envelope has no result');
  return env;
}

/** The search page, for the fetcher. */
export function parseSearchPage(body: string): CkanSearchPage {
  const env = readEnvelope(body);
  const result = env.result as { count?: unknown; results?: unknown };
  if (!Array.isArray(result.results) || typeof result.count !== 'number') {
    throw new Error('geodata: package_search result must carry count and results');
  }
  return { count: result.count, results: result.results };
}

export function parseGeodata(body: string, _contentType?: string): ParsedRecord[] {
  const env = readEnvelope(body);
  const result = env.result as { results?: unknown };
  const datasets: unknown[] = Array.isArray(result.results) ? result.results : isDataset(env.result) ? [env.result] : [];
  if (!Array.isArray(result.results) && datasets.length === 0) throw new Error('geodata: result is neither a search page nor a dataset');
  return datasets.map((record) => ({
    record,
    original: { body: Buffer.from(JSON.stringify(record), 'utf8'), contentType: 'application/json' },
  }));
}
