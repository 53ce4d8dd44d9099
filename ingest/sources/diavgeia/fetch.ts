// Walks Diavgeia's advanced search by submission time. Upstream traps (docs/upstream-sources.md §1.1):
// - the server clamps any date range to 180 days without saying so → windows of at most 180 days;
// - a malformed filter is silently ignored (HTTP 200, everything returned) → every record's
//   submissionTimestamp is checked against its window; strays are dropped and logged, and a page with
//   nothing inside its window stops the run, because then the filter itself was ignored;
// - `submissionTimestamp` (when it was posted), not `issueDate`, is what "new since" means.
// Each window ends in the past (at most `now`), so records posted during the walk cannot shift pages.
import { UpstreamError } from '../../http.js';
import { instantToMs, instantWindows, isoSeconds, type InstantWindow } from '../../../lib/clock.js';
import type { Checkpoint, FetchContext, FetchedPage } from '../types.js';
import { parseSearchPage } from './parse.js';
import type { DiavgeiaCheckpoint, DiavgeiaDecision } from './types.js';
import { unlessFalselyEmpty } from '../empty-pages.js';

export interface DiavgeiaFetchOptions {
  /** Records per page; 500 is the largest the API is known to honour. */
  pageSize?: number;
  /** Window length; the server clamps ranges to 180 days. */
  windowDays?: number;
  /** First run without `since` or checkpoint: start this many days back (≈17 k decisions a day). */
  defaultLookbackDays?: number;
  /** The final checkpoint restarts this far before `now`, for decisions indexed late. */
  overlapMs?: number;
}

const DAY_MS = 86_400_000;
/** No decision is posted before this: Diavgeia opened in October 2010 (ADAs of 2010–11 are of an older, shorter form). */
const FIRST_DAY = new Date('2010-01-01T00:00:00Z');

/** `DT()` wants seconds; we send UTC with an explicit offset, the form the server echoes in `info.query`. */
function dt(d: Date): string {
  return `${d.toISOString().slice(0, 19)}+00:00`;
}

export function submissionQuery(w: InstantWindow): string {
  return `submissionTimestamp:[DT(${dt(w.from)}) TO DT(${dt(w.to)})]`;
}

function readCheckpoint(cp: Checkpoint | null): DiavgeiaCheckpoint | null {
  if (cp === null || typeof cp.from !== 'string' || Number.isNaN(Date.parse(cp.from))) return null;
  const to = cp.to === null || cp.to === undefined ? null : typeof cp.to === 'string' && !Number.isNaN(Date.parse(cp.to)) ? cp.to : undefined;
  const page = cp.page === undefined ? 0 : cp.page;
  if (to === undefined || typeof page !== 'number' || !Number.isInteger(page) || page < 0) return null;
  return { from: cp.from, to, page };
}

interface PlannedWindow extends InstantWindow {
  firstPage: number;
}

function planWindows(ctx: FetchContext, now: Date, o: Required<DiavgeiaFetchOptions>): PlannedWindow[] {
  const max = o.windowDays * DAY_MS;
  const plain = (from: Date) => instantWindows(from, now, max).map((w) => ({ ...w, firstPage: 0 }));
  if (ctx.since !== null) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(ctx.since) || Number.isNaN(Date.parse(`${ctx.since}T00:00:00Z`))) {
      throw new Error(`diavgeia: since must be YYYY-MM-DD, got "${ctx.since}"`);
    }
    const since = new Date(`${ctx.since}T00:00:00Z`);
    if (since.getTime() < FIRST_DAY.getTime()) {
      // Each 180-day window is a request: --since 1600-01-01 walked 860 empty ones first.
      ctx.log.warn(
        { since: ctx.since },
        `diavgeia: nothing is posted before Diavgeia opened (October 2010); the walk starts at ${FIRST_DAY.toISOString().slice(0, 10)}`,
      );
      return plain(FIRST_DAY);
    }
    return plain(since);
  }
  const cp = readCheckpoint(ctx.checkpoint);
  if (ctx.checkpoint !== null && cp === null) ctx.log.warn({ checkpoint: ctx.checkpoint }, 'unreadable checkpoint ignored');
  if (cp === null) return plain(new Date(now.getTime() - o.defaultLookbackDays * DAY_MS));
  if (cp.to === null) return plain(new Date(cp.from));
  // Finish the interrupted window exactly as it was cut (same bounds, so the same pages), then go on.
  const interrupted: PlannedWindow = { from: new Date(cp.from), to: new Date(cp.to), firstPage: cp.page };
  return [interrupted, ...plain(interrupted.to)];
}

export function createDiavgeiaFetch(options: DiavgeiaFetchOptions = {}) {
  const o: Required<DiavgeiaFetchOptions> = {
    pageSize: options.pageSize ?? 500,
    windowDays: options.windowDays ?? 180,
    defaultLookbackDays: options.defaultLookbackDays ?? 7,
    overlapMs: options.overlapMs ?? 3_600_000,
  };

  return async function* fetchDiavgeia(ctx: FetchContext): AsyncIterable<FetchedPage> {
    const now = new Date(Math.floor(ctx.now.getTime() / 1000) * 1000);
    const windows = planWindows(ctx, now, o);
    const base = ctx.baseUrl.replace(/\/+$/, '');

    for (let wi = 0; wi < windows.length; wi++) {
      const w = windows[wi]!;
      const from = w.from.getTime();
      const to = w.to.getTime();
      const q = submissionQuery(w);
      // The server may page by a smaller size than asked; its own `info.size` is what paging follows.
      const sizeOf = (info: { size: number }) => (info.size > 0 ? info.size : o.pageSize);
      for (let page = w.firstPage; ; page++) {
        const url = `${base}/search/advanced?q=${encodeURIComponent(q)}&page=${page}&size=${o.pageSize}`;
        const { res, parsed } = await unlessFalselyEmpty(
          ctx,
          { source: 'diavgeia', window: { from: w.from.toISOString(), to: w.to.toISOString() }, page },
          async () => {
            const res = await ctx.http.request(url, { headers: { Accept: 'application/json' } });
            try {
              return { res, parsed: parseSearchPage(res.body) };
            } catch (err) {
              throw new UpstreamError(`GET ${url}: ${(err as Error).message}`, null);
            }
          },
          (p) => p.parsed.decisions.length === 0 && page * sizeOf(p.parsed.info) < p.parsed.info.total,
        );

        const kept: DiavgeiaDecision[] = [];
        const dropped: { ada: unknown; submissionTimestamp: unknown }[] = [];
        for (const d of parsed.decisions) {
          const ts = instantToMs(d?.submissionTimestamp);
          if (ts !== null && ts >= from && ts <= to) kept.push(d);
          else dropped.push({ ada: d?.ada, submissionTimestamp: d?.submissionTimestamp });
        }
        if (dropped.length > 0) {
          ctx.log.warn(
            { source: 'diavgeia', window: { from: w.from.toISOString(), to: w.to.toISOString() }, page, dropped },
            'diavgeia returned decisions outside the requested submission window; dropped',
          );
          if (kept.length === 0) {
            throw new UpstreamError(`GET ${url}: no decision lies inside the requested window; the submissionTimestamp filter was ignored`, null);
          }
        }

        const size = sizeOf(parsed.info);
        // `total` ends the walk on a full last page without asking for an empty one, but only while it
        // agrees with what came: a full page past it shows an under-count, and then a short page ends it.
        const received = page * size + parsed.info.actualSize;
        const windowDone = parsed.decisions.length === 0 || parsed.info.actualSize < size || received === parsed.info.total;
        let checkpoint: DiavgeiaCheckpoint;
        if (!windowDone) checkpoint = { from: isoSeconds(w.from), to: isoSeconds(w.to), page: page + 1 };
        else if (wi < windows.length - 1) checkpoint = { from: isoSeconds(w.to), to: null, page: 0 };
        else checkpoint = { from: isoSeconds(new Date(now.getTime() - o.overlapMs)), to: null, page: 0 };

        // The body is passed on as received unless strays were dropped; then it is the same envelope
        // re-serialized without them, so parse never sees a record from outside its window.
        const body = dropped.length > 0 ? JSON.stringify({ ...parsed, decisions: kept }) : res.body;
        yield { body, contentType: res.contentType || 'application/json', checkpoint };
        if (windowDone) break;
      }
    }
  };
}
