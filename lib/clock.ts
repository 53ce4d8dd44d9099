// The time source, injectable so tests can move the clock (quota resets at UTC midnight).
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

/** The next UTC midnight after `d`. */
export function nextUtcMidnight(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1));
}

/** ISO 8601 UTC without milliseconds, the API's timestamp form. */
export function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
