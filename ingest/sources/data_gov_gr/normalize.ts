// One record (a dataset's rows for one day or year) → one document. A single numeric row (one area on one
// day) is not something anyone searches for; the day's release of the dataset is. So the document is the
// period: a title naming dataset and period, totals of the summable fields, then every row as a readable line.
import type { NormalizedDocument } from '../../../index-mappings/document.js';
import { extractIdentifiers } from '../../../lib/identifiers.js';
import { qualityScore } from '../../quality.js';
import { MalformedRecordError } from '../types.js';
import { profileFor, type DataGovGrRecord, type DataGovGrRow } from './types.js';

/** Rows listed in full in the content; the stored original keeps them all. */
export const MAX_LISTED_ROWS = 500;

function isRecord(v: unknown): v is DataGovGrRecord {
  if (!v || typeof v !== 'object') return false;
  const r = v as Partial<DataGovGrRecord>;
  return typeof r.dataset === 'string' && Array.isArray(r.rows);
}

function formatValue(v: unknown): string {
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** Sums without float noise (0.1 + 0.2 → 0.3). */
function roundSum(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

function rowLine(row: DataGovGrRow, labelFields: string[], dateField: string, period: string): string {
  const label = labelFields
    .map((k) => row[k])
    .filter((v) => v !== null && v !== undefined && v !== '')
    .map(formatValue)
    .join(' → ');
  const fields = Object.entries(row)
    .filter(([k, v]) => v !== null && v !== undefined && v !== '' && !labelFields.includes(k))
    // The reference date is in the title; keep it only when it says more (a time of day).
    .filter(([k, v]) => !(k === dateField && (String(v) === period || String(v) === `${period}T00:00:00`)))
    .map(([k, v]) => `${k} = ${formatValue(v)}`)
    .join(' · ');
  return label ? `- ${label}: ${fields}` : `- ${fields}`;
}

export function normalizeDataGovGr(input: unknown): NormalizedDocument {
  if (!isRecord(input)) throw new MalformedRecordError('data_gov_gr: not a dataset period record');
  const { dataset, period, rows } = input;
  if (period === null) {
    throw new MalformedRecordError(`data_gov_gr: ${rows.length} row(s) of ${dataset} carry no usable reference date`);
  }
  if (rows.length === 0) throw new MalformedRecordError(`data_gov_gr: ${dataset} ${period} has no rows`);
  const profile = profileFor(dataset, rows);

  const totals = profile.sumFields
    .map((field) => {
      const values = rows.map((r) => r[field]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
      return values.length > 0 ? ([field, roundSum(values.reduce((a, b) => a + b, 0))] as const) : null;
    })
    .filter((t): t is readonly [string, number] => t !== null);
  const totalsText = totals.map(([k, v]) => `${k} = ${v}`).join(' · ');

  const title = `${profile.title} — ${period}`;
  const listed = rows.slice(0, MAX_LISTED_ROWS).map((r) => rowLine(r, profile.labelFields, profile.dateField, period));
  const lines = [
    title,
    `Σύνολο δεδομένων data.gov.gr: ${dataset} · περίοδος αναφοράς ${period} · ${rows.length} ${rows.length === 1 ? 'εγγραφή' : 'εγγραφές'}`,
    ...(totals.length > 0 ? [`Σύνολα: ${totalsText}`] : []),
    'Εγγραφές:',
    ...listed,
    ...(rows.length > MAX_LISTED_ROWS ? [`… και ${rows.length - MAX_LISTED_ROWS} ακόμη εγγραφές`] : []),
  ];
  const content = lines.join('\n');
  const summary =
    totals.length > 0
      ? `${profile.title}, ${period}: ${rows.length} ${rows.length === 1 ? 'εγγραφή' : 'εγγραφές'}; σύνολα ${totalsText}.`
      : `${profile.title}, ${period}: ${rows.length} ${rows.length === 1 ? 'εγγραφή' : 'εγγραφές'}.`;
  const ids = extractIdentifiers(content);

  const doc: Omit<NormalizedDocument, 'quality_score'> = {
    source_id: `data_gov_gr:${dataset}:${period}`,
    source: 'data_gov_gr',
    country: 'GR',
    title,
    doc_type: 'dataset_release',
    doc_category: 'open_data',
    // The API gives no publication time; the reference period is the date the data speak for.
    published_at: input.granularity === 'year' ? `${period}-01-01T00:00:00Z` : `${period}T00:00:00Z`,
    source_url: `https://data.gov.gr/datasets/${encodeURIComponent(dataset)}/`,
    language: 'el',
    content,
    summary,
    entities: { afm: ids.afm, ada: ids.ada, names: [] },
    parties: [],
    procedure_type: null,
    tenders_received: null,
    act_date: null,
    amount: null,
    cpv: [],
    region: null,
    sector: profile.sector,
  };
  return { ...doc, quality_score: qualityScore(doc) };
}
