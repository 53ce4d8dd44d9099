// Walks each configured dataset in date windows (`date_from`..`date_to`, both inclusive). The API has no
// paging, so a window is the page; windows keep each body bounded. The checkpoint remembers, per dataset,
// the last `date_to` fetched; the next run starts again at that day, because the latest day is often
// published incomplete and refetching it is harmless (document ids are deterministic).
// Yearly tables (efet_inspections) ignore dates and are fetched whole on every run.
import { addDays, dateWindows, utcDay } from '../../../lib/clock.js';
import type { Checkpoint, FetchContext, FetchedPage } from '../types.js';
import { withDataset } from './parse.js';
import { DEFAULT_DATASETS, profileFor, type DataGovGrCheckpoint, type DataGovGrOptions } from './types.js';

export function queryUrl(baseUrl: string, dataset: string, window?: { from: string; to: string }): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/api/v1/query/${encodeURIComponent(dataset)}`);
  if (window) {
    url.searchParams.set('date_from', window.from);
    url.searchParams.set('date_to', window.to);
  }
  return url.toString();
}

function readCheckpoint(cp: Checkpoint | null): Record<string, string> {
  const datasets = (cp as Partial<DataGovGrCheckpoint> | null)?.datasets;
  if (!datasets || typeof datasets !== 'object') return {};
  return Object.fromEntries(Object.entries(datasets).filter(([, v]) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)));
}

export async function* fetchDataGovGr(ctx: FetchContext, options: DataGovGrOptions = {}): AsyncGenerator<FetchedPage> {
  const datasets = options.datasets ?? DEFAULT_DATASETS;
  const windowDays = Math.max(1, options.windowDays ?? 30);
  const lookback = Math.max(0, options.initialLookbackDays ?? 30);
  const today = utcDay(ctx.now);
  const state = readCheckpoint(ctx.checkpoint);

  for (const dataset of datasets) {
    const profile = profileFor(dataset);
    if (!profile.windowed) {
      const res = await ctx.http.request(queryUrl(ctx.baseUrl, dataset));
      state[dataset] = today;
      yield { body: res.body, contentType: withDataset(res.contentType, dataset), checkpoint: { datasets: { ...state } } };
      continue;
    }
    const start = ctx.since ?? state[dataset] ?? addDays(today, -lookback);
    for (const window of dateWindows(start, today, windowDays)) {
      const res = await ctx.http.request(queryUrl(ctx.baseUrl, dataset, window));
      ctx.log.debug({ dataset, ...window, bytes: res.body.length }, 'fetched window');
      state[dataset] = window.to;
      yield { body: res.body, contentType: withDataset(res.contentType, dataset), checkpoint: { datasets: { ...state } } };
    }
  }
}
