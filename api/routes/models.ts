// GET /v1/models: the models usable by POST /v1/ask, from PDI_ASK_MODELS, and the embedder that serves
// semantic retrieval. No key, no quota.
import type { RequestHandler, Server } from 'restify';
import type { AppContext } from '../context.js';
import { embedderInfo } from '../../lib/embedding/index.js';
import { replyJson } from '../middleware/reply.js';

/** The same for every client and changed only by a restart: shared caches may keep it a while. */
const PUBLIC_CACHE = ['Cache-Control', 'public, max-age=300'];

export function registerModels(server: Server, ctx: AppContext): void {
  const [fallback] = ctx.config.askModels;
  const body = {
    models: ctx.config.askModels.map((id) => ({ id, default: id === fallback })),
    default: fallback,
    embedding: embedderInfo(ctx.embedder),
  };
  const send: RequestHandler = async (_req, res) => {
    replyJson(res, body, PUBLIC_CACHE);
  };
  server.get('/v1/models', send);
  server.head('/v1/models', send);
}
