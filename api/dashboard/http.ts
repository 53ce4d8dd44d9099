// What the dashboard's pages read from a request (its session cookie, a form) and how they answer:
// HTML with a Content-Security-Policy that allows no script at all and only this server's stylesheet.
import type { TLSSocket } from 'node:tls';
import type { Request, Response } from 'restify';
import { ClientGoneError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../lib/errors.js';
import { pageHeaders, reply } from '../middleware/reply.js';
import type { Html } from '../presenters/html.js';
import { SESSION_MAX_MS } from './sessions.js';

export const COOKIE = 'pdi_dashboard';
export const BASE = '/dashboard';

// A page may show a key that was just created: no cache may keep it (pageHeaders: no-store).
const PAGE_HEADERS = pageHeaders("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");

/** The dashboard's forms are a few short fields. */
const MAX_FORM_BYTES = 16 * 1024;

/** The session cookie's value, or undefined. */
export function sessionCookie(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Whether the cookie is Secure: the request came over the server's own TLS, or the operator said that
 * clients reach the server over https through a proxy (PDI_PUBLIC_URL https).
 */
function secure(req: Request, behindHttps: boolean): boolean {
  return behindHttps || (req.socket as Partial<TLSSocket>).encrypted === true;
}

export function setCookie(req: Request, value: string, behindHttps: boolean): string {
  return `${COOKIE}=${value}; Path=${BASE}; Max-Age=${SESSION_MAX_MS / 1000}; HttpOnly; SameSite=Strict${secure(req, behindHttps) ? '; Secure' : ''}`;
}

export function clearCookie(req: Request, behindHttps: boolean): string {
  return `${COOKIE}=; Path=${BASE}; Max-Age=0; HttpOnly; SameSite=Strict${secure(req, behindHttps) ? '; Secure' : ''}`;
}

export function sendPage(res: Response, status: number, page: Html, headers: readonly string[] = []): void {
  reply(res, status, 'text/html; charset=utf-8', page.text, [...PAGE_HEADERS, ...headers]);
}

/** A 303 to another dashboard page: after a POST the browser GETs it, so a reload repeats nothing. */
export function redirect(res: Response, location: string, headers: readonly string[] = []): void {
  reply(res, 303, 'text/plain; charset=utf-8', '', ['Location', location, ...PAGE_HEADERS, ...headers]);
}

/** The fields of an `application/x-www-form-urlencoded` body (what an HTML form posts). */
export function readForm(req: Request): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    return Promise.reject(new UnsupportedMediaTypeError('The dashboard takes forms (Content-Type: application/x-www-form-urlencoded)'));
  }
  if (req.headers['content-encoding'] !== undefined) {
    return Promise.reject(new UnsupportedMediaTypeError('Content-Encoding is not supported; send the form uncompressed'));
  }
  const tooLarge = () => new PayloadTooLargeError(`A dashboard form may be at most ${MAX_FORM_BYTES / 1024} KiB`);
  if (Number(req.headers['content-length'] ?? 0) > MAX_FORM_BYTES) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (err: Error | null) => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (err) return reject(err);
      resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
    };
    // Past the limit the rest is not read: the error listener closes the connection after the 413.
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_FORM_BYTES) return void chunks.push(chunk);
      req.pause();
      finish(tooLarge());
    };
    const onEnd = () => finish(null);
    const onError = () => finish(new ClientGoneError());
    const onClose = () => finish(new ClientGoneError());
    req.on('data', onData).once('end', onEnd).once('error', onError).once('close', onClose);
  });
}
