// Analysis across the corpus (Pro): GET /v1/aggregate and GET /v1/export. Validation here, the
// aggregates and export batches in the engines (lib/search/aggregate.ts, SearchProvider.exportBatch),
// the labels of the keys from documents.db (lib/bucket-labels.ts).
import type { Request, Response } from 'restify';
import { GROUPINGS, type Grouping } from '../../index-mappings/analysis.js';
import { ClientGoneError, ValidationError } from '../../lib/errors.js';
import { greekLetters } from '../../lib/greek.js';
import { AGGREGATE_ORDERS, type AggregateOrder } from '../../lib/search/aggregate.js';
import { canonicalFilters, FILTER_NAMES, type Filters } from '../../lib/search/filters.js';
import type { ExportBatch, ExportCursor, ExportQuery, ReadOptions } from '../../lib/search/provider.js';
import type { AppContext } from '../context.js';
import { readOptionsFor } from '../middleware/client-gone.js';
import { NO_STORE, replyHead, replyJson } from '../middleware/reply.js';
import { filtersParam, intParam, onlyParams, stringParam } from '../middleware/validate.js';
import { publicBucket, publicMetrics, type PublicBucket, type PublicMetrics } from '../presenters/aggregate.js';
import { CONTENT_TYPES, csvHeader, csvLine, EXPORT_FORMATS, type ExportFormat, ndjsonLine } from '../presenters/export.js';
import type { ContractRoutes } from './contract-routes.js';
import { labelsOf } from './labels.js';
import { MAX_QUERY_LENGTH } from './documents.js';

const AGGREGATE_PARAMS = ['q', ...FILTER_NAMES, 'group_by', 'then_by', 'order_by', 'limit'];
const EXPORT_PARAMS = ['format', 'q', ...FILTER_NAMES];
/** Documents an export reads from the engine at a time: the memory it holds, whatever the total. */
export const EXPORT_BATCH = 500;
/** A client that reads nothing of an export for this long is disconnected (its work released). */
export const EXPORT_STALL_MS = 60_000;
/** Buckets listed at each level at most. */
export const MAX_BUCKETS = 100;

export interface AggregateParams {
  q?: string;
  filters: Filters;
  groupBy: Grouping;
  thenBy?: Grouping;
  orderBy: AggregateOrder;
  limit: number;
}

export interface AggregateBody {
  query: string | null;
  filters: Filters;
  group_by: Grouping;
  then_by: Grouping | null;
  order_by: AggregateOrder;
  limit: number;
  totals: PublicMetrics;
  buckets: PublicBucket[];
  other: PublicMetrics | null;
}

export function groupingOf(name: string, value: unknown): Grouping {
  const grouping = GROUPINGS.find((g) => g === value);
  if (!grouping) throw new ValidationError(`${name} must be one of ${GROUPINGS.join(', ')}`);
  return grouping;
}

export function orderOf(value: unknown): AggregateOrder {
  const order = AGGREGATE_ORDERS.find((o) => o === value);
  if (!order) throw new ValidationError(`order_by must be one of ${AGGREGATE_ORDERS.join(', ')}`);
  return order;
}

/** GET /v1/aggregate's parameters, each checked (422 naming it). */
function aggregateParams(req: Request): AggregateParams {
  onlyParams(req, AGGREGATE_PARAMS);
  const groupBy = groupingOf('group_by', stringParam(req, 'group_by', { required: true }));
  const then = stringParam(req, 'then_by');
  const thenBy = then === undefined ? undefined : groupingOf('then_by', then);
  if (thenBy === groupBy) throw new ValidationError('then_by must differ from group_by');
  const order = stringParam(req, 'order_by');
  return {
    q: stringParam(req, 'q', { maxLength: MAX_QUERY_LENGTH }),
    filters: filtersParam(req),
    groupBy,
    thenBy,
    orderBy: order === undefined ? 'value' : orderOf(order),
    limit: intParam(req, 'limit', 10, 1, MAX_BUCKETS),
  };
}

/** The aggregate answer (GET /v1/aggregate, the MCP tool `aggregate`). */
export async function aggregateDocuments(ctx: AppContext, p: AggregateParams, read: ReadOptions): Promise<AggregateBody> {
  const result = await ctx.search.aggregate(
    {
      // Stored text has Greek letters for look-alike signs (ingest): a query pasted from an original too.
      text: p.q === undefined ? undefined : greekLetters(p.q),
      filters: p.filters,
      groupBy: p.thenBy ? [p.groupBy, p.thenBy] : [p.groupBy],
      orderBy: p.orderBy,
      limit: p.limit,
      metrics: 'all',
      other: true,
    },
    read,
  );
  const [outer, inner] = await Promise.all([
    labelsOf(
      ctx,
      p.groupBy,
      result.buckets.map((b) => b.key),
      read,
    ),
    p.thenBy
      ? labelsOf(
          ctx,
          p.thenBy,
          result.buckets.flatMap((b) => (b.buckets ?? []).map((s) => s.key)),
          read,
        )
      : undefined,
  ]);
  return {
    query: p.q ?? null,
    filters: canonicalFilters(p.filters),
    group_by: p.groupBy,
    then_by: p.thenBy ?? null,
    order_by: p.orderBy,
    limit: p.limit,
    totals: publicMetrics(result.totals),
    buckets: result.buckets.map((b) => publicBucket(b, outer, inner)),
    other: result.other && publicMetrics(result.other),
  };
}

/** Writes `chunk`, then waits while the client is not reading it; a ClientGoneError once it is gone or stalled. */
function send(res: Response, chunk: string): Promise<void> {
  if (res.destroyed) return Promise.reject(new ClientGoneError());
  if (res.write(chunk)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      clearTimeout(stall);
      res.off('drain', drained);
      res.off('close', closed);
      if (err) reject(err);
      else resolve();
    };
    const drained = () => done();
    const closed = () => done(new ClientGoneError());
    const stall = setTimeout(() => {
      res.destroy();
      done(new ClientGoneError());
    }, EXPORT_STALL_MS);
    res.once('drain', drained);
    res.once('close', closed);
  });
}

/**
 * Streams an export from its first batch (read before the head, so that an engine failing at once is
 * a proper error answer) to its last, one batch in memory. Past the head a failure can only cut the
 * answer short: the connection is destroyed, so the client sees an incomplete transfer, never a
 * complete-looking file; a client gone (or stalled) ends the work and what the engine held for it.
 */
async function streamExport(ctx: AppContext, req: Request, res: Response, format: ExportFormat, q: ExportQuery, read: ReadOptions): Promise<void> {
  let batch: ExportBatch = await ctx.search.exportBatch(q, null, read);
  replyHead(res, 200, CONTENT_TYPES[format], [...NO_STORE, 'Content-Disposition', `attachment; filename="export.${format}"`]);
  let open: ExportCursor | null = batch.cursor;
  try {
    if (req.method === 'HEAD') return;
    const line = format === 'csv' ? csvLine : ndjsonLine;
    if (format === 'csv') await send(res, csvHeader());
    for (;;) {
      await send(res, batch.rows.map(line).join(''));
      if (batch.cursor === null) break;
      open = batch.cursor;
      batch = await ctx.search.exportBatch(q, batch.cursor, read);
      open = batch.cursor;
    }
    open = null;
  } catch (err) {
    if (!(err instanceof ClientGoneError) && !read.signal?.aborted) ctx.log.warn({ err }, 'export cut short');
    res.destroy();
  } finally {
    if (open) await ctx.search.endExport(open);
    if (!res.destroyed) res.end();
  }
}

export function registerAnalysis(routes: ContractRoutes, ctx: AppContext): void {
  routes.add('get', '/v1/aggregate', async (req, res) => {
    const params = aggregateParams(req);
    replyJson(res, await aggregateDocuments(ctx, params, readOptionsFor(res)));
  });

  routes.add('get', '/v1/export', async (req, res) => {
    onlyParams(req, EXPORT_PARAMS);
    const format = EXPORT_FORMATS.find((f) => f === stringParam(req, 'format', { required: true }));
    if (!format) throw new ValidationError(`format must be one of ${EXPORT_FORMATS.join(', ')}`);
    const q = stringParam(req, 'q', { maxLength: MAX_QUERY_LENGTH });
    const filters = filtersParam(req);
    const text = q === undefined ? undefined : greekLetters(q);
    await streamExport(ctx, req, res, format, { text, filters, size: EXPORT_BATCH }, readOptionsFor(res));
  });
}
