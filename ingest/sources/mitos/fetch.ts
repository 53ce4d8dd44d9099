// The registry has no "changed since" query, so every run pages the whole list (`/services?page=N&limit=100`,
// following `next_page`; about 44 pages) and fetches `/services-extended/{id}` only for services whose
// `last_updated` differs from the value recorded in the checkpoint (or, with --since, is on or after that day).
// Only details bodies are yielded. A details 404 (a service withdrawn between list and details) is skipped
// and left out of the checkpoint, so the next run tries it again; any other failure ends the run.
import { UpstreamError } from '../../http.js';
import type { Checkpoint, FetchContext, FetchedPage } from '../types.js';
import { toIsoUtc } from './normalize.js';
import { parseServicesPage } from './parse.js';
import type { MitosCheckpoint, MitosOptions, MitosServiceSummary } from './types.js';

export function servicesUrl(baseUrl: string, page: number, limit: number): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}/services`);
  url.searchParams.set('page', String(page));
  url.searchParams.set('limit', String(limit));
  return url.toString();
}

export function serviceExtendedUrl(baseUrl: string, id: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/services-extended/${encodeURIComponent(id)}`;
}

function readCheckpoint(cp: Checkpoint | null): Record<string, string> {
  const seen = (cp as Partial<MitosCheckpoint> | null)?.seen;
  if (!seen || typeof seen !== 'object') return {};
  return Object.fromEntries(Object.entries(seen).filter(([, v]) => typeof v === 'string'));
}

function stamp(s: MitosServiceSummary): string {
  return s.last_updated === null || s.last_updated === undefined ? '' : String(s.last_updated);
}

export async function* fetchMitos(ctx: FetchContext, options: MitosOptions = {}): AsyncGenerator<FetchedPage> {
  const limit = options.pageSize ?? 100;
  const seen = readCheckpoint(ctx.checkpoint);
  const wanted = (s: MitosServiceSummary): boolean => {
    if (ctx.since) {
      const iso = toIsoUtc(s.last_updated);
      return iso === null || iso.slice(0, 10) >= ctx.since;
    }
    return seen[String(s.id)] !== stamp(s) || stamp(s) === '';
  };

  let page: number | null = 1;
  let listed = 0;
  let fetched = 0;
  while (page !== null) {
    const res = await ctx.http.request(servicesUrl(ctx.baseUrl, page, limit));
    let parsed: ReturnType<typeof parseServicesPage>;
    try {
      parsed = parseServicesPage(res.body);
    } catch (err) {
      throw new UpstreamError(`mitos: services page ${page}: ${(err as Error).message}`, null);
    }
    listed += parsed.services.length;
    for (const service of parsed.services) {
      if (!wanted(service)) continue;
      const id = String(service.id);
      let details;
      try {
        details = await ctx.http.request(serviceExtendedUrl(ctx.baseUrl, id));
      } catch (err) {
        if (err instanceof UpstreamError && err.status === 404) {
          ctx.log.warn({ id }, 'service listed but its details answered 404; skipped');
          continue;
        }
        throw err;
      }
      seen[id] = stamp(service);
      fetched++;
      yield { body: details.body, contentType: details.contentType || 'application/json', checkpoint: { seen: { ...seen } } };
    }
    // Stop at the end, and never loop if the server repeats or rewinds a page number.
    page = parsed.services.length > 0 && parsed.nextPage !== null && parsed.nextPage > page ? parsed.nextPage : null;
  }
  ctx.log.info({ listed, fetched }, 'services listed; changed ones fetched');
}
