// Greek and EU public-sector identifiers: ΑΦΜ (VAT number), ΑΔΑ (Diavgeia decision id),
// ΑΔΑΜ (KIMDIS registry id) and TED publication numbers. Formats: docs/upstream-sources.md §1.1, §1.3, §1.9.
import { resolveSource } from '../index-mappings/sources.js';
import { LATIN_TWINS } from './greek.js';

/** How a client names an entity: its ΑΦΜ, its name, or a Diavgeia decision (ΑΔΑ) about it. */
export const IDENTIFIER_TYPES = ['afm', 'name', 'ada'] as const;
export type IdentifierType = (typeof IDENTIFIER_TYPES)[number];

// No official ADA grammar exists; this is the permissive form from docs/upstream-sources.md §1.1 (7–10 characters in
// modern ADAs, 4–5 in the 2010–11 ones, then a hyphen and 1–3 characters).
const ADA_RE = /^[0-9Α-Ω]{4,10}-[0-9Α-Ω]{1,3}$/;
const ADAM_RE = /^\d{2}(REQ|PROC|AWRD|SYMV|PAY|DIAB)\d{9}$/;
const TED_PUBLICATION_RE = /^\d{1,8}-\d{4}$/;

/** True when `s` is 9 digits, not all zero, and the ΑΦΜ check digit holds. */
export function isValidAfm(s: string): boolean {
  if (typeof s !== 'string' || !/^\d{9}$/.test(s) || s === '000000000') return false;
  // Weights 2^8 … 2^1 on the first eight digits; the remainder mod 11, then mod 10, is the ninth digit.
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(s[i]) * 2 ** (8 - i);
  return (sum % 11) % 10 === Number(s[8]);
}

/**
 * `EL 090252840`, `GR090252840`, ` 090 252 840 ` → `090252840`; anything that is not then exactly
 * 9 digits → null. The check digit is NOT verified here (use isValidAfm): the entity endpoint still
 * searches a 9-digit number with a bad check digit.
 */
export function normalizeAfm(s: unknown): string | null {
  // A JSON number loses the leading zero of AFMs such as 090252840; only that one digit is restored.
  if (typeof s === 'number' && Number.isInteger(s) && s >= 10_000_000 && s <= 999_999_999) s = String(s).padStart(9, '0');
  if (typeof s !== 'string') return null;
  const compact = s
    .replace(/[\s.-]/g, '')
    .toUpperCase()
    .replace(/^(EL|GR)/, '');
  return /^\d{9}$/.test(compact) ? compact : null;
}

/** The ΑΦΜ in `v` (prefix, spaces, a lost leading zero tolerated) when its check digit holds, else null. */
export function validAfm(v: unknown): string | null {
  const afm = normalizeAfm(v);
  return afm !== null && isValidAfm(afm) ? afm : null;
}

/**
 * Trims, upper-cases and maps Latin look-alikes to Greek (people type ADAs on Latin keyboards: `4AΓΤΛ-8`);
 * returns the ADA, or null when it is not one.
 */
export function normalizeAda(s: unknown): string | null {
  if (typeof s !== 'string') return null;
  const mapped = s
    .trim()
    .toUpperCase()
    .replace(/[‐‑‒–—]/g, '-')
    .replace(/[A-Z]/g, (c) => LATIN_TWINS[c] ?? c);
  return ADA_RE.test(mapped) ? mapped : null;
}

export function isAda(s: unknown): boolean {
  return normalizeAda(s) !== null;
}

/** ΑΔΑΜ: `YY` + act type + 9 digits, e.g. `25SYMV017115178`. */
export function isAdam(s: unknown): boolean {
  return typeof s === 'string' && ADAM_RE.test(s.trim());
}

/** TED publication number `<number>-<year>`, e.g. `449657-2026` or `00654321-2023`. */
export function isTedPublicationNumber(s: unknown): boolean {
  return typeof s === 'string' && TED_PUBLICATION_RE.test(s.trim());
}

/** `00654321-2023` → `654321-2023`: one id however the number is padded (XML pads, the API does not). */
export function canonicalPublicationNumber(v: unknown): string | null {
  const m = typeof v === 'string' ? /^0*(\d{1,8})-(\d{4})$/.exec(v.trim()) : null;
  return m ? `${m[1]}-${m[2]}` : null;
}

/**
 * The id ingest gives the document a client wrote another way: an ΑΔΑ typed with Latin letters or in
 * lower case (`diavgeia:Ω97TΩΞX-8KΛ`), a TED number zero-padded as TED's own URLs and XML write it
 * (`ted:00449657-2026`), a source named by its alias (`e_procurement:…`). Null when there is no other
 * way to read it.
 */
export function canonicalSourceId(id: string): string | null {
  const colon = id.indexOf(':');
  if (colon < 0) return null;
  const written = id.slice(0, colon);
  // `e_procurement:…` is `kimdis:…`: the alias is accepted wherever a source name is.
  const source = resolveSource(written) ?? written;
  const rest = id.slice(colon + 1);
  const canonical = (source === 'diavgeia' ? normalizeAda(rest) : source === 'ted' ? canonicalPublicationNumber(rest) : null) ?? rest;
  return source === written && canonical === rest ? null : `${source}:${canonical}`;
}

export interface ExtractedIdentifiers {
  /** Valid ΑΦΜ only, in order of first appearance, without duplicates. */
  afm: string[];
  /** Normalized ΑΔΑ, in order of first appearance, without duplicates. */
  ada: string[];
}

// A 9-digit run, optionally after EL/GR, that is not part of a longer number, an amount (`123456789,50`)
// or a dotted figure.
const AFM_IN_TEXT = /(?<![\p{L}\p{N}]|\d[.,])(?:(?:EL|GR)\s?)?(\d{9})(?![\p{N}]|[.,]\d)/gu;
// An ADA-shaped token standing on its own (not inside a longer word or hyphenated chain).
const ADA_IN_TEXT = /(?<![\p{L}\p{N}-])([0-9Α-ΩA-Z]{4,10}-[0-9Α-ΩA-Z]{1,3})(?![\p{L}\p{N}]|-[\p{L}\p{N}])/gu;

/**
 * Finds ΑΦΜ and ΑΔΑ in free text. To keep false positives down, an ADA candidate must contain at least one
 * Greek capital and at least one digit as written (Latin-only tokens such as `TOYOTA-123` and Greek
 * hyphenated words such as `ΑΝΑΘΕΣΗ-ΤΟΥ` are skipped), and an AFM must pass the check digit.
 */
export function extractIdentifiers(text: string): ExtractedIdentifiers {
  const afm: string[] = [];
  const ada: string[] = [];
  if (typeof text !== 'string' || text === '') return { afm, ada };
  for (const m of text.matchAll(AFM_IN_TEXT)) {
    const v = m[1]!;
    if (isValidAfm(v) && !afm.includes(v)) afm.push(v);
  }
  for (const m of text.matchAll(ADA_IN_TEXT)) {
    const raw = m[1]!;
    if (!/[Α-Ω]/.test(raw) || !/\d/.test(raw)) continue;
    const v = normalizeAda(raw);
    if (v !== null && !ada.includes(v)) ada.push(v);
  }
  return { afm, ada };
}
