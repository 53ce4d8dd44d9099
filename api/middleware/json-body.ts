// The JSON body parser, registered only on routes that take a body (parsing costs on every request
// otherwise): checkBodyHeaders first (behind the gate), then readJsonBody. A body in another media
// type or that is not valid JSON gets 400; with a content coding, 415; over 1 MiB, 413.
import restify, { type Request, type RequestHandler, type Response } from 'restify';
import { BadRequestError, UnsupportedMediaTypeError } from '../../lib/errors.js';

export const MAX_BODY_BYTES = 1024 * 1024;

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

export async function checkBodyHeaders(req: Request, _res: Response): Promise<void> {
  // restify's bodyReader gunzips without an error listener (a body that is not gzip, or none at all,
  // killed the process) and applies the size limit to the compressed bytes, so no content coding
  // reaches it.
  const coding = req.headers['content-encoding'];
  if (coding !== undefined) {
    if (coding.trim().toLowerCase() !== 'identity') {
      throw new UnsupportedMediaTypeError('Content-Encoding is not supported; send the request body uncompressed');
    }
    delete req.headers['content-encoding'];
  }
  if (!hasBody(req)) return;
  if (!/^application\/([\w.+-]+\+)?json$/i.test(req.getContentType())) {
    throw new BadRequestError('Request body must be JSON (Content-Type: application/json)');
  }
}

export const readJsonBody: RequestHandler[] = [
  restify.plugins.bodyReader({ maxBodySize: MAX_BODY_BYTES }),
  ...[restify.plugins.jsonBodyParser({ mapParams: false })].flat(),
];
