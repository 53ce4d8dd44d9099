// Two body shapes: `/services-extended/{id}` → `{"data":{…},"success":true}` (one procedure with its steps,
// conditions, evidences and legal basis), and `/services` → `{"data":[…],"next_page":…}` (title and
// last_updated only). The fetcher yields only the first kind; the second is accepted for replays.
import type { ParsedRecord } from '../types.js';
import type { MitosRecord, MitosServiceExtended, MitosServicesPage, MitosServiceSummary } from './types.js';
import { parseJsonObject } from '../values.js';

function hasId(v: unknown): v is { id: string | number } {
  return !!v && typeof v === 'object' && (typeof (v as { id?: unknown }).id === 'string' || typeof (v as { id?: unknown }).id === 'number');
}

function envelope(body: string): { data: unknown } & Record<string, unknown> {
  const env = parseJsonObject<{ data?: unknown; success?: unknown; message?: unknown; error?: unknown }>('mitos', body, 'a JSON object envelope');
  if (env.success === false) {
    throw new Error(`mitos: upstream reported failure: ${JSON.stringify(env.message ?? env.error ?? env).slice(0, 200)}`);
  }
  if (!('data' in env) || env.data === null || typeof env.data !== 'object') throw new Error('mitos: envelope has no data');
  return env as { data: unknown } & Record<string, unknown>;
}

/** The list page, for the fetcher: entries and the next page number (null at the end). */
export function parseServicesPage(body: string): { services: MitosServiceSummary[]; nextPage: number | null; total: number | null } {
  const env = envelope(body) as unknown as MitosServicesPage;
  if (!Array.isArray(env.data)) throw new Error('mitos: a /services page must carry a data array');
  const next = typeof env.next_page === 'number' && Number.isInteger(env.next_page) ? env.next_page : null;
  return { services: env.data.filter(hasId), nextPage: next, total: typeof env.total === 'number' ? env.total : null };
}

export function parseMitos(body: string, _contentType?: string): ParsedRecord[] {
  const env = envelope(body);
  const records: MitosRecord[] = Array.isArray(env.data)
    ? env.data.filter(hasId).map((service) => ({ kind: 'service_summary', service: service as MitosServiceSummary }))
    : hasId(env.data)
      ? [{ kind: 'service_extended', service: env.data as MitosServiceExtended }]
      : [];
  if (!Array.isArray(env.data) && records.length === 0) throw new Error('mitos: services-extended body has no service id');
  return records.map((record) => ({
    record,
    original: {
      // A details body holds exactly one record: keep it byte for byte.
      body: Buffer.from(record.kind === 'service_extended' ? body : JSON.stringify(record.service), 'utf8'),
      contentType: 'application/json',
    },
  }));
}
