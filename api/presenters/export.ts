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
  // Added to the metadata record, not spread (ndjsonLine).
  const values = metadataOf(row) as Record<(typeof CSV_COLUMNS)[number], unknown>;
  values.buyer_names = parties('buyer', 'name');
  values.buyer_afms = parties('buyer', 'afm');
  values.supplier_names = parties('supplier', 'name');
  values.supplier_afms = parties('supplier', 'afm');
  values.amount = row.amount?.value;
  values.currency = row.amount?.currency;
  values.cpv = (row.cpv ?? []).join(JOIN);
  values.procedure_type = row.procedure_type;
  values.tenders_received = row.tenders_received;
  values.region = row.region;
  return `${CSV_COLUMNS.map((c) => cell(values[c])).join(',')}\r\n`;
}

export function ndjsonLine(row: ExportRow): string {
  // Fields added to the metadata record, not the record spread into a new object: that object's garbage
  // outlived V8's young generation (242 MB over an export of 100,000 documents, freed only by a full
  // collection; 2 MB so).
  const line = metadataOf(row);
  line.parties = row.parties ?? [];
  line.amount = row.amount ?? null;
  line.cpv = row.cpv ?? [];
  line.procedure_type = row.procedure_type ?? null;
  line.tenders_received = row.tenders_received ?? null;
  line.region = row.region ?? null;
  return `${JSON.stringify(line)}\n`;
}
