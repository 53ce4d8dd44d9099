// UTC date arithmetic for the corpus. All instants are epoch milliseconds; days start at 00:00Z, which is
// how Diavgeia's `issueDate` is sent (e.g. 1744848000000 = 2025-04-17T00:00:00Z).
import type { Rng } from './prng.js';

export const DAY = 86_400_000;
/** First and last day of the corpus: 2023-01-02 .. 2026-11-20 (the generator's "today"). */
export const START = Date.UTC(2023, 0, 2);
export const END = Date.UTC(2026, 10, 20);

export function dayOf(ms: number): number {
  return Math.floor(ms / DAY) * DAY;
}

/** Moves a Saturday or Sunday forward to Monday. */
export function workday(dayMs: number): number {
  const dow = new Date(dayMs).getUTCDay();
  if (dow === 6) return dayMs + 2 * DAY;
  if (dow === 0) return dayMs + DAY;
  return dayMs;
}

/** A time during Greek office hours (07:30–15:30 local ≈ 05:30–13:30Z), with milliseconds. */
export function officeTime(rng: Rng, dayMs: number): number {
  return dayMs + rng.int(5 * 3600 + 1800, 13 * 3600 + 1800) * 1000 + rng.int(0, 999);
}

export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** `2026-02-26T15:09:14.662` (no zone), as KIMDIS prints `submissionDate`. */
export function isoLocal(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23);
}

export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19) + 'Z';
}

export function compact(ms: number): string {
  return isoDate(ms).replace(/-/g, '');
}

/** Athens offset for a day (+03:00 in summer time, else +02:00): last Sunday of March..October. */
export function athensOffset(ms: number): string {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const lastSunday = (month: number) => {
    const last = new Date(Date.UTC(y, month + 1, 0));
    return Date.UTC(y, month, last.getUTCDate() - last.getUTCDay(), 1);
  };
  return ms >= lastSunday(2) && ms < lastSunday(9) ? '+03:00' : '+02:00';
}

export function yearOf(ms: number): number {
  return new Date(ms).getUTCFullYear();
}

export function addMonths(ms: number, months: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, d.getUTCDate());
}

/** A uniformly random day in [from, to]. */
export function randomDay(rng: Rng, from: number, to: number): number {
  return from + rng.int(0, Math.floor((to - from) / DAY)) * DAY;
}
