// Small pure helpers shared by the source normalizers: text tidying, numbers, dates, CPV codes and the
// sector they imply, country and language codes. Source-neutral; no I/O.
import type { NormalizedDocument } from '../../index-mappings/document.js';
import { isoSeconds } from '../../lib/clock.js';
import { greekLetters } from '../../lib/greek.js';
import { MalformedRecordError } from './types.js';

/** Trims and collapses runs of whitespace (line breaks included); non-strings become ''. */
export function collapse(v: unknown): string {
  return typeof v === 'string' ? v.replace(/\s+/g, ' ').trim() : '';
}

/**
 * The document with its text in Greek letters (greekLetters: `∆ηµοτικού` → `Δημοτικού`) and in NFC.
 * Some upstream text (PDF extraction above all) spells accents as combining marks; the Greek analysis on
 * Elasticsearch folds precomposed letters but leaves a combining mark in the token, so `δη\u0301μος`
 * was never found by `δήμος`. One place, after every normalizer.
 */
export function composedText<D extends NormalizedDocument>(doc: D): D {
  let changed = false;
  const tidy = (s: string) => {
    const t = greekLetters(s).normalize('NFC');
    if (t !== s) changed = true;
    return t;
  };
  const orNull = (s: string | null) => (s === null ? null : tidy(s));
  const composed = {
    ...doc,
    title: tidy(doc.title),
    content: tidy(doc.content),
    summary: tidy(doc.summary),
    entities: { ...doc.entities, names: doc.entities.names.map(tidy) },
    region: orNull(doc.region),
    sector: orNull(doc.sector),
  };
  // The same object when nothing changed: pdi reindex then keeps the stored hash without hashing again.
  return changed ? composed : doc;
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
    throw new MalformedRecordError(`${doc.source_id}: published_at ${doc.published_at} is outside ${PUBLISHED_FROM} .. ${new Date(latest).toISOString().slice(0, 10)}`);
  }
  return doc;
}

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

// ---------------------------------------------------------------------------------------------- dates

const INSTANT_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** Epoch values below this are seconds: as milliseconds they would fall before 3 March 1973. */
const EPOCH_SECONDS_BELOW = 1e11;

/**
 * Epoch milliseconds (a number or a digit string, as the Diavgeia API sends; epoch seconds are taken too,
 * told apart by size) or an ISO 8601 instant that carries its own offset → epoch ms; else null. A bare
 * local time is refused: it is ambiguous (see athensLocalToIso).
 */
export function instantToMs(v: unknown): number | null {
  const epoch = (n: number) => (n < EPOCH_SECONDS_BELOW ? n * 1000 : n);
  if (typeof v === 'number') return Number.isFinite(v) && v > 0 ? epoch(v) : null;
  if (typeof v !== 'string') return null;
  const s = v.trim();
  if (/^\d{10,14}$/.test(s)) return epoch(Number(s));
  if (!INSTANT_RE.test(s)) return null;
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? null : ms;
}

/** instantToMs rendered as ISO 8601 UTC seconds (`2024-05-01T10:00:00Z`), or null. */
export function instantToIso(v: unknown): string | null {
  const ms = instantToMs(v);
  return ms === null ? null : isoSeconds(new Date(ms));
}

/**
 * A calendar date (`2026-07-01`, `2026-07-01+02:00`, `2026-07-01Z`) → `2026-07-01T00:00:00Z`.
 * The offset is dropped on purpose: the value names a day, and shifting it to UTC would move a notice
 * published on 1 July to 30 June.
 */
export function dateOnlyToIso(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})(Z|[+-]\d{2}:\d{2})?$/.exec(v.trim());
  if (!m) return null;
  const ms = utcOf(Number(m[1]), Number(m[2]), Number(m[3]));
  return ms === null ? null : isoSeconds(new Date(ms));
}

/**
 * Epoch ms of a UTC calendar reading, or null when a part is out of range (30 February, hour 24).
 * Unlike Date.UTC, which reads years 0–99 as 1900–1999 (so `0001-01-01` became 1901).
 */
function utcOf(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number | null {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  const same = d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day &&
    d.getUTCHours() === hour && d.getUTCMinutes() === minute && d.getUTCSeconds() === second;
  return same ? d.getTime() : null;
}

const athensParts = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/Athens',
  hourCycle: 'h23',
  year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
});

/** Offset of Athens from UTC at `ms`, in ms (+2 h in winter, +3 h in summer). */
function athensOffsetMs(ms: number): number {
  const p = Object.fromEntries(athensParts.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  const wall = utcOf(Number(p.year), Number(p.month), Number(p.day), Number(p.hour), Number(p.minute), Number(p.second)) ?? Number.NaN;
  return wall - Math.floor(ms / 1000) * 1000;
}

/**
 * A local Greek wall-clock time without offset (`2026-02-26T15:09:14.662`, as KIMDIS sends) → UTC ISO
 * seconds. In the autumn hour that happens twice, the earlier (summer-time) reading wins.
 */
export function athensLocalToIso(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/.exec(v.trim());
  if (!m) return null;
  const wall = utcOf(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
  if (wall === null) return null;
  let utc = wall - athensOffsetMs(wall - 3 * 3_600_000);
  utc = wall - athensOffsetMs(utc);
  return isoSeconds(new Date(utc));
}

/** `YYYY-MM-DD` of a Date in UTC. */
export function utcDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** Adds whole days to a `YYYY-MM-DD` date. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return utcDate(d);
}

// ------------------------------------------------------------------------------------------------ CPV

/** `50000000-5`, `48510000` → `50000000` (the 8-digit code; the check digit adds nothing); else null. */
export function normalizeCpv(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const m = /^(\d{8})(?:-\d)?$/.exec(v.trim());
  return m ? m[1]! : null;
}

// CPV division (first two digits) → a coarse sector slug. The alert filter `sectors` matches these.
const SECTOR_BY_DIVISION: Record<string, string> = {
  '03': 'agriculture_food', '15': 'agriculture_food', '16': 'agriculture_food', '77': 'agriculture_food',
  '09': 'energy', '65': 'energy', '76': 'energy',
  '14': 'industry', '18': 'industry', '19': 'industry', '22': 'industry', '24': 'industry', '31': 'industry',
  '38': 'industry', '39': 'industry', '41': 'industry', '42': 'industry', '43': 'industry',
  '30': 'it', '48': 'it', '72': 'it',
  '32': 'telecommunications', '64': 'telecommunications',
  '33': 'health', '85': 'health',
  '34': 'transport', '60': 'transport', '63': 'transport',
  '35': 'defence_security',
  '37': 'culture_sport', '92': 'culture_sport',
  '44': 'construction', '45': 'construction',
  '50': 'maintenance', '51': 'maintenance',
  '55': 'hospitality',
  '66': 'finance',
  '70': 'real_estate',
  '71': 'engineering',
  '73': 'research',
  '75': 'public_administration',
  '79': 'business_services',
  '80': 'education',
  '90': 'environment',
  '98': 'other_services',
};

/** The sector of the first CPV code whose division is known, or null. */
export function sectorFromCpv(cpvs: readonly string[]): string | null {
  for (const c of cpvs) {
    const s = SECTOR_BY_DIVISION[c.slice(0, 2)];
    if (s) return s;
  }
  return null;
}

// ------------------------------------------------------------------------------- countries, languages

const ISO3_TO_ISO2: Record<string, string> = {
  AUT: 'AT', BEL: 'BE', BGR: 'BG', HRV: 'HR', CYP: 'CY', CZE: 'CZ', DNK: 'DK', EST: 'EE', FIN: 'FI', FRA: 'FR',
  DEU: 'DE', GRC: 'GR', HUN: 'HU', IRL: 'IE', ITA: 'IT', LVA: 'LV', LTU: 'LT', LUX: 'LU', MLT: 'MT', NLD: 'NL',
  POL: 'PL', PRT: 'PT', ROU: 'RO', SVK: 'SK', SVN: 'SI', ESP: 'ES', SWE: 'SE',
  ISL: 'IS', LIE: 'LI', NOR: 'NO', CHE: 'CH', GBR: 'GB', ALB: 'AL', MKD: 'MK', MNE: 'ME', SRB: 'RS', TUR: 'TR',
  UKR: 'UA', MDA: 'MD', BIH: 'BA', USA: 'US',
};

/** ISO 3166 alpha-3 (`GRC`) → alpha-2 (`GR`), or null when not in the table. */
export function iso3ToIso2(v: unknown): string | null {
  return typeof v === 'string' ? ISO3_TO_ISO2[v.trim().toUpperCase()] ?? null : null;
}

const LANG_639_2_TO_1: Record<string, string> = {
  bul: 'bg', ces: 'cs', dan: 'da', deu: 'de', ell: 'el', eng: 'en', est: 'et', fin: 'fi', fra: 'fr', gle: 'ga',
  hrv: 'hr', hun: 'hu', ita: 'it', lav: 'lv', lit: 'lt', mlt: 'mt', nld: 'nl', pol: 'pl', por: 'pt', ron: 'ro',
  slk: 'sk', slv: 'sl', spa: 'es', swe: 'sv', nor: 'no', isl: 'is',
};

/** ISO 639-2 (`ell`, `ENG`) → ISO 639-1 (`el`, `en`), or null. */
export function lang3to1(v: unknown): string | null {
  return typeof v === 'string' ? LANG_639_2_TO_1[v.trim().toLowerCase()] ?? null : null;
}

/** Decodes the HTML entities TED leaves in some values (`Falu Energi &amp;`). */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|nbsp);/gi, (whole, e: string) => {
    const k = e.toLowerCase();
    if (k === 'amp') return '&';
    if (k === 'lt') return '<';
    if (k === 'gt') return '>';
    if (k === 'quot') return '"';
    if (k === 'apos') return "'";
    if (k === 'nbsp') return ' ';
    const code = k.startsWith('#x') ? parseInt(k.slice(2), 16) : parseInt(k.slice(1), 10);
    return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

// ------------------------------------------------------------------------------------------- windows

export interface InstantWindow {
  from: Date;
  to: Date;
}

/**
 * Cuts [from, to] into consecutive windows of at most `maxMs` (none when from ≥ to); each window starts
 * where the previous one ended (a record exactly on a boundary may come twice, which deterministic ids make harmless).
 */
export function instantWindows(from: Date, to: Date, maxMs: number): InstantWindow[] {
  const out: InstantWindow[] = [];
  let start = from.getTime();
  const end = to.getTime();
  while (start < end) {
    const stop = Math.min(start + maxMs, end);
    out.push({ from: new Date(start), to: new Date(stop) });
    start = stop;
  }
  return out;
}

export interface DateWindow {
  from: string;
  to: string;
}

/** Cuts the inclusive day range [from, to] into windows of at most `maxDays` days each, no overlap. */
export function dateWindows(from: string, to: string, maxDays: number): DateWindow[] {
  const out: DateWindow[] = [];
  let start = from;
  while (start <= to) {
    const last = addDays(start, maxDays - 1);
    const stop = last < to ? last : to;
    out.push({ from: start, to: stop });
    start = addDays(stop, 1);
  }
  return out;
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
