// GET /v1/models: the models usable by POST /v1/ask, from PDI_ASK_MODELS, and the embedder that serves
// semantic retrieval. No key, no quota.
import type { RequestHandler, Server } from 'restify';
import type { AppContext } from '../context.js';
import { embedderInfo } from '../../lib/embedding/index.js';
import { replyJson } from '../middleware/reply.js';

/**
 * The same for every client: shared caches may keep it a while. The embedder changes once without a
 * restart (the model fetched at the first start replaces the fallback), so a minute at most.
 */
const PUBLIC_CACHE = ['Cache-Control', 'public, max-age=60'];

export function registerModels(server: Server, ctx: AppContext): void {
  const [fallback] = ctx.config.askModels;
  const models = ctx.config.askModels.map((id) => ({ id, default: id === fallback }));
  const send: RequestHandler = async (_req, res) => {
    replyJson(res, { models, default: fallback, embedding: embedderInfo(ctx.embedder) }, PUBLIC_CACHE);
  };
  server.get('/v1/models', send);
  server.head('/v1/models', send);
}
