// The one error formatter: every error leaves as {"detail": string} with its status. Errors that are
// not ours (AppError) and are 5xx are masked; their stack is logged, never sent.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Request, Response, Server } from 'restify';
import { AppError, isStorageFull, operatorMessage, STORAGE_FULL } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import { needsAdmission, type Admit } from './admission.js';
import { afterPause } from './refusal-pacing.js';
import { NO_STORE, SECURITY_HEADERS, setQuotaHeaders } from './reply.js';
import { percentDecode } from './validate.js';

const MASKED = 'Internal server error';

interface HttpError extends Error {
  statusCode?: number;
}

function statusOf(err: HttpError): number {
  return typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode <= 599 ? err.statusCode : 500;
}

/** Rewords restify's own errors into one plain sentence each. */
function detailOf(req: Request, err: HttpError, status: number): string {
  if (status === 507) return STORAGE_FULL;
  if (status >= 500 && !(err instanceof AppError)) return MASKED;
  switch (err.name) {
    case 'ResourceNotFoundError':
      return `Not found: ${req.method} ${req.getPath()}`;
    case 'MethodNotAllowedError':
      return `Method ${req.method} is not allowed on ${req.getPath()}`;
    case 'BadRequestError':
      return err instanceof AppError ? err.message : 'Malformed request';
    default:
      return err.message || MASKED;
  }
}

/** restify formatter for application/json: errors become {detail}; everything else is JSON. */
export function formatJson(req: Request, res: Response, body: unknown): string {
  let data: string;
  if (body instanceof Error && body.name === 'ResourceNotFoundError' && percentDecode(req.getPath()) === null) {
    // restify matches no route for a path that does not decode: a malformed request, not a missing route.
    res.statusCode = 422;
    data = JSON.stringify({ detail: 'The URL path is not valid percent-encoded UTF-8' });
  } else if (body instanceof Error) {
    const status = statusOf(body as HttpError);
    res.statusCode = status;
    data = JSON.stringify({ detail: detailOf(req, body as HttpError, status) });
  } else {
    data = JSON.stringify(body === undefined ? null : body);
  }
  res.setHeader('Content-Length', Buffer.byteLength(data));
  return data;
}

/** The errors of requests that matched no route: restify raises them before any route step runs. */
const ROUTING_ERRORS = new Set(['ResourceNotFoundError', 'MethodNotAllowedError']);

/**
 * What Node's HTTP parser rejects before restify sees a request: raw non-ASCII bytes in the request
 * line (what `curl "…?q=σύμβαση"` sends), oversized headers, broken syntax, a request too slow to
 * arrive. Node would answer with an empty body; the contract wants {"detail"} on every error.
 */
function clientErrorResponse(err: NodeJS.ErrnoException & { rawPacket?: Buffer }): [number, string] {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    // Node counts the request line against its header limit (16 KiB): when the request line of the
    // bytes that overflowed takes half of it or more, the URL is what is too long (RFC 9110 15.5.15).
    // A request that arrived in small pieces cannot be told apart, and stays a 431.
    const raw = err.rawPacket ?? Buffer.alloc(0);
    const lineEnd = raw.indexOf('\r\n');
    const urlTooLong = /^[A-Z]+ \//.test(raw.subarray(0, 32).toString('latin1')) && (lineEnd === -1 ? raw.length : lineEnd) >= 8_192;
    return urlTooLong ? [414, 'Request URL is too long'] : [431, 'Request headers are too large'];
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'Request timed out'];
  // RFC 9110 15.6.2: a method the server does not recognise is a 501.
  if (err.code === 'HPE_INVALID_METHOD') return [501, 'Unknown HTTP method'];
  const line = err.rawPacket?.subarray(0, Math.max(0, err.rawPacket.indexOf('\r\n'))) ?? Buffer.alloc(0);
  if (err.code === 'HPE_INVALID_URL') {
    return line.some((byte) => byte >= 0x80)
      ? [400, 'Malformed HTTP request; percent-encode non-ASCII characters in the URL (e.g. curl --get --data-urlencode "q=σύμβαση")']
      : [400, 'Malformed HTTP request; percent-encode control characters and spaces in the URL'];
  }
  // A space ends the URL, so `GET /v1/search?q=a b HTTP/1.1` fails later, on the version: a request
  // line of more than three parts had a space in its URL.
  if (/^[A-Z]+ \S+( \S+){2,}$/.test(line.toString('latin1'))) return [400, 'Malformed HTTP request; percent-encode control characters and spaces in the URL'];
  return [400, 'Malformed HTTP request'];
}

/** Answers `{"detail"}` on a bare socket (no response object: the parser refused, or CONNECT) and closes it. */
function endWithError(socket: Duplex, status: number, detail: string): void {
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n${ERROR_HEADERS.map(([n, v]) => `${n}: ${v}\r\n`).join('')}Connection: close\r\n\r\n${body}`,
  );
}

/** The headers of every error (reply.ts): written by hand where there is no response object. */
const ERROR_HEADERS: [string, string][] = [
  [SECURITY_HEADERS[0], SECURITY_HEADERS[1]],
  [NO_STORE[0], NO_STORE[1]],
];

/** A complete error answer on a response restify never saw. */
function answerError(res: ServerResponse, status: number, detail: string): void {
  const body = JSON.stringify({ detail });
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
    ...Object.fromEntries(ERROR_HEADERS),
  });
  res.end(body);
}

export function installErrorHandling(server: Server, log: Logger, admit: Admit): void {
  server.server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex & { bytesWritten?: number }) => {
    // As Node itself does: answer only on a connection that has not sent anything yet.
    if (err.code === 'ECONNRESET' || !socket.writable || (socket.bytesWritten ?? 0) > 0) {
      socket.destroy();
      return;
    }
    const [status, detail] = clientErrorResponse(err);
    log.debug({ code: err.code, status }, 'request rejected by the HTTP parser');
    endWithError(socket, status, detail);
  });

  // What Node answers itself without a body: an Expect other than 100-continue (417) and CONNECT
  // (the connection closed without a word). The contract wants {"detail"} on every error.
  server.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    answerError(res, 417, `Expect: ${req.headers.expect} is not supported`);
  });
  server.server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    endWithError(socket, 405, 'Method CONNECT is not allowed: this is no proxy');
  });
  // Node's own answer to an HTTP/1.1 request without Host is a bare 400. Its check is off, and this
  // one, in front of restify's request listener, answers with a detail as RFC 9112 3.2 asks.
  (server.server as { requireHostHeader?: boolean }).requireHostHeader = false;
  const [restifyRequest] = server.server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.server.removeAllListeners('request');
  server.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.host !== undefined || req.httpVersion !== '1.1') return restifyRequest(req, res);
    answerError(res, 400, 'An HTTP/1.1 request needs a Host header');
  });

  server.on('restifyError', (req: Request, res: Response, err: HttpError, cb: () => void) => {
    // Errors are always JSON, whatever the client's Accept header asked for.
    res.setHeader('Content-Type', 'application/json');
    for (const [name, value] of ERROR_HEADERS) res.setHeader(name, value);
    // A request body not read to its end (refused before or while reading it): closing the connection
    // after the answer is cheaper than Node reading the rest, however long, to keep it alive.
    if (!req.complete) res.setHeader('Connection', 'close');
    if (ROUTING_ERRORS.has(err.name) && needsAdmission(req.getPath())) {
      // An unknown /v1 route needs a key and counts like any other request; a refusal (401, 429) is
      // sent instead of the 404/405, and restify then skips its own send.
      try {
        admit(req, res);
      } catch (refusal) {
        setQuotaHeaders(res);
        return afterPause(refusal, () => {
          res.send(refusal);
          cb();
        });
      }
    }
    setQuotaHeaders(res);
    // restify sends an error with a statusCode as it is, and any other as a 500 of its message: a
    // full disk gets its 507 here, before that.
    if (isStorageFull(err)) err.statusCode = 507;
    const status = statusOf(err);
    // 501 is a route not built yet and 503 an engine that is down: expected, so no stack trace. 499:
    // the client went away (ClientGoneError); restify's send then writes to a closed response, a no-op.
    if (status === 499) log.debug({ method: req.method, path: req.getPath() }, 'client went away; its engine read was dropped');
    else if (status === 501) log.info({ method: req.method, path: req.getPath() }, 'not implemented yet');
    else if (status === 503) log.warn({ method: req.method, path: req.getPath(), detail: operatorMessage(err) }, 'engine unavailable');
    else if (status === 507)
      log.error({ method: req.method, path: req.getPath(), error: (err as Error).message }, "write refused: the data directory's disk is full");
    else if (status === 504) log.warn({ method: req.method, path: req.getPath() }, 'engine read ran past its deadline; abandoned');
    else if (status >= 500) log.error({ err, method: req.method, path: req.getPath() }, 'request failed');
    return cb();
  });
}
