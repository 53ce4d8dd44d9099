// Values as the normalizers read them: numbers, amounts, plain objects, JSON bodies, and the range a
// publication date may fall in.
import type { NormalizedDocument } from '../../index-mappings/document.js';
import { MalformedRecordError } from './types.js';

/** Non-empty strings, first occurrence kept, order preserved. */
export function uniq(values: Iterable<string | null | undefined>): string[] {
  const out: string[] = [];
  for (const v of values) if (typeof v === 'string' && v !== '' && !out.includes(v)) out.push(v);
  return out;
}

/** A finite number from a number or a plain decimal string (`"18000000"`, `"1234.5"`); else null. */
export function toNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  return null;
}

/** Rounds to cents so sums of floats (`0.1 + 0.2`) stay exact-looking and deterministic. */
export function roundMoney(v: number): number {
  return Math.round(v * 100) / 100;
}

/** An amount as content and summaries show it: `1854.56 EUR`. */
export function formatAmount(a: { value: number; currency: string }): string {
  return `${a.value} ${a.currency}`;
}

/** A plain object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSON.parse with an error that names the source: a body that is not JSON is never data. */
export function parseJsonBody(source: string, body: string): unknown {
  try {
    return JSON.parse(body);
  } catch (err) {
    throw new Error(`${source}: body is not valid JSON (${(err as Error).message})`);
  }
}

/**
 * The body as a JSON object (not an array, a scalar or null), or an error saying what was `expected`;
 * typed as the envelope the caller reads, whose fields it still checks.
 */
export function parseJsonObject<T extends object = Record<string, unknown>>(source: string, body: string, expected: string): T {
  const value = parseJsonBody(source, body);
  if (!isObject(value)) throw new Error(`${source}: expected ${expected}`);
  return value as T;
}

/** published_at is refused outside [PUBLISHED_FROM, now + PUBLISHED_AHEAD_MS): the embedded index orders
 * years 1698–2242 only, and a record dated 9999 would head every newest-first listing for ever. */
const PUBLISHED_FROM = '1700-01-01';
const PUBLISHED_FROM_MS = Date.parse(`${PUBLISHED_FROM}T00:00:00Z`);
const PUBLISHED_AHEAD_MS = 366 * 86_400_000;

/** The document, or MalformedRecordError when its published_at cannot be a publication date. */
export function plausiblyDated<D extends NormalizedDocument>(doc: D, now = Date.now()): D {
  const ms = Date.parse(doc.published_at);
  const latest = now + PUBLISHED_AHEAD_MS;
  if (!(ms >= PUBLISHED_FROM_MS && ms < latest)) {
    throw new MalformedRecordError(
      `${doc.source_id}: published_at ${doc.published_at} is outside ${PUBLISHED_FROM} .. ${new Date(latest).toISOString().slice(0, 10)}`,
    );
  }
  return doc;
}
