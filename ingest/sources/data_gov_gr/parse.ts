// A data.gov.gr body is a bare JSON array that does not say which dataset it belongs to. The fetcher
// therefore tags each page's content type with a media-type parameter (`application/json; dataset=mdg_emvolio`),
// leaving the body byte-exact; `--from DIR` replays get the same tag from the file name
// (`mdg_emvolio.json`, `mdg_emvolio-2021-04-22.json`, see contentTypeForFile). A body with no tag is
// recognised by the field signature of a known dataset, else refused.
import path from 'node:path';
import type { ParsedRecord } from '../types.js';
import { PROFILES, profileFor, type DataGovGrRecord, type DataGovGrRow } from './types.js';
import { parseJsonBody } from '../values.js';

/** The media-type parameter carrying the dataset name. */
export function withDataset(contentType: string, dataset: string): string {
  const base = contentType.trim() === '' ? 'application/json' : contentType.trim();
  return `${base}; dataset=${dataset}`;
}

/** The `dataset=` parameter of a content type, or null. */
export function datasetFromContentType(contentType: string | undefined): string | null {
  if (!contentType) return null;
  for (const part of contentType.split(';').slice(1)) {
    const m = /^\s*dataset\s*=\s*"?([A-Za-z0-9_.-]+)"?\s*$/.exec(part);
    if (m) return m[1];
  }
  return null;
}

/**
 * The dataset a saved body belongs to, from its file name: `mdg_emvolio.json`,
 * `mdg_emvolio-2021-04-22.json`, `mdg_emvolio_2021-04-22_2021-05-21.json`. Null when the name is empty.
 */
export function datasetFromFileName(fileName: string): string | null {
  const base = path.basename(fileName).replace(/\.json$/i, '');
  const name = base.replace(/[-_.]\d{4}-\d{2}-\d{2}.*$/, '');
  return /^[A-Za-z0-9_.-]+$/.test(name) ? name : null;
}

/** The content type to hand parse() for a saved body in `pdi ingest data_gov_gr --from DIR`. */
export function contentTypeForFile(fileName: string): string {
  const dataset = datasetFromFileName(fileName);
  return dataset ? withDataset('application/json', dataset) : 'application/json';
}

/** The known dataset whose signature fields all appear in the rows' first row, or null. */
export function detectDataset(rows: DataGovGrRow[]): string | null {
  const keys = new Set(Object.keys(rows[0] ?? {}));
  const hits = Object.values(PROFILES).filter((p) => p.signature.length > 0 && p.signature.every((k) => keys.has(k)));
  return hits.length === 1 ? hits[0].name : null;
}

/** The reference period of a row: `YYYY-MM-DD` for daily datasets, `YYYY` for yearly ones. */
export function periodOf(row: DataGovGrRow, dateField: string, granularity: 'day' | 'year'): string | null {
  if (!dateField) return null;
  const v = row[dateField];
  if (granularity === 'year') {
    const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
    const m = /^(\d{4})/.exec(s);
    return m ? m[1] : null;
  }
  if (typeof v !== 'string') return null;
  const m = /^(\d{4}-\d{2}-\d{2})/.exec(v.trim());
  return m ? m[1] : null;
}

/**
 * Splits a body into one record per dataset and reference period. Throws on invalid JSON, on an error
 * body (an object such as `{"type":["Το xml δεν είναι έγκυρη επιλογή."]}` or `{"detail":"…"}`), on
 * non-object rows, and on rows whose dataset cannot be told.
 */
export function parseDataGovGr(body: string, contentType?: string): ParsedRecord[] {
  const data = parseJsonBody('data_gov_gr', body);
  if (!Array.isArray(data)) {
    throw new Error(`data_gov_gr: expected a JSON array, got an error or unknown body: ${JSON.stringify(data).slice(0, 200)}`);
  }
  const rows = data as unknown[];
  if (rows.some((r) => r === null || typeof r !== 'object' || Array.isArray(r))) {
    throw new Error('data_gov_gr: every element of the array must be an object');
  }
  if (rows.length === 0) return [];
  const typed = rows as DataGovGrRow[];
  const tagged = datasetFromContentType(contentType);
  const detected = tagged !== null && Object.hasOwn(PROFILES, tagged) ? null : detectDataset(typed);
  // An unknown tag on rows of a known dataset is a file named for another one, not a new dataset.
  if (tagged !== null && detected !== null) {
    throw new Error(`data_gov_gr: the rows are those of ${detected}, but the body is tagged ${tagged} (a saved file named for another dataset?)`);
  }
  const dataset = tagged ?? detected;
  if (!dataset) {
    throw new Error('data_gov_gr: cannot tell which dataset this body belongs to; pass it as `dataset=` in the content type or in the file name');
  }
  const profile = profileFor(dataset, typed);
  const groups = new Map<string, DataGovGrRow[]>();
  const undated: DataGovGrRow[] = [];
  for (const row of typed) {
    const period = periodOf(row, profile.dateField, profile.granularity);
    if (period === null) undated.push(row);
    else if (groups.has(period)) groups.get(period)!.push(row);
    else groups.set(period, [row]);
  }
  const records: DataGovGrRecord[] = [...groups.keys()].sort().map((period) => ({
    dataset,
    period,
    granularity: profile.granularity,
    rows: groups.get(period)!,
  }));
  // Kept so that normalize() reports them (MalformedRecordError) instead of dropping them silently.
  if (undated.length > 0) records.push({ dataset, period: null, granularity: profile.granularity, rows: undated });
  return records.map((record) => ({
    record,
    original: { body: Buffer.from(JSON.stringify(record.rows), 'utf8'), contentType: 'application/json' },
  }));
}
