// A series for Greece → one `statistical_series` document per indicator release: the latest periods as a
// readable table, the latest value in the summary. source_id `elstat:<dataset>:<series key>`, the key being
// the codes of every non-time dimension in order (SDMX style, e.g. `A.CP_MEUR.B1GQ.EL`); the document is
// overwritten by each new release. The update stamp is published_at, not content, so the content hash changes
// only when the figures or their flags do (Eurostat restamps datasets for structural changes too).
import type { NormalizedDocument } from '../../../index-mappings/document.js';
import { qualityScore } from '../../quality.js';
import { MalformedRecordError } from '../types.js';
import { SECTORS, type ElstatSeries, type Observation } from './types.js';

/** Periods shown in the content table. */
export const LATEST_PERIODS = 24;

/** Start of a Eurostat period (`2012`, `2024-03`, `2024M03`, `2024-Q1`, `2024Q1`, `2024-S1`) as ISO UTC. */
export function periodStart(period: string): string | null {
  let m = /^(\d{4})$/.exec(period);
  if (m) return `${m[1]}-01-01T00:00:00Z`;
  m = /^(\d{4})-?M?(\d{2})$/.exec(period);
  if (m && Number(m[2]) >= 1 && Number(m[2]) <= 12) return `${m[1]}-${m[2]}-01T00:00:00Z`;
  m = /^(\d{4})-?Q([1-4])$/.exec(period);
  if (m) return `${m[1]}-${String((Number(m[2]) - 1) * 3 + 1).padStart(2, '0')}-01T00:00:00Z`;
  m = /^(\d{4})-?S([12])$/.exec(period);
  if (m) return `${m[1]}-${m[2] === '1' ? '01' : '07'}-01T00:00:00Z`;
  m = /^(\d{4}-\d{2}-\d{2})$/.exec(period);
  if (m) return `${m[1]}T00:00:00Z`;
  return null;
}

function isSeries(v: unknown): v is ElstatSeries {
  const s = v as Partial<ElstatSeries> | null;
  return !!s && typeof s.dataset === 'string' && Array.isArray(s.dimensions) && Array.isArray(s.observations);
}

function cell(o: Observation, labels: Record<string, string>): { value: string; status: string } {
  return {
    value: o.value === null ? ':' : String(o.value),
    status: o.status ? `${o.status}${labels[o.status] ? ` (${labels[o.status]})` : ''}` : '',
  };
}

export function normalizeElstat(input: unknown): NormalizedDocument {
  if (!isSeries(input)) throw new MalformedRecordError('elstat: not a series record');
  const s = input;
  if (!/^[a-z0-9_$.-]+$/i.test(s.dataset)) throw new MalformedRecordError(`elstat: dataset code ${s.dataset} is not usable`);
  // Trailing periods with neither value nor flag are positions the cube reserves, not data.
  let end = s.observations.length;
  while (end > 0 && s.observations[end - 1].value === null && s.observations[end - 1].status === null) end--;
  const shown = s.observations.slice(Math.max(0, end - LATEST_PERIODS), end);
  if (shown.length === 0) throw new MalformedRecordError(`elstat: ${s.dataset} series has no observations`);
  const latest = [...shown].reverse().find((o) => o.value !== null) ?? null;

  const seriesKey = s.dimensions.map((d) => d.code).join('.');
  const geo = s.dimensions.find((d) => d.id === 'geo');
  const place = geo?.codeLabel && geo.codeLabel !== geo.code ? geo.codeLabel : 'Greece';
  const describing = s.dimensions.filter((d) => d.id !== 'geo' && d.id !== 'freq').map((d) => d.codeLabel);
  const unit = s.dimensions.find((d) => d.id === 'unit')?.codeLabel ?? '';
  const title = `${s.label}${describing.length ? `: ${describing.join(', ')}` : ''} — ${place}`;

  const published = s.updated ?? periodStart(shown[shown.length - 1].period);
  if (!published) throw new MalformedRecordError(`elstat: ${s.dataset} has neither an update time nor a readable period`);

  const lines = [
    title,
    `Source: Eurostat dissemination API (${s.format === 'json-stat-2.0' ? 'JSON-stat 2.0' : 'legacy JSON-stat 1.x'}), dataset ${s.dataset}, series ${seriesKey}; official statistics for Greece compiled by ELSTAT.`,
    'Dimensions:',
    ...s.dimensions.map((d) => `- ${d.label === d.id ? d.id : `${d.label} (${d.id})`}: ${d.code}${d.codeLabel !== d.code ? ` — ${d.codeLabel}` : ''}`),
    ...(latest ? [`Latest value: ${latest.period} = ${latest.value}${unit ? ` (${unit})` : ''}`] : []),
    '',
    'Period | Value | Status',
    ...shown.map((o) => {
      const c = cell(o, s.statusLabels);
      return `${o.period} | ${c.value} | ${c.status}`.trimEnd();
    }),
  ];
  const content = lines.join('\n');
  const summary = latest
    ? `${place}, ${describing.join(', ') || s.label}: ${latest.value}${unit ? ` ${unit}` : ''} in ${latest.period} (Eurostat ${s.dataset}).`
    : `${place}, ${describing.join(', ') || s.label}: no value published for ${shown[0].period}–${shown[shown.length - 1].period} (Eurostat ${s.dataset}).`;

  const doc: Omit<NormalizedDocument, 'quality_score'> = {
    source_id: `elstat:${s.dataset}:${seriesKey}`,
    source: 'elstat',
    country: 'GR',
    title,
    doc_type: 'statistical_series',
    doc_category: 'statistics',
    published_at: published,
    source_url: `https://ec.europa.eu/eurostat/databrowser/view/${encodeURIComponent(s.dataset)}/default/table?lang=en`,
    language: 'en',
    content,
    summary,
    // Statistics name no companies or decisions; leaving these empty keeps them out of entity matches.
    entities: { afm: [], ada: [], names: [] },
    parties: [],
    procedure_type: null,
    tenders_received: null,
    act_date: null,
    amount: null,
    cpv: [],
    region: null,
    sector: SECTORS.find(([re]) => re.test(s.dataset))?.[1] ?? null,
  };
  return { ...doc, quality_score: qualityScore(doc) };
}
