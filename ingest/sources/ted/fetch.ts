// Walks the TED Search API v3 for notices of Greek buyers published since a date:
// `POST /v3/notices/search` with `buyer-country=GRC AND publication-date>=YYYYMMDD`, 250 per page,
// `paginationMode: ITERATION` (PAGE_NUMBER stops at 15,000 notices), following `iterationNextToken`.
// The token can stay non-null after the last page (docs/upstream-sources.md §1.2), so the walk stops when the
// notices received reach `totalNoticeCount`, when a page comes back empty, or when the token is null.
// Iteration tokens do not survive a restart, so the checkpoint is a date: until the walk completes it
// stays at the walk's start date (a crash re-runs the walk; ids are deterministic), then it moves to today.
import { UpstreamError } from '../../http.js';
import { addDays, utcDay } from '../../../lib/clock.js';
import type { FetchContext, FetchedPage } from '../types.js';
import { parseSearchResponse } from './parse.js';
import type { TedCheckpoint } from './types.js';
import { unlessFalselyEmpty } from '../empty-pages.js';

/** Fields asked of the search API (it requires the list). Names from docs/upstream-sources.md §1.2. */
export const TED_FIELDS = [
  'publication-number',
  'notice-identifier',
  'notice-version',
  'notice-type',
  'form-type',
  'publication-date',
  'dispatch-date',
  'notice-title',
  'buyer-name',
  'buyer-country',
  'organisation-name-buyer',
  'organisation-country-buyer',
  'organisation-name-tenderer',
  'winner-name',
  'buyer-identifier',
  'winner-identifier',
  'winner-selection-status',
  'classification-cpv',
  'contract-nature',
  'procedure-type',
  'estimated-value-lot',
  'estimated-value-cur-lot',
  'total-value',
  'total-value-cur',
  'tender-value',
  'tender-value-cur',
  'deadline-receipt-tender-date-lot',
  'place-of-performance-country-lot',
  'place-of-performance-subdiv-lot',
  'modification-previous-notice-identifier',
  'links',
] as const;

export interface TedFetchOptions {
  /** ISO 3166 alpha-3 of the buyers to fetch. */
  buyerCountry?: string;
  /** Notices per page; the API allows at most 250. */
  limit?: number;
  defaultLookbackDays?: number;
}

export function tedQuery(buyerCountry: string, from: string): string {
  return `buyer-country=${buyerCountry} AND publication-date>=${from.replaceAll('-', '')}`;
}

/** The page's iteration token, or null when it gives none (an empty string counts as none). */
function nextToken(page: { iterationNextToken?: unknown }): string | null {
  return typeof page.iterationNextToken === 'string' && page.iterationNextToken !== '' ? page.iterationNextToken : null;
}

export function createTedFetch(options: TedFetchOptions = {}) {
  const buyerCountry = options.buyerCountry ?? 'GRC';
  const limit = Math.min(250, options.limit ?? 250);
  const lookback = options.defaultLookbackDays ?? 30;

  return async function* fetchTed(ctx: FetchContext): AsyncIterable<FetchedPage> {
    const today = utcDay(ctx.now);
    let from: string;
    if (ctx.since !== null) {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(ctx.since)) throw new Error(`ted: since must be YYYY-MM-DD, got "${ctx.since}"`);
      from = ctx.since;
    } else if (ctx.checkpoint !== null && typeof ctx.checkpoint.from === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(ctx.checkpoint.from)) {
      from = ctx.checkpoint.from;
    } else {
      if (ctx.checkpoint !== null) ctx.log.warn({ checkpoint: ctx.checkpoint }, 'unreadable checkpoint ignored');
      from = addDays(today, -lookback);
    }

    const url = `${ctx.baseUrl.replace(/\/+$/, '')}/v3/notices/search`;
    const query = tedQuery(buyerCountry, from);
    let token: string | null = null;
    let received = 0;
    for (let page = 1; ; page++) {
      const body: Record<string, unknown> = {
        query,
        fields: TED_FIELDS,
        limit,
        // ALL: expired and superseded notices too; a "since" ingest wants everything published.
        scope: 'ALL',
        paginationMode: 'ITERATION',
      };
      if (token !== null) body.iterationNextToken = token;
      // Asked again with the same token: the count not reached and a token given say more follow.
      const { res, parsed } = await unlessFalselyEmpty(
        ctx,
        { source: 'ted', page, received },
        async () => {
          const res = await ctx.http.request(url, { method: 'POST', json: body });
          try {
            return { res, parsed: parseSearchResponse(res.body) };
          } catch (err) {
            throw new UpstreamError(`POST ${url} (page ${page}): ${(err as Error).message}`, null);
          }
        },
        (p) => p.parsed.notices.length === 0 && received < p.parsed.totalNoticeCount && nextToken(p.parsed) !== null,
      );
      if (parsed.timedOut === true) ctx.log.warn({ page }, 'TED reports timedOut; the page may be partial');
      received += parsed.notices.length;
      token = nextToken(parsed);
      const done = parsed.notices.length === 0 || received >= parsed.totalNoticeCount || token === null;
      const checkpoint: TedCheckpoint = { from: done ? today : from };
      yield { body: res.body, contentType: res.contentType || 'application/json', checkpoint };
      if (done) break;
    }
  };
}
