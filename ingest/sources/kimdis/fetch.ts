// Walks ΚΗΜΔΗΣ open data: `POST /{resource}?page=N` with `{dateFrom, dateTo}` (calendar days, inclusive),
// in windows of at most 175 days (what harvesters use; the server's real limit is UNCONFIRMED), paging
// each window until the Spring page says `last`. Windows are the outer loop and resources the inner one,
// so one checkpoint (window, resource, page) says exactly where to resume.
// Only `contract` is fetched by default: it is the one resource with real records to test the
// normalizer against (fixtures/kimdis). The normalizer reads the act type from the ΑΔΑΜ, so `auction`
// (awards), `notice`, `request` and `payment` can be switched on through `resources` once checked.
import { UpstreamError } from '../../http.js';
import { addDays, dateWindows, utcDay, type DateWindow } from '../../../lib/clock.js';
import type { Checkpoint, FetchContext, FetchedPage } from '../types.js';
import { parseKimdisPage } from './parse.js';
import type { KimdisCheckpoint, KimdisResource } from './types.js';
import { unlessFalselyEmpty } from '../empty-pages.js';

export interface KimdisFetchOptions {
  /** Resources walked in each window, in this order. Default `['contract']`. */
  resources?: KimdisResource[];
  windowDays?: number;
  /** First run without `since` or checkpoint: start this many days back. */
  defaultLookbackDays?: number;
  /** The final checkpoint restarts this many days before today (late submissions, time zones). */
  overlapDays?: number;
}

const RESOURCES: readonly KimdisResource[] = ['request', 'notice', 'auction', 'contract', 'payment'];

function readCheckpoint(cp: Checkpoint | null, resources: KimdisResource[]): KimdisCheckpoint | null {
  if (cp === null) return null;
  const isDay = (v: unknown): v is string => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v);
  if (!isDay(cp.dateFrom)) return null;
  if (cp.dateTo !== null && cp.dateTo !== undefined && !isDay(cp.dateTo)) return null;
  const resource = (cp.resource ?? resources[0]) as KimdisResource;
  const page = cp.page ?? 0;
  if (!resources.includes(resource) || typeof page !== 'number' || !Number.isInteger(page) || page < 0) return null;
  return { dateFrom: cp.dateFrom, dateTo: (cp.dateTo as string | null | undefined) ?? null, resource, page };
}

interface PlannedWindow extends DateWindow {
  /** Index into resources and page to start this window at. */
  resourceIndex: number;
  firstPage: number;
}

function planWindows(ctx: FetchContext, today: string, o: Required<KimdisFetchOptions>): PlannedWindow[] {
  const plain = (from: string) => dateWindows(from, today, o.windowDays).map((w) => ({ ...w, resourceIndex: 0, firstPage: 0 }));
  if (ctx.since !== null) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(ctx.since)) throw new Error(`kimdis: since must be YYYY-MM-DD, got "${ctx.since}"`);
    return plain(ctx.since);
  }
  const cp = readCheckpoint(ctx.checkpoint, o.resources);
  if (ctx.checkpoint !== null && cp === null) ctx.log.warn({ checkpoint: ctx.checkpoint }, 'unreadable checkpoint ignored');
  if (cp === null) return plain(addDays(today, -o.defaultLookbackDays));
  if (cp.dateTo === null) return plain(cp.dateFrom);
  const interrupted: PlannedWindow = { from: cp.dateFrom, to: cp.dateTo, resourceIndex: o.resources.indexOf(cp.resource), firstPage: cp.page };
  return [interrupted, ...plain(addDays(cp.dateTo, 1))];
}

export function createKimdisFetch(options: KimdisFetchOptions = {}) {
  const o: Required<KimdisFetchOptions> = {
    resources: options.resources ?? ['contract'],
    windowDays: options.windowDays ?? 175,
    defaultLookbackDays: options.defaultLookbackDays ?? 30,
    overlapDays: options.overlapDays ?? 1,
  };
  if (o.resources.length === 0 || o.resources.some((r) => !RESOURCES.includes(r))) {
    throw new Error(`kimdis: resources must be some of ${RESOURCES.join(', ')}`);
  }

  return async function* fetchKimdis(ctx: FetchContext): AsyncIterable<FetchedPage> {
    const today = utcDay(ctx.now);
    const windows = planWindows(ctx, today, o);
    const base = ctx.baseUrl.replace(/\/+$/, '');

    for (let wi = 0; wi < windows.length; wi++) {
      const w = windows[wi]!;
      for (let ri = w.resourceIndex; ri < o.resources.length; ri++) {
        const resource = o.resources[ri]!;
        for (let page = ri === w.resourceIndex ? w.firstPage : 0; ; page++) {
          const url = `${base}/${resource}?page=${page}`;
          const { res, parsed } = await unlessFalselyEmpty(
            ctx,
            { source: 'kimdis', resource, window: w, page },
            async () => {
              const res = await ctx.http.request(url, { method: 'POST', json: { dateFrom: w.from, dateTo: w.to } });
              try {
                return { res, parsed: parseKimdisPage(res.body) };
              } catch (err) {
                throw new UpstreamError(`POST ${url}: ${(err as Error).message}`, null);
              }
            },
            (p) => p.parsed.content.length === 0 && !p.parsed.last,
          );
          // An empty page ends the resource even if `last` is still false once asked again.
          const resourceDone = parsed.last || parsed.content.length === 0;
          let checkpoint: KimdisCheckpoint;
          if (!resourceDone) checkpoint = { dateFrom: w.from, dateTo: w.to, resource, page: page + 1 };
          else if (ri < o.resources.length - 1) checkpoint = { dateFrom: w.from, dateTo: w.to, resource: o.resources[ri + 1]!, page: 0 };
          else if (wi < windows.length - 1) checkpoint = { dateFrom: addDays(w.to, 1), dateTo: null, resource: o.resources[0]!, page: 0 };
          else checkpoint = { dateFrom: addDays(today, -o.overlapDays), dateTo: null, resource: o.resources[0]!, page: 0 };
          yield { body: res.body, contentType: res.contentType || 'application/json', checkpoint };
          if (resourceDone) break;
        }
      }
    }
  };
}
