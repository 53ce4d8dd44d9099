// The document index: GET /v1/search (Pro), GET /v1/{source}/documents (Free metadata, Pro full
// content), GET /v1/documents/{source_id}/content (Enterprise), GET /v1/stats (Free).
import type { Request } from 'restify';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import { embedderInfo } from '../../lib/embedding/index.js';
import { greekLetters } from '../../lib/greek.js';
import { canonicalSourceId } from '../../lib/identifiers.js';
import { resolveSource, SOURCE_NAMES, type SourceName } from '../../index-mappings/sources.js';
import type { AppContext } from '../context.js';
import { principalOf } from '../middleware/admission.js';
import { readOptionsFor } from '../middleware/client-gone.js';
import { reply, replyJson } from '../middleware/reply.js';
import { filtersParam, intParam, offsetParam, onlyParams, stringParam } from '../middleware/validate.js';
import { metadataOf, type IndexedDocument } from '../../index-mappings/document.js';
import { listingOf, searchBody, UPGRADE_HINT, withStringField } from '../presenters/document.js';
import { queryMatcher, snippetOf } from '../../lib/search/snippet.js';
import { downloadHeaders, downloadType } from '../presenters/download.js';
import { tierAllows } from '../tiers.js';
import type { ContractRoutes } from './contract-routes.js';
import { SEARCH_SORTS, type ReadOptions, type SearchSort } from '../../lib/search/provider.js';
import { FILTER_NAMES, type Filters } from '../../lib/search/filters.js';
import { GROUPINGS, type Grouping } from '../../index-mappings/analysis.js';
import { facetsOf } from './labels.js';
import { searchAlternatives } from '../../lib/translation/concepts.js';
import { englishQuestion, translateQuestion } from '../../lib/translation/translate.js';

/** Longest accepted `q`; longer queries are a 422, not a slow scan. */
export const MAX_QUERY_LENGTH = 1000;

/** The query parameters of GET /v1/search; anything else is a 422. */
const SEARCH_PARAMS = ['q', ...FILTER_NAMES, 'sort', 'limit', 'offset', 'facets', 'facet_limit', 'translate'];
/** The filters a source's listing takes: all but `source`, which its path gives. */
const LISTING_FILTERS = FILTER_NAMES.filter((name) => name !== 'source');
const LISTING_PARAMS = [...LISTING_FILTERS, 'limit', 'offset'];

function sourceOf(name: string): SourceName {
  const source = resolveSource(name);
  if (!source) throw new NotFoundError(`Unknown source: ${name}`);
  return source;
}

/** A document by source_id, as written first (ids are the engine's keys), then as ingest writes it (`e_procurement:` is `kimdis:`); 404 when neither is known. */
export async function findDocument(ctx: AppContext, sourceId: string, read: ReadOptions): Promise<IndexedDocument> {
  const other = canonicalSourceId(sourceId);
  const doc = (await ctx.search.get(sourceId, read)) ?? (other === null ? null : await ctx.search.get(other, read));
  if (!doc) throw new NotFoundError(`Document not found: ${sourceId}`);
  return doc;
}

function pathParam(req: Request, name: string): string {
  const v = String((req.params as Record<string, string>)[name] ?? '');
  // `/v1/documents//content` reaches the route with an empty segment: a mistake, not an unknown id.
  if (v.trim() === '') throw new ValidationError(`${name} must not be empty`);
  return v;
}

/** A search's parameters (GET /v1/search, the MCP tool search_documents), checked. */
export interface SearchParams {
  q: string;
  filters: Filters;
  limit: number;
  offset: number;
  sort?: SearchSort;
  /** Groupings whose top buckets over the whole match the answer adds (`facets`), and how many of each. */
  facets?: Grouping[];
  facetLimit?: number;
  /** An English query also finds the documents that hold its Greek translation (lib/translation). */
  translate?: boolean;
}

/** `facets`: a comma-separated list of distinct groupings. */
function facetsParam(value: string | undefined): Grouping[] | undefined {
  if (value === undefined) return undefined;
  const names = value.split(',');
  const problem = `facets must be a comma-separated list of distinct groupings: ${GROUPINGS.join(', ')}`;
  const facets = names.map((name) => GROUPINGS.find((g) => g === name));
  if (facets.some((g) => g === undefined) || new Set(facets).size !== facets.length) throw new ValidationError(problem);
  return facets as Grouping[];
}

/** `translate`: `true` or `false` (the default: exact search stays exact). */
function translateParam(value: string | undefined): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new ValidationError('translate must be true or false');
}

export function sortOf(v: string): SearchSort {
  const sort = SEARCH_SORTS.find((s) => s === v);
  if (!sort) throw new ValidationError(`sort must be one of ${SEARCH_SORTS.join(', ')}`);
  return sort;
}

/**
 * The search response: `{query, results, total, limit, offset}`, each result a metadata record with its
 * `snippet` (lib/search/snippet.ts). JSON bytes when the engine gave the records as JSON (SearchHit
 * .metadataJson): the snippet is added to them as they are, not parsed and re-serialised.
 */
export async function searchDocuments(ctx: AppContext, p: SearchParams, read: ReadOptions): Promise<Buffer | Record<string, unknown>> {
  // Stored text has Greek letters for look-alike signs (ingest): a query pasted from an original too.
  const text = greekLetters(p.q);
  const { q, filters, limit, offset, sort } = p;
  const translated = p.translate && englishQuestion(text) ? searchAlternatives(translateQuestion(text)) : undefined;
  const [result, facets] = await Promise.all([
    ctx.search.search({ text, translated, filters, limit, offset, sort, view: 'snippet' }, read),
    p.facets ? facetsOf(ctx, { text, translated }, filters, p.facets, p.facetLimit ?? 10, read) : undefined,
  ]);
  const extra = facets ? { facets } : {};
  // A document found by the translation shows the Greek words it holds.
  const match = queryMatcher(translated ? [text, ...translated.flat()].join(' ') : text);
  const snippets = result.hits.map((h) => snippetOf(h.doc.title, h.snippetText, match));
  const records = result.hits.map((h, i) => h.metadataJson && withStringField(h.metadataJson, 'snippet', snippets[i]));
  if (records.every((r): r is Buffer => r !== undefined)) return searchBody(q, records, result.total, limit, offset, extra);
  return { query: q, results: result.hits.map((h, i) => ({ ...metadataOf(h.doc), snippet: snippets[i] })), total: result.total, limit, offset, ...extra };
}

export function registerDocuments(routes: ContractRoutes, ctx: AppContext): void {
  routes.add('get', '/v1/search', async (req, res) => {
    onlyParams(req, SEARCH_PARAMS);
    const q = stringParam(req, 'q', { required: true, maxLength: MAX_QUERY_LENGTH })!;
    const sort = stringParam(req, 'sort');
    const body = await searchDocuments(
      ctx,
      {
        q,
        filters: filtersParam(req),
        limit: intParam(req, 'limit', 100, 1, 1000),
        offset: offsetParam(req),
        sort: sort === undefined ? undefined : sortOf(sort),
        facets: facetsParam(stringParam(req, 'facets')),
        facetLimit: intParam(req, 'facet_limit', 10, 1, 100),
        translate: translateParam(stringParam(req, 'translate')),
      },
      readOptionsFor(res),
    );
    if (Buffer.isBuffer(body)) reply(res, 200, 'application/json', body);
    else replyJson(res, body);
  });

  routes.add('get', '/v1/:source/documents', async (req, res) => {
    const source = sourceOf(pathParam(req, 'source'));
    onlyParams(req, LISTING_PARAMS);
    const limit = intParam(req, 'limit', 100, 1, 1000);
    const offset = offsetParam(req);
    const filters = filtersParam(req, LISTING_FILTERS);
    const full = tierAllows(principalOf(req).tier, 'pro');
    const result = await ctx.search.list({ source, filters, limit, offset }, readOptionsFor(res));
    const body: Record<string, unknown> = { source, documents: result.hits.map((h) => listingOf(h.doc, full)), total: result.total, limit, offset };
    // Every Free-key listing carries _upgrade_hint, an empty page included.
    if (!full) body._upgrade_hint = UPGRADE_HINT;
    replyJson(res, body);
  });

  routes.add('get', '/v1/documents/:source_id/content', async (req, res) => {
    const sourceId = pathParam(req, 'source_id');
    const doc = await findDocument(ctx, sourceId, readOptionsFor(res));
    const bytes = doc.original ? await ctx.blobs.get(doc.original.sha256) : null;
    if (!doc.original || !bytes) throw new NotFoundError(`No original is stored for ${sourceId}`);
    const type = downloadType(doc.original.content_type);
    reply(res, 200, type, bytes, downloadHeaders(doc.source_id, type));
  });

  routes.add('get', '/v1/stats', async (_req, res) => {
    const stats = await ctx.search.stats(readOptionsFor(res));
    const sources: Record<string, { documents: number; last_updated: string | null; avg_quality: number | null }> = {};
    for (const name of SOURCE_NAMES) {
      const s = stats.sources[name];
      sources[name] = {
        documents: s?.documents ?? 0,
        last_updated: s?.last_updated ?? null,
        avg_quality: s?.avg_quality === null || s?.avg_quality === undefined ? null : Math.round(s.avg_quality * 1000) / 1000,
      };
    }
    replyJson(res, {
      total_documents: stats.total_documents,
      sources,
      engine: ctx.search.engine,
      embedding: embedderInfo(ctx.embedder),
    });
  });
}
