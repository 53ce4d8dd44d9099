// An export's rows as GET /v1/export writes them: NDJSON (one JSON object a line: the metadata record,
// parties, amount, CPV codes, procedure, tenders received, region) or flat CSV (RFC 4180, CRLF, a UTF-8
// byte order mark so that a spreadsheet reads the Greek; parties flattened to the buyers' and suppliers'
// names and ΑΦΜs, several joined by "; ").
import { METADATA_FIELDS, metadataOf } from '../../index-mappings/document.js';
import type { ExportRow } from '../../lib/search/provider.js';

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const CONTENT_TYPES: Record<ExportFormat, string> = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson' };

export const CSV_COLUMNS = [
  ...METADATA_FIELDS,
  'buyer_names',
  'buyer_afms',
  'supplier_names',
  'supplier_afms',
  'amount',
  'currency',
  'cpv',
  'procedure_type',
  'tenders_received',
  'region',
] as const;

const JOIN = '; ';
/** Text a spreadsheet would run as a formula (OWASP "CSV injection"): such a cell is written after a `'`. */
const FORMULA = /^[=+\-@\t\r]/;

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The byte order mark and the header line. */
export function csvHeader(): string {
  return `\uFEFF${CSV_COLUMNS.join(',')}\r\n`;
}

export function csvLine(row: ExportRow): string {
  const parties = (role: 'buyer' | 'supplier', field: 'name' | 'afm') =>
    (row.parties ?? [])
      .filter((p) => p.role === role)
      .map((p) => p[field] ?? '')
      .join(JOIN);
  const values: Record<(typeof CSV_COLUMNS)[number], unknown> = {
    ...(metadataOf(row) as Record<(typeof METADATA_FIELDS)[number], unknown>),
    buyer_names: parties('buyer', 'name'),
    buyer_afms: parties('buyer', 'afm'),
    supplier_names: parties('supplier', 'name'),
    supplier_afms: parties('supplier', 'afm'),
    amount: row.amount?.value,
    currency: row.amount?.currency,
    cpv: (row.cpv ?? []).join(JOIN),
    procedure_type: row.procedure_type,
    tenders_received: row.tenders_received,
    region: row.region,
  };
  return `${CSV_COLUMNS.map((c) => cell(values[c])).join(',')}\r\n`;
}

export function ndjsonLine(row: ExportRow): string {
  return `${JSON.stringify({
    ...metadataOf(row),
    parties: row.parties ?? [],
    amount: row.amount ?? null,
    cpv: row.cpv ?? [],
    procedure_type: row.procedure_type ?? null,
    tenders_received: row.tenders_received ?? null,
    region: row.region ?? null,
  })}\n`;
}
