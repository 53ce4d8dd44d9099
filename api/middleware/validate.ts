// Parameter and body validation. Each failure is a 422 whose detail names the parameter.
import type { Request } from 'restify';
import { ValidationError } from '../../lib/errors.js';
import { timeBoundOf, timeBoundProblem } from '../../lib/clock.js';
import { normalizeAda, normalizeAfm, type IdentifierType } from '../../lib/identifiers.js';
import { FILTER_NAMES, parseFilters, type FilterName, type Filters } from '../../lib/search/filters.js';

// Parsed on first use, so routes without parameters pay nothing.
const parsed = new WeakMap<Request, URLSearchParams>();

function queryOf(req: Request): URLSearchParams {
  let params = parsed.get(req);
  if (!params) {
    params = new URLSearchParams(req.getQuery());
    parsed.set(req, params);
  }
  return params;
}

function single(req: Request, name: string): string | undefined {
  const all = queryOf(req).getAll(name);
  if (all.length === 0) return undefined;
  if (all.length > 1) throw new ValidationError(`${name} must be given once`);
  // URLSearchParams turns bytes that are no UTF-8 into U+FFFD and keeps a % that starts no escape as
  // text; only a value holding either is checked against its raw form (an encoded U+FFFD or %25 is fine).
  if ((all[0].includes('\uFFFD') || all[0].includes('%')) && !rawValueDecodes(req.getQuery(), name)) {
    throw new ValidationError(`${name} is not valid percent-encoded UTF-8`);
  }
  return all[0];
}

function rawValueDecodes(query: string, name: string): boolean {
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    const [key, value] = eq === -1 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
    if (formDecode(key) === name && formDecode(value) === null) return false;
  }
  return true;
}

function formDecode(s: string): string | null {
  return percentDecode(s.replace(/\+/g, ' '));
}

/** `s` percent-decoded, or null when an escape is malformed or the bytes are not UTF-8. */
export function percentDecode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/** The filters of the query string (lib/search/filters.ts), each given once; one given empty is malformed. */
export function filtersParam(req: Request, names: readonly FilterName[] = FILTER_NAMES): Filters {
  return parseFilters((name) => single(req, name), names);
}

/**
 * A 422 naming the first query parameter that is not one of `allowed`: on routes that take filters, a
 * misspelt one (`supplir=…`) would otherwise answer for every document.
 */
export function onlyParams(req: Request, allowed: readonly string[]): void {
  for (const name of queryOf(req).keys()) {
    if (!allowed.includes(name)) throw new ValidationError(`Unknown parameter: ${name} (this route takes ${allowed.join(', ')})`);
  }
}

export function intParam(req: Request, name: string, fallback: number, min: number, max: number): number {
  const v = single(req, name);
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new ValidationError(`${name} must be an integer from ${min} to ${max}`);
  }
  return Number(v);
}

export function offsetParam(req: Request): number {
  return intParam(req, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The `:id` of the path when it can name a resource (a UUID), else null: nothing to find. */
export function idParam(req: Request): string | null {
  const id = String((req.params as Record<string, string>).id ?? '');
  return UUID.test(id) ? id.toLowerCase() : null;
}

export function pageParams(req: Request): { limit: number; offset: number } {
  return { limit: intParam(req, 'limit', 20, 1, 100), offset: offsetParam(req) };
}

export function stringParam(req: Request, name: string, opts: { required?: boolean; maxLength?: number } = {}): string | undefined {
  const v = single(req, name);
  if (v === undefined || v.trim() === '') {
    if (opts.required) throw new ValidationError(`${name} is required`);
    if (v === undefined) return undefined;
    throw new ValidationError(`${name} must not be empty`);
  }
  // Characters are code points: an emoji is one, not two UTF-16 units (counted only when it may matter).
  if (opts.maxLength && v.length > opts.maxLength && [...v].length > opts.maxLength) {
    throw new ValidationError(`${name} must be at most ${opts.maxLength} characters`);
  }
  return v;
}

/** `since` or `until`, as given: a date YYYY-MM-DD or an ISO 8601 date-time (lib/clock.ts timeBoundOf). */
export function timeBoundParam(req: Request, name: 'since' | 'until'): string | undefined {
  const v = single(req, name);
  if (v === undefined) return undefined;
  if (timeBoundOf(v) === null) throw new ValidationError(timeBoundProblem(name));
  return v;
}

/** The longest entity_identifier a report or a monitored entity takes, in characters. */
export const MAX_IDENTIFIER_LENGTH = 200;
const CONTROL = /\p{Cc}/u;

/** Whether `value` holds a control character (C0, DEL, C1): refused in a client's text that reaches e-mails, PDFs or logs. */
export function hasControl(value: string): boolean {
  return CONTROL.test(value);
}

/**
 * The entity_identifier of a report or a monitored entity, trimmed, or a 422. Control characters are
 * refused: the identifier (or a label) is written into report PDFs and alert e-mails, where an escape
 * sequence or a line break would forge content.
 */
export function entityIdentifierOf(id: unknown, type: IdentifierType): string {
  if (id === undefined) throw new ValidationError('entity_identifier is required');
  if (typeof id !== 'string') throw new ValidationError('entity_identifier must be a string');
  const value = id.trim();
  if (value === '') throw new ValidationError('entity_identifier must not be empty');
  if ([...value].length > MAX_IDENTIFIER_LENGTH) throw new ValidationError(`entity_identifier must be at most ${MAX_IDENTIFIER_LENGTH} characters`);
  refuseControl('entity_identifier', value);
  if (type === 'afm' && normalizeAfm(value) === null) throw new ValidationError('entity_identifier must be a 9-digit AFM when identifier_type is afm');
  if (type === 'ada' && normalizeAda(value) === null)
    throw new ValidationError('entity_identifier must be a Diavgeia decision id (ADA) when identifier_type is ada');
  if (type === 'name' && !/[\p{L}\p{N}]/u.test(value))
    throw new ValidationError('entity_identifier must contain a letter or digit when identifier_type is name');
  return value;
}

/** A 422 when `value` holds a control character (C0, DEL, C1). */
export function refuseControl(name: string, value: string): void {
  if (hasControl(value)) throw new ValidationError(`${name} must not contain control characters`);
}
