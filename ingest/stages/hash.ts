// Stage 1: the content hash of a normalized document. Unchanged hash → nothing to re-index or re-embed.
import { createHash } from 'node:crypto';
import type { NormalizedDocument } from '../../index-mappings/document.js';

/** JSON with object keys sorted, so the hash does not depend on key order. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stable(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function contentHash(doc: NormalizedDocument): string {
  return createHash('sha256').update(stable(doc)).digest('hex');
}
