// JSON-stat cube → one record per series for Greece (geo `EL`): every dimension fixed except time.
// Values are row-major over `size` with the last dimension fastest; `value` and `status` may be dense
// arrays or sparse objects keyed by the flat index (Eurostat sends sparse objects).
import type { ParsedRecord } from '../types.js';
import type { ElstatSeries, Observation, SeriesDimension } from './types.js';
import { parseJsonObject } from '../values.js';

const GREECE = ['EL', 'GR'];

interface Category {
  index?: Record<string, number> | string[];
  label?: Record<string, string>;
}
interface Dimension {
  label?: string;
  category?: Category;
}
interface Cube {
  code: string;
  label: string;
  format: ElstatSeries['format'];
  updated: string | null;
  id: string[];
  size: number[];
  role: { time?: string[]; geo?: string[] };
  dimension: Record<string, Dimension>;
  value: unknown;
  status: unknown;
  statusLabels: Record<string, string>;
}

export function withDataset(contentType: string, dataset: string): string {
  const base = contentType.trim() === '' ? 'application/json' : contentType.trim();
  return `${base}; dataset=${dataset}`;
}

function datasetFromContentType(contentType: string | undefined): string | null {
  for (const part of (contentType ?? '').split(';').slice(1)) {
    const m = /^\s*dataset\s*=\s*"?([A-Za-z0-9_.$-]+)"?\s*$/.exec(part);
    if (m) return m[1].toLowerCase();
  }
  return null;
}

/** Eurostat's `2026-02-06T23:00:00+0100`, ISO strings, or epoch ms → ISO UTC seconds. */
export function toIsoUtc(v: unknown): string | null {
  let d: Date | null = null;
  if (typeof v === 'number' && Number.isFinite(v)) d = new Date(v);
  else if (typeof v === 'string') {
    const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/.exec(v.trim());
    if (!m) return null;
    const time = m[2] ? (m[2].length === 5 ? `${m[2]}:00` : m[2]) : '00:00:00';
    const zone = !m[3] || m[3] === 'Z' ? 'Z' : m[3].replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
    d = new Date(`${m[1]}T${time}${zone}`);
  }
  if (!d || Number.isNaN(d.getTime())) return null;
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Category codes of a dimension in index order. */
function codesOf(dim: Dimension | undefined, size: number): string[] {
  const index = dim?.category?.index;
  if (Array.isArray(index)) return index.slice(0, size);
  if (index && typeof index === 'object') {
    const codes = new Array<string>(size);
    for (const [code, pos] of Object.entries(index)) if (pos >= 0 && pos < size) codes[pos] = code;
    return codes;
  }
  // A single-category dimension may omit the index (JSON-stat allows it).
  return Object.keys(dim?.category?.label ?? {}).slice(0, size);
}

function cellOf(container: unknown, idx: number): unknown {
  if (Array.isArray(container)) return container[idx];
  if (container && typeof container === 'object') return (container as Record<string, unknown>)[String(idx)];
  return undefined;
}

function valueAt(value: unknown, idx: number): number | null {
  const v = cellOf(value, idx);
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function statusAt(status: unknown, idx: number): string | null {
  if (typeof status === 'string') return status;
  // The legacy service wrapped statuses as {"value":[…],"category":{"label":{…}}}.
  const holder = status && typeof status === 'object' && !Array.isArray(status) && 'value' in status ? (status as { value: unknown }).value : status;
  const s = cellOf(holder, idx);
  return typeof s === 'string' && s !== '' ? s : null;
}

function cubeFromV2(doc: Record<string, unknown>, contentType: string | undefined): Cube {
  const ext = (doc.extension ?? {}) as { id?: unknown; status?: { label?: Record<string, string> } };
  const code = datasetFromContentType(contentType) ?? (typeof ext.id === 'string' ? ext.id.toLowerCase() : null);
  if (!code) throw new Error('elstat: cannot tell the dataset code (no dataset= content-type parameter, no extension.id)');
  if (!Array.isArray(doc.id) || !Array.isArray(doc.size) || !doc.dimension) throw new Error('elstat: JSON-stat 2.0 dataset without id/size/dimension');
  return {
    code,
    label: typeof doc.label === 'string' ? doc.label : code,
    format: 'json-stat-2.0',
    updated: toIsoUtc(doc.updated),
    id: doc.id as string[],
    size: doc.size as number[],
    role: (doc.role ?? {}) as Cube['role'],
    dimension: doc.dimension as Record<string, Dimension>,
    value: doc.value,
    status: doc.status,
    statusLabels: { ...(ext.status?.label ?? {}) },
  };
}

function cubesFromBundle(doc: Record<string, unknown>): Cube[] {
  const cubes: Cube[] = [];
  for (const [code, raw] of Object.entries(doc)) {
    if (!raw || typeof raw !== 'object' || !('dimension' in raw) || !('value' in raw)) continue;
    const ds = raw as Record<string, unknown> & { dimension: Record<string, unknown> };
    const dim = ds.dimension;
    const id = (Array.isArray(dim.id) ? dim.id : ds.id) as string[] | undefined;
    const size = (Array.isArray(dim.size) ? dim.size : ds.size) as number[] | undefined;
    if (!Array.isArray(id) || !Array.isArray(size)) throw new Error(`elstat: bundle dataset ${code} without dimension id/size`);
    const status = ds.status as { category?: { label?: Record<string, string> } } | undefined;
    cubes.push({
      code: typeof ds.code === 'string' ? ds.code.toLowerCase() : code.toLowerCase(),
      label: typeof ds.title === 'string' ? ds.title : typeof ds.label === 'string' ? ds.label : code,
      format: 'json-stat-1.x',
      updated: toIsoUtc(ds.lastUpdateDate ?? ds.updated),
      id,
      size,
      role: (dim.role ?? ds.role ?? {}) as Cube['role'],
      dimension: dim as Record<string, Dimension>,
      value: ds.value,
      status: ds.status,
      statusLabels: { ...(status?.category?.label ?? {}) },
    });
  }
  if (cubes.length === 0) throw new Error('elstat: not a JSON-stat dataset or bundle');
  return cubes;
}

/** Every series for Greece in a cube (only those with at least one value or status). */
export function seriesOf(cube: Cube): ElstatSeries[] {
  const { id, size } = cube;
  if (id.length !== size.length) throw new Error(`elstat: ${cube.code}: id and size differ in length`);
  const timeId = cube.role.time?.[0] ?? (id.includes('time') ? 'time' : id[id.length - 1]);
  const geoId = cube.role.geo?.[0] ?? (id.includes('geo') ? 'geo' : null);
  const timeAxis = id.indexOf(timeId);
  if (timeAxis < 0) throw new Error(`elstat: ${cube.code}: no time dimension`);
  const strides = size.map((_, i) => size.slice(i + 1).reduce((a, b) => a * b, 1));
  const codes = id.map((d, i) => codesOf(cube.dimension[d], size[i]));

  // Positions to walk on each non-time axis; geo restricted to Greece.
  const choices = id.map((d, i) => {
    if (i === timeAxis) return [0];
    if (d === geoId) {
      const pos = codes[i].findIndex((c) => GREECE.includes(c));
      return pos >= 0 ? [pos] : [];
    }
    return codes[i].map((_, p) => p);
  });
  if (choices.some((c) => c.length === 0)) return [];

  const out: ElstatSeries[] = [];
  const walk = (axis: number, picked: number[]): void => {
    if (axis === id.length) {
      const base = picked.reduce((acc, p, i) => acc + p * strides[i], 0);
      const observations: Observation[] = codes[timeAxis].map((period, t) => {
        const idx = base + t * strides[timeAxis];
        return { period, value: valueAt(cube.value, idx), status: statusAt(cube.status, idx) };
      });
      if (!observations.some((o) => o.value !== null || o.status !== null)) return;
      const dimensions: SeriesDimension[] = id
        .map((d, i) => ({ d, i }))
        .filter(({ i }) => i !== timeAxis)
        .map(({ d, i }) => {
          const code = codes[i][picked[i]];
          const dim = cube.dimension[d];
          return { id: d, label: dim?.label ?? d, code, codeLabel: dim?.category?.label?.[code] ?? code };
        });
      out.push({
        dataset: cube.code,
        label: cube.label,
        format: cube.format,
        updated: cube.updated,
        dimensions,
        observations,
        statusLabels: cube.statusLabels,
      });
      return;
    }
    for (const p of choices[axis]) walk(axis + 1, [...picked, p]);
  };
  walk(0, []);
  return out;
}

/** The cubes of a body (one for JSON-stat 2.0, one per dataset for a 1.x bundle); throws on errors. */
export function readCubes(body: string, contentType?: string): Cube[] {
  const obj = parseJsonObject('elstat', body, 'a JSON object');
  if ('error' in obj) throw new Error(`elstat: Eurostat error: ${JSON.stringify(obj.error).slice(0, 300)}`);
  if (obj.class === 'dataset' || (typeof obj.version === 'string' && 'dimension' in obj && 'value' in obj)) return [cubeFromV2(obj, contentType)];
  if (obj.class === 'collection' || obj.class === 'bundle') throw new Error('elstat: JSON-stat collections are not supported; request a dataset');
  return cubesFromBundle(obj);
}

/**
 * A series' original is the JSON-stat body it came in: the series pdi reads out of it is no upstream
 * record, and the cube keeps what that reading leaves out (labels, other series, every period). The
 * series of one body share one stored blob (content-addressed).
 */
export function parseElstat(body: string, contentType?: string): ParsedRecord[] {
  const original = { body: Buffer.from(body, 'utf8'), contentType: 'application/json' };
  return readCubes(body, contentType)
    .flatMap(seriesOf)
    .map((record) => ({ record, original }));
}
