// Internal documents → public JSON. Strips what clients must not see (embedding, hashes, blob refs).
import { fullContentOf, metadataOf } from '../../index-mappings/document.js';
import type { StoredDocument } from '../../lib/search/provider.js';

export const UPGRADE_HINT = 'Upgrade to Pro for full content: text, summary, entities, amount, CPV codes, region and sector.';

export type PublicDocument = Record<string, unknown>;

/** A listing record: metadata with the upgrade hint for Free, metadata plus full content otherwise. */
export function listingOf(doc: StoredDocument, full: boolean): PublicDocument {
  const out = metadataOf(doc);
  if (!full) {
    out._upgrade_hint = UPGRADE_HINT;
    return out;
  }
  return { ...out, ...fullContentOf(doc) };
}

const COMMA = Buffer.from(',');

/**
 * The body of a search response, `{"query","results","total","limit","offset"}` and `extra`'s members
 * (facets), built around metadata records that are already JSON (SearchHit.metadataJson): byte for byte
 * what JSON.stringify gives for the same response made of metadataOf(doc) objects, without parsing and
 * re-serialising each record.
 */
export function searchBody(query: string, records: Buffer[], total: number, limit: number, offset: number, extra: Record<string, unknown> = {}): Buffer {
  const parts: Buffer[] = [Buffer.from(`{"query":${JSON.stringify(query)},"results":[`)];
  records.forEach((r, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(r);
  });
  const rest = JSON.stringify(extra).slice(1, -1);
  parts.push(Buffer.from(`],"total":${total},"limit":${limit},"offset":${offset}${rest ? `,${rest}` : ''}}`));
  return Buffer.concat(parts);
}

const CLOSE = Buffer.from('}');

/** A JSON object's bytes (a metadata record) with one more string field at its end, without parsing it. */
export function withStringField(record: Buffer, name: string, value: string): Buffer {
  const end = record.lastIndexOf(CLOSE);
  return Buffer.concat([record.subarray(0, end), Buffer.from(`${end > 1 ? ',' : ''}${JSON.stringify(name)}:${JSON.stringify(value)}}`)]);
}
