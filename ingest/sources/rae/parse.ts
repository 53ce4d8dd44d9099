// A WFS GetFeature page with outputFormat=application/json is a GeoJSON FeatureCollection. GeoServer
// reports errors as an OWS ExceptionReport in XML (often with HTTP 200), or as `{"exceptions":[…]}`;
// both throw. The layer of a feature comes from the `layer=` content-type parameter the fetcher adds,
// else from GeoServer's feature id (`V_SDI_R_PHOTOVOLTAICS_ALL.1` → `V_SDI_R_PHOTOVOLTAICS_ALL`).
import { XMLParser } from 'fast-xml-parser';
import type { ParsedRecord } from '../types.js';
import type { RaeFeature, RaeFeatureCollection, RaeRecord } from './types.js';
import { parseJsonBody } from '../values.js';

/** `rae_status:V_SDI_R_PHOTOVOLTAICS11` → `V_SDI_R_PHOTOVOLTAICS11`. */
export function localLayerName(typeName: string): string {
  return typeName.includes(':') ? typeName.slice(typeName.lastIndexOf(':') + 1) : typeName;
}

export function withLayer(contentType: string, layer: string): string {
  const base = contentType.trim() === '' ? 'application/json' : contentType.trim();
  return `${base}; layer=${localLayerName(layer)}`;
}

export function layerFromContentType(contentType: string | undefined): string | null {
  if (!contentType) return null;
  for (const part of contentType.split(';').slice(1)) {
    const m = /^\s*layer\s*=\s*"?([A-Za-z0-9_:.-]+)"?\s*$/.exec(part);
    if (m) return localLayerName(m[1]);
  }
  return null;
}

export function layerFromFeatureId(id: unknown): string | null {
  if (typeof id !== 'string') return null;
  const dot = id.lastIndexOf('.');
  return dot > 0 ? localLayerName(id.slice(0, dot)) : null;
}

/** The licence number (`aa`, e.g. `Γ-07392`) identifying a feature in its layer; the feature id when absent. */
export function featureKey(feature: RaeFeature): string | null {
  const aa = feature.properties?.aa;
  if (typeof aa === 'string' && aa.trim() !== '') return aa.trim();
  if (typeof aa === 'number') return String(aa);
  return feature.id === undefined || feature.id === null || feature.id === '' ? null : `fid-${String(feature.id)}`;
}

function exceptionText(xml: string): string {
  let text = '';
  try {
    const doc = new XMLParser({ removeNSPrefix: true, ignoreAttributes: false, attributeNamePrefix: '@' }).parse(xml) as Record<string, unknown>;
    const report = doc.ExceptionReport as Record<string, unknown> | undefined;
    const exceptions = report ? ([] as unknown[]).concat(report.Exception ?? []) : [];
    text = exceptions
      .map((e) => {
        const ex = e as Record<string, unknown>;
        const t = ([] as unknown[])
          .concat(ex.ExceptionText ?? [])
          .map((x) => (typeof x === 'object' ? (x as { '#text'?: unknown })['#text'] : x))
          .join(' ');
        return [ex['@exceptionCode'], ex['@locator'], t].filter(Boolean).join(': ');
      })
      .join('; ');
    if (!report)
      text = `unexpected XML root ${Object.keys(doc)
        .filter((k) => k !== '?xml')
        .join(',')}`;
  } catch (err) {
    text = `unreadable XML (${(err as Error).message})`;
  }
  return text || 'ExceptionReport without text';
}

/** The FeatureCollection of a page; throws on an exception report or any other body. */
export function readFeatureCollection(body: string): RaeFeatureCollection {
  const trimmed = body.trimStart();
  if (trimmed.startsWith('<')) throw new Error(`rae: WFS exception: ${exceptionText(trimmed).slice(0, 300)}`);
  const fc = parseJsonBody('rae', body) as Partial<RaeFeatureCollection> & { exceptions?: Array<{ code?: string; text?: string }> };
  if (fc && Array.isArray(fc.exceptions)) {
    throw new Error(
      `rae: WFS exception: ${fc.exceptions
        .map((e) => [e.code, e.text].filter(Boolean).join(': '))
        .join('; ')
        .slice(0, 300)}`,
    );
  }
  if (!fc || fc.type !== 'FeatureCollection' || !Array.isArray(fc.features)) throw new Error('rae: expected a GeoJSON FeatureCollection');
  return fc as RaeFeatureCollection;
}

export function parseRae(body: string, contentType?: string): ParsedRecord[] {
  const fc = readFeatureCollection(body);
  const pageLayer = layerFromContentType(contentType);
  return fc.features
    .filter((f): f is RaeFeature => !!f && typeof f === 'object' && f.type === 'Feature')
    .map((feature) => {
      const record: RaeRecord = { layer: pageLayer ?? layerFromFeatureId(feature.id), feature };
      return { record, original: { body: Buffer.from(JSON.stringify(feature), 'utf8'), contentType: 'application/geo+json' } };
    });
}
