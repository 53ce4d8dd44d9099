// The semantic routes (Enterprise): POST /v1/ask and GET /v1/similar/{source_id}. Validation here; the
// retrieval, passages, answers and neighbours live in lib/semantic.
import type { Request } from 'restify';
import { ValidationError } from '../../lib/errors.js';
import { similarTo } from '../../lib/semantic/similar.js';
import { filtersFromJson, type Filters } from '../../lib/search/filters.js';
import type { AppContext } from '../context.js';
import { readOptionsFor } from '../middleware/client-gone.js';
import { replyJson } from '../middleware/reply.js';
import { intParam } from '../middleware/validate.js';
import type { ContractRoutes } from './contract-routes.js';
import { findDocument, MAX_QUERY_LENGTH } from './documents.js';

export interface AskBody {
  question: string;
  limit: number;
  model: string;
  /** The `filters` member: only documents that pass them are retrieved. */
  filters: Filters;
}

/** The ask body's fields, each checked (422 naming the field); unknown fields are ignored. */
export function askBody(body: unknown, models: string[]): AskBody {
  if (body === undefined) throw new ValidationError('question is required');
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ValidationError('Request body must be a JSON object with a question');
  }
  const { question, limit, model, filters } = body as Record<string, unknown>;
  if (question === undefined || question === null) throw new ValidationError('question is required');
  if (typeof question !== 'string') throw new ValidationError('question must be a string');
  if (question.trim() === '') throw new ValidationError('question must not be empty');
  if (question.length > MAX_QUERY_LENGTH && [...question].length > MAX_QUERY_LENGTH) {
    throw new ValidationError(`question must be at most ${MAX_QUERY_LENGTH} characters`);
  }
  if (limit !== undefined && !(Number.isInteger(limit) && (limit as number) >= 1 && (limit as number) <= 20)) {
    throw new ValidationError('limit must be an integer from 1 to 20');
  }
  if (model !== undefined && !(typeof model === 'string' && models.includes(model))) {
    throw new ValidationError(`model must be one of the ids listed by GET /v1/models: ${models.join(', ')}`);
  }
  return { question, limit: (limit as number | undefined) ?? 5, model: (model as string | undefined) ?? models[0], filters: filtersFromJson(filters) };
}

function sourceIdParam(req: Request): string {
  const v = String((req.params as Record<string, string>).source_id ?? '');
  if (v.trim() === '') throw new ValidationError('source_id must not be empty');
  return v;
}

export function registerSemantic(routes: ContractRoutes, ctx: AppContext): void {
  routes.add('post', '/v1/ask', async (req, res) => {
    const { question, limit, model, filters } = askBody(req.body, ctx.config.askModels);
    const result = await ctx.asking.ask(question, limit, model, readOptionsFor(res), filters);
    // The four source fields of an ask answer; MCP's ask_question also gives source_url.
    const sources = result.sources.map(({ source_id, source, title, relevance }) => ({ source_id, source, title, relevance }));
    replyJson(res, { ...result, sources });
  });

  routes.add('get', '/v1/similar/:source_id', async (req, res) => {
    const sourceId = sourceIdParam(req);
    const limit = intParam(req, 'limit', 10, 1, 100);
    const read = readOptionsFor(res);
    const doc = await findDocument(ctx, sourceId, read);
    replyJson(res, await similarTo(ctx.search, doc, limit, read));
  });
}
