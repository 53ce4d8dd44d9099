// How a stored original leaves the API: as a file to save, never as a page of the API's origin. A TED
// XML original holding an XHTML <script> was served byte for byte as application/xml, which a browser
// would render and run. Now: an attachment with a file name, no sniffing, and a policy that forbids
// any script, style or request should a browser render it anyway.
import { NO_STORE } from '../middleware/reply.js';

/** File name endings of the types the sources send; anything else is saved as .bin. */
const EXTENSIONS: Record<string, string> = {
  'application/xml': 'xml',
  'text/xml': 'xml',
  'application/json': 'json',
  'application/geo+json': 'geojson',
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'text/plain': 'txt',
  'text/html': 'html',
  'application/zip': 'zip',
};

/** A media type as an upstream may send it; anything else is served as bytes. */
const MEDIA_TYPE = /^[a-z0-9][\w.+-]*\/[\w.+-]+(\s*;\s*[\w.+-]+=("[^"\\\x00-\x1f\x7f]*"|[\w.+-]+))*$/i;

/** The Content-Type to send for a stored original's content type. */
export function downloadType(stored: string): string {
  return MEDIA_TYPE.test(stored.trim()) ? stored.trim() : 'application/octet-stream';
}

/**
 * `ted:123-2024` as `application/xml` → `ted_123-2024.xml`: the id with anything but letters, digits,
 * `.`, `_` and `-` replaced, in ASCII for old clients and in UTF-8 (RFC 6266, 8187) for the Greek ids.
 */
export function downloadHeaders(sourceId: string, contentType: string): string[] {
  const essence = contentType.split(';')[0]!.trim().toLowerCase();
  const ext = EXTENSIONS[essence] ?? 'bin';
  const base = sourceId
    .replace(/[^\p{L}\p{N}._-]/gu, '_')
    .replace(/^\.+/, '_')
    .slice(0, 120);
  const ascii = base.replace(/[^\w.-]/g, '_');
  return [
    ...NO_STORE,
    'Content-Disposition',
    `attachment; filename="${ascii}.${ext}"; filename*=UTF-8''${encodeURIComponent(`${base}.${ext}`)}`,
    'Content-Security-Policy',
    "default-src 'none'; sandbox",
  ];
}
