// The one filter value (lib/search/filters.ts) as Elasticsearch filter clauses: pure, no I/O. Every
// read that selects documents (search, listing, kNN, more-like-this, aggregate, export) takes them.
import type { estypes } from '@elastic/elasticsearch';
import { GROUPING_FIELDS, PARTY_FIELD } from '../../../index-mappings/analysis.js';
import type { Filters } from '../filters.js';
import { publishedWindow, type PublishedWindow } from '../published-window.js';

type Query = estypes.QueryDslQueryContainer;

/** A published_at window (published-window.ts) as a range filter; bounds are exclusive. */
export function publishedRange(w: PublishedWindow): Query {
  const range: { gt?: string; lt?: string } = {};
  if (w.afterMs !== null) range.gt = new Date(w.afterMs).toISOString();
  if (w.beforeMs !== null) range.lt = new Date(w.beforeMs).toISOString();
  return { range: { published_at: range } };
}

/** The clauses every matching document satisfies, in declaration order of the filters. */
export function filterClauses(f: Filters): Query[] {
  const out: Query[] = [];
  if (f.source !== undefined) out.push({ term: { source: f.source } });
  const window = publishedWindow(f.since, f.until);
  if (window) out.push(publishedRange(window));
  if (f.buyer !== undefined) out.push({ term: { [GROUPING_FIELDS.buyer]: f.buyer } });
  if (f.supplier !== undefined) out.push({ term: { [GROUPING_FIELDS.supplier]: f.supplier } });
  if (f.party !== undefined) out.push({ term: { [PARTY_FIELD]: f.party } });
  // Keys are whole 8-digit codes: a full code is a prefix of itself alone.
  if (f.cpv !== undefined) out.push({ prefix: { [GROUPING_FIELDS.cpv]: f.cpv } });
  if (f.amount_min !== undefined || f.amount_max !== undefined) {
    out.push({ term: { 'amount.currency': 'EUR' } }, { range: { 'amount.value': { gte: f.amount_min, lte: f.amount_max } } });
  }
  if (f.procedure_type !== undefined) out.push({ term: { [GROUPING_FIELDS.procedure_type]: f.procedure_type } });
  if (f.region !== undefined) out.push({ term: { [GROUPING_FIELDS.region]: f.region } });
  if (f.doc_category !== undefined) out.push({ term: { [GROUPING_FIELDS.doc_category]: f.doc_category } });
  if (f.single_bid) out.push({ term: { tenders_received: 1 } });
  return out;
}
