// The one filter value of every route that selects documents (search, listings, aggregate, export, ask,
// the MCP tools): each filter declared once here, with its parser and its OpenAPI parameter; parsed
// once into a Filters value that both engines take whole (embedded/filter-sql.ts,
// elasticsearch/filter-query.ts) and that every paging and cache key holds (filterKey).
// Adding a filter: its declaration here, its two engine translations, docs/api.md and docs/openapi.json.
import { timeBoundOf, timeBoundProblem } from '../clock.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { normalizeAfm } from '../identifiers.js';
import { resolveSource, type SourceName } from '../../index-mappings/sources.js';
import { publishedWindow } from './published-window.js';

export interface Filters {
  /** One source (an alias resolved: `e_procurement` is `kimdis`). */
  source?: SourceName;
  /** published_at after it: a date (after its 00:00:00Z) or a date-time (published-window.ts). */
  since?: string;
  /** published_at at it or before: a date includes that whole day. */
  until?: string;
  /** A party with role buyer has this ΑΦΜ (9 digits). */
  buyer?: string;
  /** A party with role supplier has this ΑΦΜ. */
  supplier?: string;
  /** A party in any role has this ΑΦΜ. */
  party?: string;
  /** A CPV code of the document is this code (8 digits) or starts with these 2 to 7 digits. */
  cpv?: string;
  /** The amount is in EUR and at least this. */
  amount_min?: number;
  /** The amount is in EUR and at most this. */
  amount_max?: number;
  procedure_type?: string;
  region?: string;
  doc_category?: string;
  /** The document states that one tender was received. */
  single_bid?: true;
}

export type FilterName = keyof Filters;
export type JsonType = 'string' | 'number' | 'boolean';

/** How a filter is declared: its parser and what the OpenAPI document says of it. */
interface FilterSpec<K extends FilterName> {
  name: K;
  description: string;
  /** The JSON type of the filter's value in a body (POST /v1/ask `filters`, the MCP tools). */
  json: JsonType;
  /** The parameter's OpenAPI schema (a JSON value of the document, `$ref`s included). */
  schema: Record<string, unknown>;
  example?: string;
  /** The value from a query string (text) or a JSON member (text, number or boolean); a 422 (404: an unknown source) naming it otherwise. */
  parse(raw: unknown): NonNullable<Filters[K]>;
}

/** The longest text value a filter takes (procedure_type, region, doc_category). */
export const MAX_FILTER_TEXT = 200;
const CONTROL = /\p{Cc}/u;

function text(name: string, raw: unknown): string {
  const v = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw;
  if (typeof v !== 'string') throw new ValidationError(`${name} must be a string`);
  if (v.trim() === '') throw new ValidationError(`${name} must not be empty`);
  if ([...v].length > MAX_FILTER_TEXT) throw new ValidationError(`${name} must be at most ${MAX_FILTER_TEXT} characters`);
  if (CONTROL.test(v)) throw new ValidationError(`${name} must not contain control characters`);
  return v;
}

function afm(name: string, raw: unknown): string {
  const v = normalizeAfm(raw);
  if (v === null) throw new ValidationError(`${name} must be an AFM of 9 digits`);
  return v;
}

function amount(name: string, raw: unknown): number {
  const v = typeof raw === 'string' && /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : raw;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1e15) throw new ValidationError(`${name} must be an amount in EUR from 0 to 1e15`);
  return v;
}

function timeBound(name: 'since' | 'until', raw: unknown): string {
  if (typeof raw !== 'string' || timeBoundOf(raw) === null) throw new ValidationError(timeBoundProblem(name));
  return raw;
}

/** A CPV code as the filter and the analysis keys read it: its 8 digits, without the check digit. */
export const CPV_FILTER = /^(\d{2,8})(?:-\d)?$/;

/** What normalizeAfm reads as an ΑΦΜ: 9 digits, spaces, dots and dashes anywhere, an `EL` or `GR` prefix. */
const AFM_SCHEMA = {
  type: 'string',
  pattern: String.raw`^[\s.-]*(?:(?:[Ee][\s.-]*[Ll]|[Gg][\s.-]*[Rr])[\s.-]*)?(?:[0-9][\s.-]*){9}$`,
  examples: ['090025537'],
};
const TEXT_SCHEMA = { type: 'string', minLength: 1, maxLength: MAX_FILTER_TEXT };

/** A filter on an ΑΦΜ, an amount in EUR or a text value, as the declarations below take them. */
const afmFilter = <K extends 'buyer' | 'supplier' | 'party'>(name: K, description: string): FilterSpec<K> =>
  ({ name, json: 'string', description, schema: AFM_SCHEMA, parse: (raw: unknown) => afm(name, raw) }) as FilterSpec<K>;
const amountFilter = <K extends 'amount_min' | 'amount_max'>(name: K, description: string): FilterSpec<K> =>
  ({ name, json: 'number', description, schema: { type: 'number', minimum: 0, maximum: 1e15 }, parse: (raw: unknown) => amount(name, raw) }) as FilterSpec<K>;
const textFilter = <K extends 'procedure_type' | 'region' | 'doc_category'>(name: K, description: string): FilterSpec<K> =>
  ({ name, json: 'string', description, schema: TEXT_SCHEMA, parse: (raw: unknown) => text(name, raw) }) as FilterSpec<K>;

const SPECS: { [K in FilterName]: FilterSpec<K> } = {
  source: {
    name: 'source',
    json: 'string',
    description: 'Only this source (`e_procurement` means `kimdis`); an unknown name is a 404.',
    schema: { $ref: '#/components/schemas/SourceNameOrAlias' },
    parse(raw) {
      if (typeof raw !== 'string' || raw.trim() === '') throw new ValidationError('source must not be empty');
      const source = resolveSource(raw);
      if (!source) throw new NotFoundError(`Unknown source: ${raw}`);
      return source;
    },
  },
  since: {
    name: 'since',
    json: 'string',
    description: 'Only documents published after it: a date means after that day began (00:00:00Z, as on the listings), a date-time after that instant.',
    schema: { $ref: '#/components/schemas/TimeBound' },
    example: '2024-01-31',
    parse: (raw) => timeBound('since', raw),
  },
  until: {
    name: 'until',
    json: 'string',
    description:
      'Only documents published at it or before: a date includes that whole day (`published_at` earlier than the next day at 00:00:00Z), a date-time that instant. Not before `since`.',
    schema: { $ref: '#/components/schemas/TimeBound' },
    example: '2024-12-31',
    parse: (raw) => timeBound('until', raw),
  },
  buyer: afmFilter('buyer', 'Only documents naming a party with role `buyer` and this ΑΦΜ (9 digits; `EL` prefix, spaces and dots tolerated).'),
  supplier: afmFilter('supplier', 'Only documents naming a party with role `supplier` (contractor, winner, payee) and this ΑΦΜ.'),
  party: afmFilter('party', 'Only documents naming a party with this ΑΦΜ, in any role.'),
  cpv: {
    name: 'cpv',
    json: 'string',
    description:
      'Only documents with this CPV code (8 digits, a check digit such as `-2` allowed) or a code starting with these digits: 2 a division (`45`), 3 a group (`452`), 4 a class (`4523`), 5 a category (`45233`).',
    schema: { type: 'string', pattern: CPV_FILTER.source, examples: ['45', '45233120'] },
    parse(raw) {
      const m = CPV_FILTER.exec(typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw : '');
      if (!m) throw new ValidationError('cpv must be a CPV code of 8 digits or its first 2 to 7 digits (e.g. 45 or 45233120)');
      return m[1];
    },
  },
  amount_min: amountFilter('amount_min', 'Only documents whose amount is in EUR and at least this (documents without an amount are left out).'),
  amount_max: amountFilter('amount_max', 'Only documents whose amount is in EUR and at most this. Not below `amount_min`.'),
  procedure_type: textFilter(
    'procedure_type',
    "Only documents whose `procedure_type` is this, as the source writes it (TED's `open`, KIMDIS's `Ανοιχτή διαδικασία`).",
  ),
  region: textFilter('region', 'Only documents whose `region` is this, as the source writes it (a NUTS code such as `EL303`).'),
  doc_category: textFilter('doc_category', 'Only documents of this `doc_category` (`award`, `contract`, `tender_notice`, `payment`, …).'),
  single_bid: {
    name: 'single_bid',
    json: 'boolean',
    description: 'Only documents that state a single tender received (`tenders_received` 1). Takes `true` alone; leave it out for no filter.',
    schema: { type: 'boolean', enum: [true] },
    parse(raw) {
      if (raw !== true && raw !== 'true') throw new ValidationError('single_bid must be true (leave it out for no filter)');
      return true;
    },
  },
};

/** The filters in the order they are declared, documented and keyed. */
export const FILTER_NAMES = Object.keys(SPECS) as FilterName[];

export function isFilterName(name: string): name is FilterName {
  return Object.hasOwn(SPECS, name);
}

/**
 * The filters among `names`, each read by `value(name)` (undefined: not given) and checked alone, then
 * together (`until` not before `since`, `amount_max` not below `amount_min`).
 */
export function parseFilters(value: (name: FilterName) => unknown, names: readonly FilterName[] = FILTER_NAMES): Filters {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const raw = value(name);
    if (raw !== undefined) out[name] = SPECS[name].parse(raw as never);
  }
  const filters = out as Filters;
  const window = publishedWindow(filters.since, filters.until);
  if (window?.afterMs != null && window.beforeMs != null && window.beforeMs <= window.afterMs) throw new ValidationError('until must not be before since');
  if (filters.amount_min !== undefined && filters.amount_max !== undefined && filters.amount_max < filters.amount_min) {
    throw new ValidationError('amount_max must not be below amount_min');
  }
  return filters;
}

/**
 * The `filters` member of a JSON body (POST /v1/ask, the MCP tools): an object of filters, null or
 * absent for none; an unknown member or a value of another JSON type is a 422 naming it, so a misspelt
 * filter never matches everything.
 */
export function filtersFromJson(body: unknown, member = 'filters'): Filters {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new ValidationError(`${member} must be an object of filters`);
  const given = body as Record<string, unknown>;
  for (const name of Object.keys(given)) {
    if (!isFilterName(name)) throw new ValidationError(`${member} has an unknown member: ${name} (filters are ${FILTER_NAMES.join(', ')})`);
    const type = SPECS[name].json;
    if (given[name] !== null && typeof given[name] !== type) throw new ValidationError(`${name} must be a ${type}`);
  }
  // A member set to null is no filter, as an absent one.
  return parseFilters((name) => (Object.hasOwn(given, name) && given[name] !== null ? given[name] : undefined));
}

/** The filters given, in declaration order: what an answer echoes and every cache or paging key holds. */
export function canonicalFilters(filters: Filters): Filters {
  const out: Record<string, unknown> = {};
  for (const name of FILTER_NAMES) if (filters[name] !== undefined) out[name] = filters[name];
  return out as Filters;
}

/** A string equal for equal filter values, whatever order they were built in. */
export function filterKey(filters: Filters | undefined): string {
  return JSON.stringify(canonicalFilters(filters ?? {}));
}

/** The OpenAPI parameter objects of the filters (docs/openapi.json components.parameters, test/house/openapi.test.ts). */
export function filterParameters(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const name of FILTER_NAMES) {
    const { description, schema, example } = SPECS[name];
    out[filterParameterName(name)] = { name, in: 'query', required: false, description, schema, ...(example ? { example } : {}) };
  }
  return out;
}

/** Where docs/openapi.json keeps a filter's parameter: `#/components/parameters/Filter_<name>`. */
export function filterParameterName(name: FilterName): string {
  return `Filter_${name}`;
}

/** The JSON schema of a body's `filters` object (docs/openapi.json components.schemas.Filters). */
export function filtersObjectSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const name of FILTER_NAMES) properties[name] = { description: SPECS[name].description, ...SPECS[name].schema };
  return { type: ['object', 'null'], additionalProperties: false, properties };
}

/** What the MCP tools say of a filter: its description and JSON type. */
export function filterArgument(name: FilterName): { description: string; json: JsonType } {
  return { description: SPECS[name].description, json: SPECS[name].json };
}
