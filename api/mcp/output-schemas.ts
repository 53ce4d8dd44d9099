// What each MCP tool returns, as its outputSchema: clients read structuredContent by it, and the SDK
// checks every answer against it before sending. The same shapes as the REST bodies (docs/openapi.json).
import * as z from 'zod';
import { GROUPINGS } from '../../index-mappings/analysis.js';
import { PARTY_ROLES } from '../../index-mappings/document.js';
import { ENTITY_TYPES } from '../../lib/entities.js';
import { AGGREGATE_ORDERS } from '../../lib/search/aggregate.js';

const metadata = {
  source_id: z.string(),
  source: z.string(),
  country: z.string(),
  title: z.string(),
  doc_type: z.string(),
  doc_category: z.string(),
  published_at: z.string(),
  source_url: z.string(),
  language: z.string(),
  quality_score: z.number(),
};

/** The full-content fields (FULL_CONTENT_FIELDS), null where a document stored before a field existed lacks it. */
const fullContent = {
  content: z.string().nullable(),
  summary: z.string().nullable(),
  entities: z.object({ afm: z.array(z.string()), ada: z.array(z.string()), names: z.array(z.string()) }).nullable(),
  parties: z.array(z.object({ role: z.enum(PARTY_ROLES), name: z.string().nullable(), afm: z.string().nullable() })),
  procedure_type: z.string().nullable(),
  tenders_received: z.number().nullable(),
  amount: z.object({ value: z.number(), currency: z.string() }).nullable(),
  cpv: z.array(z.string()).nullable(),
  region: z.string().nullable(),
  sector: z.string().nullable(),
};

const page = { total: z.number().int(), limit: z.number().int(), offset: z.number().int() };

export const SEARCH_OUTPUT = {
  query: z.string(),
  results: z.array(z.object({ ...metadata, snippet: z.string() })),
  ...page,
};

export const DOCUMENT_OUTPUT = { ...metadata, ...fullContent, content_truncated: z.boolean() };

export const ASK_OUTPUT = {
  question: z.string(),
  answer: z.string(),
  sources: z.array(z.object({ source_id: z.string(), source: z.string(), title: z.string(), source_url: z.string(), relevance: z.number() })),
  context_preview: z.string(),
};

export const ENTITY_OUTPUT = {
  identifier: z.string(),
  type: z.enum(ENTITY_TYPES),
  valid: z.boolean().nullable(),
  names: z.array(z.string()),
  afm: z.array(z.string()),
  sources: z.record(z.string(), z.number().int()),
  first_seen: z.string().nullable(),
  last_seen: z.string().nullable(),
  total_contract_value: z.number(),
  counterparties: z.array(
    z.object({ name: z.string().nullable(), afm: z.string().nullable(), role: z.enum(['buyer', 'supplier']), documents: z.number().int() }),
  ),
  matches: z.array(z.object({ ...metadata, relevance: z.number() })),
  ...page,
};

export const SIMILAR_OUTPUT = {
  source_id: z.string(),
  results: z.array(z.object({ ...metadata, similarity: z.number() })),
  total: z.number().int(),
};

/** structuredContent is an object, so the list of GET /v1/sources comes as `sources` (the text keeps the bare list). */
export const SOURCES_OUTPUT = {
  sources: z.array(
    z.looseObject({
      name: z.string(),
      label: z.string(),
      status: z.string(),
      description: z.string(),
      country: z.string(),
      last_ingest: z.looseObject({ status: z.string(), finished_at: z.string().nullable() }).nullable(),
    }),
  ),
};

/** The metrics of GET /v1/aggregate's totals, buckets and other (api/presenters/aggregate.ts). */
const aggregateMetrics = {
  documents: z.number().int(),
  contracts: z.number().int(),
  value_sum: z.number(),
  value_median: z.number().nullable(),
  tenders_stated: z.number().int(),
  tenders_mean: z.number().nullable(),
  single_bid_share: z.number().nullable(),
  first_published: z.string().nullable(),
  last_published: z.string().nullable(),
};
const labelled = { key: z.string(), label: z.string().nullable(), label_el: z.string().nullable(), ...aggregateMetrics };

export const AGGREGATE_OUTPUT = {
  query: z.string().nullable(),
  filters: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  group_by: z.enum(GROUPINGS),
  then_by: z.enum(GROUPINGS).nullable(),
  order_by: z.enum(AGGREGATE_ORDERS),
  limit: z.number().int(),
  totals: z.object(aggregateMetrics),
  buckets: z.array(
    z.object({
      ...labelled,
      buckets: z.array(z.object(labelled)).optional(),
      other: z.object(aggregateMetrics).nullable().optional(),
    }),
  ),
  other: z.object(aggregateMetrics).nullable(),
};
