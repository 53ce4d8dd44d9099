// GET /v1/models: the models usable by POST /v1/ask, from PDI_ASK_MODELS. No key, no quota.
import type { RequestHandler, Server } from 'restify';
import type { AppContext } from '../context.js';
import { replyJson } from '../middleware/reply.js';

export function registerModels(server: Server, ctx: AppContext): void {
  const [fallback] = ctx.config.askModels;
  const body = {
    models: ctx.config.askModels.map((id) => ({ id, default: id === fallback })),
    default: fallback,
  };
  const send: RequestHandler = async (_req, res) => {
    replyJson(res, body);
  };
  server.get('/v1/models', send);
  server.head('/v1/models', send);
}
