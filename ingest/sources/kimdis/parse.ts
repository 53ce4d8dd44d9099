// Splits a ΚΗΜΔΗΣ response body into records. Two bodies are accepted: a Spring page
// `{content, last, …}` (what `POST /{resource}?page=N` returns) and a bare array of content items
// (what harvesters save, e.g. the fixture contract_content_items.json).
import type { ParsedRecord } from '../types.js';
import type { KimdisPage, KimdisRecord } from './types.js';
import { isObject, parseJsonBody } from '../values.js';

/** The page envelope, or throws. `last` is derived from `number`/`totalPages` when it is missing. */
export function parseKimdisPage(body: string): KimdisPage {
  const json = parseJsonBody('kimdis', body);
  if (!isObject(json) || !Array.isArray(json.content)) throw new Error('kimdis: body is not a page ({content, last} envelope missing)');
  let last: boolean;
  if (typeof json.last === 'boolean') last = json.last;
  else if (typeof json.number === 'number' && typeof json.totalPages === 'number') last = json.number + 1 >= json.totalPages;
  else throw new Error('kimdis: page has neither `last` nor `number`/`totalPages`');
  return { ...(json as unknown as KimdisPage), last };
}

function toRecord(item: unknown): ParsedRecord {
  if (!isObject(item)) throw new Error('kimdis: a content item is not an object');
  return {
    record: item as KimdisRecord,
    original: { body: Buffer.from(JSON.stringify(item), 'utf8'), contentType: 'application/json' },
  };
}

export function parseKimdis(body: string): ParsedRecord[] {
  const json = parseJsonBody('kimdis', body);
  if (Array.isArray(json)) return json.map(toRecord);
  if (isObject(json) && Array.isArray(json.content)) return json.content.map(toRecord);
  throw new Error('kimdis: body is neither a page ({content, last, …}) nor an array of content items');
}
