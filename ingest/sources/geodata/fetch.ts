// CKAN package_search over the datasets modified since the checkpoint, oldest first, paged with rows/start:
//   package_search?q=*:*&fq=metadata_modified:[<since> TO NOW]&sort=metadata_modified asc&rows=100&start=N
// The lower bound is inclusive, so the newest dataset of the last run comes back once more (harmless:
// ids are deterministic). Offset paging can skip a dataset if another one is modified mid-run and moves
// to the end of the window; the moved one is fetched at the end of this run, a skipped one at its next change.
import { UpstreamError } from '../../http.js';
import type { Checkpoint, FetchContext, FetchedPage } from '../types.js';
import { ckanTimeToIso } from './normalize.js';
import { isDataset, parseSearchPage } from './parse.js';
import type { GeodataCheckpoint, GeodataOptions } from './types.js';

export function packageSearchUrl(baseUrl: string, since: string | null, start: number, rows: number): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/api/3/action/package_search`);
  url.searchParams.set('q', '*:*');
  url.searchParams.set('fq', `metadata_modified:[${since ?? '*'} TO NOW]`);
  url.searchParams.set('sort', 'metadata_modified asc');
  url.searchParams.set('rows', String(rows));
  url.searchParams.set('start', String(start));
  return url.toString();
}

function readCheckpoint(cp: Checkpoint | null): string | null {
  const v = (cp as Partial<GeodataCheckpoint> | null)?.modified_since;
  return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(v) ? v : null;
}

export async function* fetchGeodata(ctx: FetchContext, options: GeodataOptions = {}): AsyncGenerator<FetchedPage> {
  const rows = Math.min(1000, Math.max(1, options.rows ?? 100));
  const since = ctx.since ? `${ctx.since}T00:00:00Z` : readCheckpoint(ctx.checkpoint);
  let newest = since;
  let start = 0;
  for (;;) {
    const res = await ctx.http.request(packageSearchUrl(ctx.baseUrl, since, start, rows));
    let page;
    try {
      page = parseSearchPage(res.body);
    } catch (err) {
      throw new UpstreamError(`geodata: package_search start=${start}: ${(err as Error).message}`, null);
    }
    for (const ds of page.results) {
      if (!isDataset(ds)) continue;
      const modified = ckanTimeToIso(ds.metadata_modified);
      if (modified && (newest === null || modified > newest)) newest = modified;
    }
    const checkpoint: Checkpoint = newest ? { modified_since: newest } : {};
    if (page.results.length > 0) yield { body: res.body, contentType: res.contentType || 'application/json', checkpoint };
    start += page.results.length;
    if (page.results.length === 0 || start >= page.count) break;
  }
}
