// The JSON body parser, registered only on routes that take a body (parsing costs on every request
// otherwise): checkBodyHeaders first (behind the gate), then readJsonBody. A body in another media
// type or that is not valid JSON gets 400; with a content coding, 415; over 1 MiB, 413 as soon as it
// is declared or has arrived that far (restify's bodyReader read, and dropped, any size to its end).
import type { Next, Request, Response } from 'restify';
import { BadRequestError, ClientGoneError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../lib/errors.js';

export const MAX_BODY_BYTES = 1024 * 1024;

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

export async function checkBodyHeaders(req: Request, _res: Response): Promise<void> {
  // Bodies are read as they are: a content coding would have to be decoded, and its size limit
  // applied to the decoded bytes (restify's bodyReader gunzipped without an error listener, and a body
  // that was not gzip killed the process).
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
  if (declaredTooLarge(req)) throw new PayloadTooLargeError(TOO_LARGE);
}

export const TOO_LARGE = 'Request body exceeds the 1 MiB limit';

/** A Content-Length over the limit: refused on every route, before any of it is read. */
export function declaredTooLarge(req: Request): boolean {
  const length = req.headers['content-length'];
  return length !== undefined && Number(length) > MAX_BODY_BYTES;
}

/**
 * Reads the body into `req.body` (parsed JSON; undefined when there is none). Stops reading once it
 * passes MAX_BODY_BYTES: the error listener then closes the connection after the 413, so the rest of
 * an upload is never read.
 */
export function readJsonBody(req: Request, _res: Response, next: Next): void {
  if (!hasBody(req)) return next();
  const chunks: Buffer[] = [];
  let size = 0;
  const finish = (err?: Error) => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
    req.off('close', onClose);
    next(err);
  };
  // A client that drops the connection mid-body makes the request emit 'aborted' (ECONNRESET) before
  // 'close': it went away, as below, not a server fault to log with its stack.
  const onError = (err: NodeJS.ErrnoException) => finish(err.code === 'ECONNRESET' ? new ClientGoneError() : err);
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
    req.pause();
    finish(new PayloadTooLargeError(TOO_LARGE));
  };
  const onEnd = () => {
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.trim() === '') return finish();
    try {
      req.body = JSON.parse(text);
    } catch {
      return finish(new BadRequestError('Request body is not valid JSON'));
    }
    finish();
  };
  const onClose = () => finish(new ClientGoneError());
  req.on('data', onData);
  req.once('end', onEnd);
  req.once('error', onError);
  req.once('close', onClose);
}
