// The time source, injectable so tests can move the clock (quota resets at UTC midnight).
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** YYYY-MM-DD of the UTC day containing `d`. */
export function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** The next UTC midnight after `d`. */
export function nextUtcMidnight(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1));
}

/** ISO 8601 UTC without milliseconds, the API's timestamp form. */
export function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
