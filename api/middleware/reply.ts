// The one way a route answers: status, content type, length and the quota headers admission left on the
// response, written in one writeHead call. restify's res.send sets each header with setHeader (the name
// lower-cased and stored, both validated, then read back when the head is written) and negotiates a
// formatter; on this path, which every request takes, that was most of what the quota headers cost
// (bench/api-overhead, docs/benchmarks-history.md "API overhead"). Errors still leave through restify's
// send and our formatter (errors.ts), which adds the quota headers there.
import type { Response } from 'restify';

declare module 'restify' {
  interface Response {
    /** The quota headers of an admitted request, as name, value, name, value (set by admission). */
    quotaHeaders?: string[];
  }
}

/**
 * On every response, errors included (errors.ts): no MIME sniffing of what we send, and no cache
 * keeping an answer meant for one API key.
 */
export const SECURITY_HEADERS = ['X-Content-Type-Options', 'nosniff'] as const;
export const NO_STORE = ['Cache-Control', 'no-store'] as const;
/**
 * The headers of an HTML page of ours (the dashboard, the explore page): `policy`, framed by no other
 * site (clickjacking), no referrer sent to a page it links to, and kept by no cache.
 */
export function pageHeaders(policy: string): string[] {
  return ['Content-Security-Policy', policy, 'X-Frame-Options', 'DENY', 'Referrer-Policy', 'no-referrer', NO_STORE[0], NO_STORE[1]];
}

/** On every response when clients reach the API over https (its own TLS, or PDI_PUBLIC_URL https). */
export const HSTS = ['Strict-Transport-Security', 'max-age=31536000'] as const;

/**
 * Answers `body` as it is, with SECURITY_HEADERS and `headers` (name, value, …; by default NO_STORE).
 * Nothing may have been written to `res` before.
 */
export function reply(res: Response, status: number, contentType: string, body: string | Buffer, headers: readonly string[] = NO_STORE): void {
  const head = [
    'Content-Type',
    contentType,
    'Content-Length',
    String(typeof body === 'string' ? Buffer.byteLength(body) : body.length),
    SECURITY_HEADERS[0],
    SECURITY_HEADERS[1],
  ];
  for (let i = 0; i < headers.length; i++) head.push(headers[i]!);
  const quota = res.quotaHeaders;
  if (quota !== undefined) for (let i = 0; i < quota.length; i++) head.push(quota[i]!);
  res.writeHead(status, head);
  // A HEAD answer keeps Content-Length; Node drops the body.
  res.end(body);
}

/**
 * Starts an answer whose body follows in parts (chunked, no Content-Length): the head reply() writes.
 * Nothing may have been written to `res` before.
 */
export function replyHead(res: Response, status: number, contentType: string, headers: readonly string[] = NO_STORE): void {
  const head = ['Content-Type', contentType, SECURITY_HEADERS[0], SECURITY_HEADERS[1], ...headers, ...(res.quotaHeaders ?? [])];
  res.writeHead(status, head);
}

/** Answers `value` as JSON with status 200. */
export function replyJson(res: Response, value: unknown, headers?: readonly string[]): void {
  reply(res, 200, 'application/json', JSON.stringify(value), headers);
}

/** Puts the quota headers on an answer that leaves through restify's send (errors). */
export function setQuotaHeaders(res: Response): void {
  const quota = res.quotaHeaders;
  if (quota !== undefined) for (let i = 0; i < quota.length; i += 2) res.setHeader(quota[i]!, quota[i + 1]!);
}
