// The time source, injectable so tests can move the clock (quota resets at UTC midnight), and the
// dates the sources send: instants, calendar days, Athens wall-clock times, day and instant windows.
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** YYYY-MM-DD of the UTC day containing `d`. */
export function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** Whether `s` is a day that exists, written YYYY-MM-DD (2026-02-30 is not). */
export function isCalendarDay(s: string): boolean {
  const ms = Date.parse(`${s}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(ms) && utcDay(new Date(ms)) === s;
}

const TIME_BOUND_RE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|([+-])(\d{2}):(\d{2}))?)?$/;

/** A query's `since` or `until`: epoch ms of the instant, or of the day's 00:00:00Z when `day`. */
export interface TimeBound {
  ms: number;
  day: boolean;
}

/**
 * `since` and `until` on every route: a date YYYY-MM-DD or an ISO 8601 date-time (UTC when it has no
 * offset; minutes, seconds and a fraction as ISO allows). Null when it is neither, or names a day or
 * time that does not exist (30 February, hour 24).
 */
export function timeBoundOf(v: string): TimeBound | null {
  const m = TIME_BOUND_RE.exec(v);
  if (!m) return null;
  const [, y, mo, d, h, mi, sec, frac, zone, sign, oh, om] = m;
  const wall = utcOf(Number(y), Number(mo), Number(d), Number(h ?? 0), Number(mi ?? 0), Number(sec ?? 0));
  if (wall === null) return null;
  if (h === undefined) return { ms: wall, day: true };
  if (zone !== undefined && zone !== 'Z' && (Number(oh) > 23 || Number(om) > 59)) return null;
  const offset = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000;
  return { ms: wall + Math.floor(Number(`0${frac ?? ''}`) * 1000) - offset, day: false };
}

/** The detail of a 422 for a malformed `since` or `until`. */
export function timeBoundProblem(name: string): string {
  return `${name} must be a date YYYY-MM-DD or a date-time YYYY-MM-DDTHH:MM:SSZ (an offset instead of Z, or none for UTC)`;
}

/** The next UTC midnight after `d`. */
export function nextUtcMidnight(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1));
}

/** ISO 8601 UTC without milliseconds, the API's timestamp form. */
export function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

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
  const same =
    d.getUTCFullYear() === year &&
    d.getUTCMonth() === month - 1 &&
    d.getUTCDate() === day &&
    d.getUTCHours() === hour &&
    d.getUTCMinutes() === minute &&
    d.getUTCSeconds() === second;
  return same ? d.getTime() : null;
}

const athensParts = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/Athens',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
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

/** Adds whole days to a `YYYY-MM-DD` date. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return utcDay(d);
}

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
