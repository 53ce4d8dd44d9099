// A licence feature → one document with doc_category `licence` (monitoring maps RAE licence and status
// records to `permit_change`; `decision`/`sanction` are the categories kept for regulatory actions) and
// doc_type the layer's licence kind. The status (`katastash_descr`) and every other attribute are in the
// content, so a status change changes the content hash and the pipeline marks the document updated.
import type { NormalizedDocument } from '../../../index-mappings/document.js';
import { extractIdentifiers } from '../../../lib/identifiers.js';
import { qualityScore } from '../../quality.js';
import { MalformedRecordError } from '../types.js';
import { partyOf, partyList } from '../parties.js';
import { featureKey } from './parse.js';
import { LAYERS, UNKNOWN_LAYER, type RaeRecord } from './types.js';

export const WFS_URL = 'https://geo.rae.gr/geoserver/wfs';
export const LAYER_NAMESPACE = 'rae_status';

/** Properties shown with a label, in this order; any others follow as `name = value`. */
const LABELLED: Array<[string, string]> = [
  ['aa', 'Αριθμός μητρώου'],
  ['katastash_descr', 'Κατάσταση'],
  ['company', 'Εταιρεία'],
  ['thesh', 'Θέση'],
  ['kal_dhmos', 'Δήμος'],
  ['kal_dhm_enothta', 'Δημοτική ενότητα'],
  ['kal_perif_enothta', 'Περιφερειακή ενότητα'],
  ['kal_perifereia', 'Περιφέρεια'],
  ['power_mw', 'Ισχύς (MW)'],
  ['imerominia', 'Ημερομηνία'],
  ['imerominia_ekdosis_adeias', 'Ημερομηνία έκδοσης άδειας'],
];

function str(v: unknown): string {
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return String(v);
  return '';
}

/** GeoServer writes dates as `2019-03-12`, `2019-03-12Z` or `2019-03-12T00:00:00Z` (or epoch ms). → ISO UTC. */
export function raeDateToIso(v: unknown): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) {
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? null : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  if (typeof v !== 'string') return null;
  const s = v.trim();
  const dateOnly = /^(\d{4}-\d{2}-\d{2})Z?$/.exec(s);
  if (dateOnly) return Number.isNaN(new Date(`${dateOnly[1]}T00:00:00Z`).getTime()) ? null : `${dateOnly[1]}T00:00:00Z`;
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/.exec(s);
  if (!m) return null;
  const zone = !m[3] || m[3] === 'Z' ? 'Z' : m[3].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
  const d = new Date(`${m[1]}T${m[2].length === 5 ? `${m[2]}:00` : m[2]}${zone}`);
  return Number.isNaN(d.getTime()) ? null : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function displayValue(key: string, v: unknown): string {
  const s = str(v);
  if (key === 'kal_dhmos')
    return s
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)
      .join(', ');
  if (key.startsWith('imerominia')) return raeDateToIso(v)?.slice(0, 10) ?? s;
  return s;
}

/** A link that returns this licence's current record from the WFS (GeoServer's CQL_FILTER on `aa`). */
export function featureUrl(layer: string, aa: string | null, fid: string | null): string {
  const url = new URL(WFS_URL);
  url.searchParams.set('service', 'WFS');
  url.searchParams.set('version', '2.0.0');
  url.searchParams.set('request', 'GetFeature');
  url.searchParams.set('typeNames', `${LAYER_NAMESPACE}:${layer}`);
  url.searchParams.set('outputFormat', 'application/json');
  if (aa) url.searchParams.set('CQL_FILTER', `aa='${aa.replace(/'/g, "''")}'`);
  else if (fid) url.searchParams.set('featureID', fid);
  return url.toString();
}

export function normalizeRae(input: unknown): NormalizedDocument {
  const rec = input as Partial<RaeRecord> | null;
  if (!rec || !rec.feature || typeof rec.feature !== 'object') throw new MalformedRecordError('rae: not a feature record');
  const { feature } = rec;
  const layer = rec.layer;
  if (!layer) throw new MalformedRecordError(`rae: feature ${String(feature.id)} has no layer`);
  const props = feature.properties ?? {};
  const key = featureKey(feature);
  if (!key) throw new MalformedRecordError(`rae: feature in ${layer} has neither aa nor id`);
  const info = LAYERS[layer] ?? UNKNOWN_LAYER;
  const aa = str(props.aa) || null;

  const published = raeDateToIso(props.imerominia_ekdosis_adeias) ?? raeDateToIso(props.imerominia);
  if (!published) throw new MalformedRecordError(`rae: ${layer} ${key} has neither imerominia_ekdosis_adeias nor imerominia`);

  const company = str(props.company);
  const place = str(props.thesh);
  const power = str(props.power_mw);
  const status = str(props.katastash_descr);
  const region = str(props.kal_perifereia) || null;

  const headline = [company, place, power ? `${power} MW` : ''].filter(Boolean).join(' — ');
  const title = headline || `${info.technology}: ${info.kindLabel} ${key}`;

  const known = new Set(LABELLED.map(([k]) => k));
  const lines = [
    title,
    `${info.technology} · ${info.kindLabel}`,
    ...LABELLED.map(([k, label]) => [label, displayValue(k, props[k])] as const)
      .filter(([, v]) => v !== '')
      .map(([label, v]) => `${label}: ${v}`),
    ...Object.entries(props)
      .filter(([k, v]) => !known.has(k) && str(v) !== '')
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k} = ${str(v)}`),
    `Επίπεδο ΡΑΑΕΥ: ${layer}`,
  ];
  const content = lines.join('\n');
  const found = extractIdentifiers(content);

  const doc: Omit<NormalizedDocument, 'quality_score'> = {
    source_id: `rae:${layer}:${key}`,
    source: 'rae',
    country: 'GR',
    title,
    doc_type: info.kind,
    doc_category: 'licence',
    published_at: published,
    source_url: featureUrl(layer, aa, typeof feature.id === 'string' ? feature.id : null),
    language: 'el',
    content,
    summary: [
      `${info.technology}, ${info.kindLabel.toLowerCase()} ${key}`,
      company,
      status ? `κατάσταση: ${status}` : '',
      power ? `${power} MW` : '',
      region ?? '',
    ]
      .filter(Boolean)
      .join(' · '),
    entities: { afm: found.afm, ada: found.ada, names: company ? [company] : [] },
    parties: partyList([partyOf('holder', company, null)]),
    procedure_type: null,
    tenders_received: null,
    act_date: null,
    amount: null,
    cpv: [],
    region,
    sector: 'energy',
  };
  return { ...doc, quality_score: qualityScore(doc) };
}
