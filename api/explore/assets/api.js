// Calls to /v1 with the tab's key in the Authorization header (never in the address), each listed in
// the request panel; quota headers update the account line, and a refusal becomes a readable message.
import { showRequest } from './requests.js';
import { session } from './session.js';
import { fmt, L } from './text.js';

export class ApiError extends Error {
  /** `status` 0: the API could not be reached. */
  constructor(status, detail) {
    super(detail ?? `HTTP ${status}`);
    this.status = status;
    this.detail = detail;
  }
}

/** What a person reads of a refusal: what it means, then the API's own words. */
export function problemText(err) {
  if (!(err instanceof ApiError)) return `${L.e5xx} ${err.message}`;
  if (err.status === 0) return L.eNetwork;
  const meaning = { 401: L.e401, 403: L.e403, 429: L.e429 }[err.status] ?? (err.status >= 500 ? L.e5xx : L.e4xx);
  return `${meaning} ${fmt(L.theApiSays, { status: err.status })} ${err.detail ?? ''}`.trim();
}

async function send(request, key) {
  const { method = 'GET', path, params = {}, body } = request;
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  const headers = { Authorization: `Bearer ${key}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res;
  try {
    res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store', credentials: 'omit' });
  } catch {
    throw new ApiError(0, null);
  }
  session.noteQuota(res.headers);
  if (!res.ok) {
    const detail = await res.json().then(
      (b) => (typeof b?.detail === 'string' ? b.detail : null),
      () => null,
    );
    throw new ApiError(res.status, detail);
  }
  return res;
}

/** `{ method, path, params, body }` (path already encoded) → the answer's JSON; ApiError when refused. */
export async function callApi(request, key = session.key) {
  const withDefaults = { method: 'GET', params: {}, ...request };
  showRequest(withDefaults);
  return (await send(withDefaults, key)).json();
}

/** The file the answer names (Content-Disposition), else `fallback`. */
function fileName(res, fallback) {
  return /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? fallback;
}

/**
 * A file answer (a PDF, a CSV, an original) fetched with the key and kept in the page as a blob: a
 * plain link could not send the Authorization header. Resolves with a link that saves it.
 */
export async function fetchFile(request, fallbackName) {
  const withDefaults = { method: 'GET', params: {}, ...request, output: fallbackName };
  showRequest(withDefaults);
  const res = await send(withDefaults, session.key);
  const blob = await res.blob();
  const name = fileName(res, fallbackName);
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = name;
  return { link, name, size: blob.size };
}
