// One request per indicator: `/eurostat/api/dissemination/statistics/1.0/data/{dataset}?format=JSON&lang=EN
// &geo=EL&<filters>&lastTimePeriod=N`. Eurostat has no "changed since" query, but each body says when its
// dataset was last `updated`: a release whose stamp equals the one in the checkpoint is not yielded again
// (--since forces every indicator through). Eurostat updates datasets twice a day at most.
import type { Checkpoint, FetchContext, FetchedPage } from '../types.js';
import { parseJsonObject } from '../values.js';
import { toIsoUtc, withDataset } from './parse.js';
import { DEFAULT_INDICATORS, type ElstatCheckpoint, type ElstatOptions, type Indicator } from './types.js';

export function indicatorUrl(baseUrl: string, ind: Indicator): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/eurostat/api/dissemination/statistics/1.0/data/${encodeURIComponent(ind.dataset)}`);
  url.searchParams.set('format', 'JSON');
  url.searchParams.set('lang', 'EN');
  url.searchParams.set('geo', 'EL');
  for (const [dim, values] of Object.entries(ind.filters).sort(([a], [b]) => a.localeCompare(b))) {
    for (const v of ([] as string[]).concat(values)) url.searchParams.append(dim, v);
  }
  url.searchParams.set('lastTimePeriod', String(ind.lastTimePeriod));
  return url.toString();
}

/** The checkpoint key of an indicator: its dataset and filters, so a changed query counts as new. */
export function indicatorKey(ind: Indicator): string {
  const filters = Object.entries(ind.filters)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${([] as string[]).concat(v).join('+')}`)
    .join('&');
  return `${ind.dataset}?${filters}&last=${ind.lastTimePeriod}`;
}

function readCheckpoint(cp: Checkpoint | null): Record<string, string> {
  const updated = (cp as Partial<ElstatCheckpoint> | null)?.updated;
  if (!updated || typeof updated !== 'object') return {};
  return Object.fromEntries(Object.entries(updated).filter(([, v]) => typeof v === 'string'));
}

/** The `updated` stamp of a JSON-stat 2.0 body, or null (unreadable bodies are left for parse() to reject). */
function updatedOf(body: string): string | null {
  try {
    return toIsoUtc(parseJsonObject<{ updated?: unknown }>('elstat', body, 'a JSON-stat dataset').updated);
  } catch {
    return null;
  }
}

export async function* fetchElstat(ctx: FetchContext, options: ElstatOptions = {}): AsyncGenerator<FetchedPage> {
  const indicators = options.indicators ?? DEFAULT_INDICATORS;
  const state = readCheckpoint(ctx.checkpoint);
  for (const ind of indicators) {
    const res = await ctx.http.request(indicatorUrl(ctx.baseUrl, ind));
    const key = indicatorKey(ind);
    const updated = updatedOf(res.body);
    if (!ctx.since && updated !== null && state[key] === updated) {
      ctx.log.info({ dataset: ind.dataset, updated }, 'release already ingested; skipped');
      continue;
    }
    if (updated !== null) state[key] = updated;
    yield { body: res.body, contentType: withDataset(res.contentType, ind.dataset), checkpoint: { updated: { ...state } } };
  }
}
