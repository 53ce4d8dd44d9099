// The one error formatter: every error leaves as {"detail": string} with its status. Errors that are
// not ours (AppError) and are 5xx are masked; their stack is logged, never sent.
import type { Request, Response, Server } from 'restify';
import { AppError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';

const MASKED = 'Internal server error';

interface HttpError extends Error {
  statusCode?: number;
}

function statusOf(err: HttpError): number {
  return typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode <= 599 ? err.statusCode : 500;
}

/** Rewords restify's own errors into one plain sentence each. */
function detailOf(req: Request, err: HttpError, status: number): string {
  if (status >= 500 && !(err instanceof AppError)) return MASKED;
  switch (err.name) {
    case 'ResourceNotFoundError':
      return `Not found: ${req.method} ${req.getPath()}`;
    case 'MethodNotAllowedError':
      return `Method ${req.method} is not allowed on ${req.getPath()}`;
    case 'InvalidContentError':
    case 'BadRequestError':
      return err instanceof AppError ? err.message : 'Request body is not valid JSON';
    case 'PayloadTooLargeError':
    case 'RequestEntityTooLargeError':
      return 'Request body exceeds the 1 MiB limit';
    default:
      return err.message || MASKED;
  }
}

/** restify formatter for application/json: errors become {detail}; everything else is JSON. */
export function formatJson(req: Request, res: Response, body: unknown): string {
  let data: string;
  if (body instanceof Error) {
    const status = statusOf(body as HttpError);
    res.statusCode = status;
    data = JSON.stringify({ detail: detailOf(req, body as HttpError, status) });
  } else {
    data = JSON.stringify(body === undefined ? null : body);
  }
  res.setHeader('Content-Length', Buffer.byteLength(data));
  return data;
}

export function installErrorHandling(server: Server, log: Logger): void {
  server.on('restifyError', (req: Request, res: Response, err: HttpError, cb: () => void) => {
    // Errors are always JSON, whatever the client's Accept header asked for.
    res.setHeader('Content-Type', 'application/json');
    const status = statusOf(err);
    if (status >= 500 && status !== 503) log.error({ err, method: req.method, path: req.getPath() }, 'request failed');
    else if (status >= 500) log.warn({ method: req.method, path: req.getPath(), detail: err.message }, 'engine unavailable');
    return cb();
  });
}
