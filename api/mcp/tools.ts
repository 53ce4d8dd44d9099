// The MCP tools (Enterprise): each one calls the service its REST route calls (api/routes/, lib/),
// so search, ask, entity and similar answer the same over MCP as over /v1. Results are JSON text and the
// same as structuredContent, by each tool's outputSchema (output-schemas.ts); every document in them
// carries its source_id and source_url.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { SOURCE_NAMES } from '../../index-mappings/sources.js';
import { parseEntityQuery } from '../../lib/entities.js';
import { AppError } from '../../lib/errors.js';
import { greekLetters } from '../../lib/greek.js';
import { similarTo } from '../../lib/semantic/similar.js';
import type { AppContext } from '../context.js';
import { listingOf } from '../presenters/document.js';
import { findDocument, MAX_QUERY_LENGTH, searchDocuments } from '../routes/documents.js';
import { SEARCH_SORTS, type SearchSort } from '../../lib/search/provider.js';
import { FILTER_NAMES, filterArgument, filtersFromJson, type FilterName, type Filters, type JsonType } from '../../lib/search/filters.js';
import { askBody } from '../routes/semantic.js';
import { sourceList } from '../routes/sources.js';
import { AGGREGATE_OUTPUT, ASK_OUTPUT, DOCUMENT_OUTPUT, ENTITY_OUTPUT, SEARCH_OUTPUT, SIMILAR_OUTPUT, SOURCES_OUTPUT } from './output-schemas.js';
import { GROUPINGS, type Grouping } from '../../index-mappings/analysis.js';
import { AGGREGATE_ORDERS, type AggregateOrder } from '../../lib/search/aggregate.js';
import { aggregateDocuments, MAX_BUCKETS } from '../routes/analysis.js';
import { ValidationError } from '../../lib/errors.js';

export const TOOL_NAMES = ['search_documents', 'aggregate', 'get_document', 'ask_question', 'resolve_entity', 'similar_documents', 'list_sources'] as const;

const SOURCES_TEXT = `${SOURCE_NAMES.join(', ')} (e_procurement means kimdis)`;
/** The longest document text get_document returns by default: a whole decision fits, a 300-page tender does not. */
const DEFAULT_MAX_CHARS = 20_000;

const sourceId = z.string().min(1).describe('A document id as the other tools return it, e.g. "diavgeia:ΨΞ8Ε46ΜΤΛΡ-ΒΛΟ".');

type SearchArgs = { query: string; translate: boolean; sort: SearchSort; limit: number; offset: number } & Partial<Record<FilterName, unknown>>;

const ZOD_OF: Record<JsonType, () => z.ZodType> = { string: () => z.string(), number: () => z.number().min(0), boolean: () => z.literal(true) };

/** Each filter (lib/search/filters.ts) as a tool argument, of the JSON type a body takes it in. */
function filterArguments(): Record<FilterName, z.ZodOptional<z.ZodType>> {
  return Object.fromEntries(
    FILTER_NAMES.map((name) => {
      const { description, json } = filterArgument(name);
      return [name, ZOD_OF[json]().optional().describe(description)];
    }),
  ) as Record<FilterName, z.ZodOptional<z.ZodType>>;
}

/** The filters among a tool's arguments, checked as the REST routes check them (a 422's detail as the tool error). */
function filtersOf(args: Partial<Record<FilterName, unknown>>): Filters {
  return filtersFromJson(Object.fromEntries(FILTER_NAMES.filter((name) => args[name] !== undefined).map((name) => [name, args[name]])));
}

/**
 * An identifier a client sent as a JSON number, as its digits: assistants often type a VAT number as a
 * number, which drops its leading zeros, so an AFM is padded back to its 9 digits.
 */
export function identifierText(identifier: string | number, type: string): string {
  if (typeof identifier === 'string') return identifier;
  const digits = String(identifier);
  return type === 'afm' ? digits.padStart(9, '0') : digits;
}

/** What a tool's engine reads carry: the call's abort signal, and the key whose turn it takes in the reader queue. */
type Read = { signal: AbortSignal; tenant: string };

/**
 * The tool's answer as JSON text and as structuredContent (`structured` of it: an object, where the
 * value is a list). Our errors (AppError: 404, 422, 503…) become tool errors with their detail, as the
 * REST error body has it; anything else is logged and masked, as errors.ts masks a 500.
 */
function tool<A, V extends object>(
  ctx: AppContext,
  tenant: string,
  name: string,
  run: (args: A, read: Read) => Promise<V>,
  structured: (value: V) => object = (value) => value,
) {
  return async (args: A, extra: { signal: AbortSignal }): Promise<CallToolResult> => {
    try {
      const value = await run(args, { signal: extra.signal, tenant });
      return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: structured(value) as Record<string, unknown> };
    } catch (err) {
      if (err instanceof AppError) return { content: [{ type: 'text', text: err.message }], isError: true };
      ctx.log.error({ err, tool: name }, 'MCP tool failed');
      return { content: [{ type: 'text', text: 'Internal server error' }], isError: true };
    }
  };
}

/** A new MCP server holding the seven tools over `ctx` for one API key (one per HTTP request in stateless mode). */
export function mcpServer(ctx: AppContext, tenant: string): McpServer {
  const server = new McpServer(
    { name: 'public-data-intelligence', version: '1.0.0' },
    {
      instructions:
        'Greek public-sector and EU procurement documents: decisions (Diavgeia), contracts and tenders (TED, KIMDIS), statistics, energy regulation, permits. Search or ask first, then read documents by source_id; cite source_url.',
    },
  );
  const readOnly = { readOnlyHint: true, openWorldHint: false };

  server.registerTool(
    'search_documents',
    {
      title: 'Search documents',
      description: `Full-text search across all sources or one. Use it for keywords, names, a VAT number (AFM) or a decision id (ADA); Greek and Latin script both match. Returns {query, results, total, limit, offset}: each result is a metadata record with source_id, source, title, doc_type, published_at and source_url, and a snippet: a passage of the document with the query's words marked <mark>…</mark> (the rest HTML-escaped). Narrow by publication date (since/until), source, buyer, supplier or any party (AFM), CPV code or prefix, amount in EUR, procedure, region, category or single-bid; order by relevance or date. Page with offset; read a result with get_document. An English query with translate=true also finds the Greek documents that hold its translation (the official CPV labels' Greek and an English–Greek lexicon), as ask_question does for every English question. Sources: ${SOURCES_TEXT}.`,
      inputSchema: {
        query: z.string().min(1).max(MAX_QUERY_LENGTH).describe('Words to search for.'),
        translate: z.boolean().default(false).describe('An English query also finds Greek documents by its Greek translation.'),
        ...filterArguments(),
        sort: z.enum(SEARCH_SORTS).default('relevance').describe('relevance (best match first) or date (newest first).'),
        limit: z.number().int().min(1).max(100).default(10).describe('Results per page, 1 to 100.'),
        offset: z.number().int().min(0).default(0).describe('Results to skip.'),
      },
      outputSchema: SEARCH_OUTPUT,
      annotations: readOnly,
    },
    tool(ctx, tenant, 'search_documents', async ({ query, translate, sort, limit, offset, ...args }: SearchArgs, read) => {
      const body = await searchDocuments(ctx, { q: query, filters: filtersOf(args), limit, offset, sort, translate }, read);
      return (Buffer.isBuffer(body) ? JSON.parse(body.toString('utf8')) : body) as Record<string, unknown>;
    }),
  );

  server.registerTool(
    'aggregate',
    {
      title: 'Aggregate documents',
      description:
        'Totals and buckets of the documents matching a query (optional) and filters, grouped by buyer, supplier (AFM), CPV division/group/code, year, month, source, region, procedure type or category, and optionally by a second grouping within each. Each bucket (and the totals, and `other`: what the listed buckets leave) has documents, contracts with a value, value_sum and value_median in EUR (a procurement whose award and contract share an ADA counted once), mean tenders received, single-bid share, first and last date, and a label (a party\'s name, a CPV label). One call answers "how much did buyer X spend on CPV division 45 by year": {buyer: X, cpv: "45", group_by: "year"}; "which suppliers win most of X\'s contracts": {buyer: X, group_by: "supplier"}.',
      inputSchema: {
        query: z
          .string()
          .min(1)
          .max(MAX_QUERY_LENGTH)
          .optional()
          .describe('Only documents a search of these words finds; leave out for every document that passes the filters.'),
        ...filterArguments(),
        group_by: z.enum(GROUPINGS).describe('What the buckets are keyed by.'),
        then_by: z.enum(GROUPINGS).optional().describe('A second grouping within each bucket (not the same as group_by).'),
        order_by: z.enum(AGGREGATE_ORDERS).default('value').describe('value (largest value first) or documents (most documents first).'),
        limit: z.number().int().min(1).max(MAX_BUCKETS).default(10).describe(`Buckets listed at each level, 1 to ${MAX_BUCKETS}.`),
      },
      outputSchema: AGGREGATE_OUTPUT,
      annotations: readOnly,
    },
    tool(
      ctx,
      tenant,
      'aggregate',
      async (
        {
          query,
          group_by,
          then_by,
          order_by,
          limit,
          ...args
        }: { query?: string; group_by: Grouping; then_by?: Grouping; order_by: AggregateOrder; limit: number } & Partial<Record<FilterName, unknown>>,
        read,
      ) => {
        if (then_by === group_by) throw new ValidationError('then_by must differ from group_by');
        return aggregateDocuments(ctx, { q: query, filters: filtersOf(args), groupBy: group_by, thenBy: then_by, orderBy: order_by, limit }, read);
      },
    ),
  );

  server.registerTool(
    'get_document',
    {
      title: 'Get a document',
      description:
        'One document by source_id: its metadata (title, source, published_at, source_url) and full content fields (content text, summary, entities: AFM/ADA/names found in it, amount, cpv, region, sector). Long content is cut at max_chars; content_truncated says so.',
      inputSchema: {
        source_id: sourceId,
        max_chars: z.number().int().min(1000).max(200_000).default(DEFAULT_MAX_CHARS).describe('Longest content text returned, in characters.'),
      },
      outputSchema: DOCUMENT_OUTPUT,
      annotations: readOnly,
    },
    tool(ctx, tenant, 'get_document', async ({ source_id, max_chars }: { source_id: string; max_chars: number }, read) => {
      const record = listingOf(await findDocument(ctx, source_id, read), true);
      const content = typeof record.content === 'string' ? record.content : '';
      return content.length > max_chars
        ? { ...record, content: content.slice(0, max_chars), content_truncated: true }
        : { ...record, content_truncated: false };
    }),
  );

  server.registerTool(
    'ask_question',
    {
      title: 'Ask a question',
      description:
        "A question in natural language (Greek or English), answered from the documents found by semantic and full-text retrieval together, optionally only among those that pass filters. An English question is translated into Greek (the official CPV labels and an English–Greek lexicon, or the configured language model), so Greek documents are found too; an ΑΦΜ, an ΑΔΑ, a CPV code or a party's name in the question puts the documents that carry it first. Returns {question, answer, sources, context_preview}: sources (source_id, source, title, source_url, relevance 0..1) are the documents the answer rests on, numbered as in context_preview. When no answer generator is configured, answer is a fixed placeholder: read context_preview and the sources instead.",
      inputSchema: {
        question: z.string().min(1).max(MAX_QUERY_LENGTH).describe('The question.'),
        limit: z.number().int().min(1).max(20).default(5).describe('Source documents retrieved, 1 to 20.'),
        model: z
          .enum(ctx.config.askModels as [string, ...string[]])
          .optional()
          .describe('Answer model (GET /v1/models); the first by default.'),
        filters: z
          .strictObject(filterArguments())
          .optional()
          .describe('Only documents that pass every filter given, as search_documents takes them (source, since, until, buyer, supplier, cpv, …).'),
      },
      outputSchema: ASK_OUTPUT,
      annotations: readOnly,
    },
    tool(ctx, tenant, 'ask_question', async (args: { question: string; limit: number; model?: string; filters?: object }, read) => {
      const { question, limit, model, filters } = askBody(args, ctx.config.askModels);
      return ctx.asking.ask(question, limit, model, read, filters);
    }),
  );

  server.registerTool(
    'resolve_entity',
    {
      title: 'Resolve an entity',
      description:
        'Everything known about a company, public body or person across all sources, by VAT number (type afm, 9 digits), name (type name; accents, case and Greeklish are folded) or decision id (type ada). Returns names, AFMs, document counts per source, first and last seen, total contract value, counterparties (buyers and suppliers) and matches: documents with source_id, source_url and relevance. total 0 means nothing was found.',
      inputSchema: {
        identifier: z
          .union([z.string().min(1), z.number().int().nonnegative()])
          .describe('The VAT number, name or decision id (a VAT number may come as a JSON number).'),
        type: z.enum(['afm', 'name', 'ada']).default('afm').describe('What identifier is.'),
        limit: z.number().int().min(1).max(100).default(20).describe('Matching documents per page, 1 to 100.'),
        offset: z.number().int().min(0).default(0).describe('Matching documents to skip.'),
      },
      outputSchema: ENTITY_OUTPUT,
      annotations: readOnly,
    },
    tool(
      ctx,
      tenant,
      'resolve_entity',
      async ({ identifier, type, limit, offset }: { identifier: string | number; type: string; limit: number; offset: number }, read) => {
        return ctx.entityReaders.resolve(parseEntityQuery(identifierText(identifier, type), type), { limit, offset }, read);
      },
    ),
  );

  server.registerTool(
    'similar_documents',
    {
      title: 'Similar documents',
      description:
        'Documents most like a given one (by meaning, or by text when it has no vector), never the document itself or its duplicates. Returns {source_id, results, total}; each result is a metadata record with source_id, source_url and similarity 0..1.',
      inputSchema: {
        source_id: sourceId,
        limit: z.number().int().min(1).max(100).default(10).describe('Documents returned, 1 to 100.'),
      },
      outputSchema: SIMILAR_OUTPUT,
      annotations: readOnly,
    },
    tool(ctx, tenant, 'similar_documents', async ({ source_id, limit }: { source_id: string; limit: number }, read) => {
      return similarTo(ctx.search, await findDocument(ctx, source_id, read), limit, read);
    }),
  );

  server.registerTool(
    'list_sources',
    {
      title: 'List sources',
      description:
        'The data sources: name (what search_documents takes as source), label, status (active when its last ingest succeeded), description and country.',
      inputSchema: {},
      outputSchema: SOURCES_OUTPUT,
      annotations: readOnly,
    },
    tool(
      ctx,
      tenant,
      'list_sources',
      async () => sourceList(ctx),
      (sources) => ({ sources }),
    ),
  );

  return server;
}
