// The semantic routes (Enterprise): POST /v1/ask and GET /v1/similar/{source_id}. Validation here; the
// retrieval, passages, answers and neighbours live in lib/semantic.
import type { Request } from 'restify';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import { canonicalSourceId } from '../../lib/identifiers.js';
import { AskService } from '../../lib/semantic/ask.js';
import { ChatCompletions } from '../../lib/semantic/generator.js';
import { similarTo } from '../../lib/semantic/similar.js';
import type { AppContext } from '../context.js';
import { readOptionsFor } from '../middleware/client-gone.js';
import { replyJson } from '../middleware/reply.js';
import { intParam } from '../middleware/validate.js';
import type { ContractRoutes } from './contract-routes.js';
import { MAX_QUERY_LENGTH } from './documents.js';

export interface AskBody {
  question: string;
  limit: number;
  model: string;
}

/** The ask body's fields, each checked (422 naming the field); unknown fields are ignored. */
export function askBody(body: unknown, models: string[]): AskBody {
  if (body === undefined) throw new ValidationError('question is required');
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ValidationError('Request body must be a JSON object with a question');
  }
  const { question, limit, model } = body as Record<string, unknown>;
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
  return { question, limit: (limit as number | undefined) ?? 5, model: (model as string | undefined) ?? models[0] };
}

function sourceIdParam(req: Request): string {
  const v = String((req.params as Record<string, string>).source_id ?? '');
  if (v.trim() === '') throw new ValidationError('source_id must not be empty');
  return v;
}

export function registerSemantic(routes: ContractRoutes, ctx: AppContext): void {
  const { llm } = ctx.config;
  const asking = new AskService({
    search: ctx.search,
    embedder: ctx.embedder,
    generator: llm ? new ChatCompletions(llm) : null,
    log: ctx.log.child({ component: 'ask' }),
  });

  routes.add('post', '/v1/ask', async (req, res) => {
    const { question, limit, model } = askBody(req.body, ctx.config.askModels);
    replyJson(res, await asking.ask(question, limit, model, readOptionsFor(res)));
  });

  routes.add('get', '/v1/similar/:source_id', async (req, res) => {
    const sourceId = sourceIdParam(req);
    const limit = intParam(req, 'limit', 10, 1, 100);
    const read = readOptionsFor(res);
    // As written first (ids are the engine's keys), then as ingest writes it (`e_procurement:` is `kimdis:`).
    const other = canonicalSourceId(sourceId);
    const doc = (await ctx.search.get(sourceId, read)) ?? (other === null ? null : await ctx.search.get(other, read));
    if (!doc) throw new NotFoundError(`Document not found: ${sourceId}`);
    replyJson(res, await similarTo(ctx.search, doc, limit, read));
  });
}
