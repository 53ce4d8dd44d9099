// The JSON body parser, registered only on routes that take a body (parsing costs on every request
// otherwise): requireJsonType first (behind the gate), then readJsonBody. A body in another media
// type or that is not valid JSON gets 400; over 1 MiB, 413.
import restify, { type Request, type RequestHandler, type Response } from 'restify';
import { BadRequestError } from '../../lib/errors.js';

export const MAX_BODY_BYTES = 1024 * 1024;

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

export async function requireJsonType(req: Request, _res: Response): Promise<void> {
  if (hasBody(req) && !/^application\/([\w.+-]+\+)?json$/i.test(req.getContentType())) {
    throw new BadRequestError('Request body must be JSON (Content-Type: application/json)');
  }
}

export const readJsonBody: RequestHandler[] = [
  restify.plugins.bodyReader({ maxBodySize: MAX_BODY_BYTES }),
  ...[restify.plugins.jsonBodyParser({ mapParams: false })].flat(),
];
