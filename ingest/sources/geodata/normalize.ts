// A CKAN dataset → one `dataset` document: description, publisher, tags and the formats on offer
// (WMS, WFS, GeoJSON, SHP…), so a search for "shapefile δήμων" or an organisation name finds it.
import type { NormalizedDocument } from '../../../index-mappings/document.js';
import { extractIdentifiers } from '../../../lib/identifiers.js';
import { qualityScore } from '../../quality.js';
import { MalformedRecordError } from '../types.js';
import { partyLines, partyList, partyOf } from '../parties.js';
import type { CkanDataset } from './types.js';

/**
 * CKAN timestamps (`2016-05-10T09:17:08.620345`) are UTC without a zone; → `2016-05-10T09:17:08Z`.
 * Also accepts a trailing `Z` or offset. Null when unreadable.
 */
export function ckanTimeToIso(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/.exec(v.trim());
  if (!m) return /^\d{4}-\d{2}-\d{2}$/.test(v.trim()) ? `${v.trim()}T00:00:00Z` : null;
  const zone = !m[3] || m[3] === 'Z' ? 'Z' : m[3].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
  const d = new Date(`${m[1]}T${m[2]}${zone}`);
  return Number.isNaN(d.getTime()) ? null : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function clean(s: unknown): string {
  return typeof s === 'string'
    ? s
        .replace(/\r\n?/g, '\n')
        .replace(/[ \t]+/g, ' ')
        .trim()
    : '';
}

function unique(items: string[]): string[] {
  return [...new Set(items.filter(Boolean))];
}

export function normalizeGeodata(input: unknown): NormalizedDocument {
  const ds = input as CkanDataset | null;
  if (!ds || typeof ds !== 'object') throw new MalformedRecordError('geodata: not a CKAN dataset');
  const key = clean(ds.id) || clean(ds.name);
  if (!key) throw new MalformedRecordError('geodata: dataset has neither id nor name');
  const name = clean(ds.name);
  const title = clean(ds.title) || name;
  if (!title) throw new MalformedRecordError(`geodata: dataset ${key} has no title`);
  const published = ckanTimeToIso(ds.metadata_modified) ?? ckanTimeToIso(ds.metadata_created);
  if (!published) throw new MalformedRecordError(`geodata: dataset ${key} has no usable metadata_modified`);

  const org = clean(ds.organization?.title) || clean(ds.organization?.name);
  const notes = clean(ds.notes);
  const tags = unique((ds.tags ?? []).map((t) => clean(t?.display_name) || clean(t?.name)));
  const groups = unique((ds.groups ?? []).map((g) => clean(g?.title) || clean(g?.display_name) || clean(g?.name)));
  const resources = (ds.resources ?? []).filter((r) => r && typeof r === 'object');
  const formats = unique(resources.map((r) => clean(r.format).toUpperCase()));
  const license = clean(ds.license_title) || clean(ds.license_id);

  const parties = partyList([partyOf('issuer', org, null)]);
  const lines = [
    title,
    ...partyLines(parties, 'el'),
    ...(notes ? ['', notes, ''] : []),
    ...(tags.length ? [`Ετικέτες: ${tags.join(', ')}`] : []),
    ...(groups.length ? [`Θεματικές ενότητες: ${groups.join(', ')}`] : []),
    ...(formats.length ? [`Μορφές: ${formats.join(', ')}`] : []),
    ...(license ? [`Άδεια χρήσης: ${license}`] : []),
    ...(resources.length ? ['Πόροι:'] : []),
    ...resources.map((r) => `- ${[clean(r.name) || clean(r.id), clean(r.format) ? `(${clean(r.format)})` : '', clean(r.url)].filter(Boolean).join(' ')}`),
  ];
  const content = lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const found = extractIdentifiers(content);
  const flat = notes.replace(/\s+/g, ' ');

  const doc: Omit<NormalizedDocument, 'quality_score'> = {
    source_id: `geodata:${key}`,
    source: 'geodata',
    country: 'GR',
    title,
    doc_type: 'dataset',
    doc_category: 'geospatial',
    published_at: published,
    source_url: `https://geodata.gov.gr/dataset/${encodeURIComponent(name || key)}`,
    // Most titles are Greek; a few publishers catalogue in English only.
    language: /[\u0370-\u03ff\u1f00-\u1fff]/.test(`${title} ${notes}`) ? 'el' : 'en',
    content,
    summary: flat.length > 300 ? `${flat.slice(0, 300).replace(/\s+\S*$/, '')}…` : flat || title,
    entities: { afm: found.afm, ada: found.ada, names: org ? [org] : [] },
    parties,
    procedure_type: null,
    tenders_received: null,
    act_date: null,
    amount: null,
    cpv: [],
    region: null,
    // CKAN groups are free Greek text, not the sector slugs the alert filters match; they stay in the content.
    sector: null,
  };
  return { ...doc, quality_score: qualityScore(doc) };
}
