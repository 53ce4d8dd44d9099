// Splits a Diavgeia response body into decision records. Two bodies are accepted: a search page
// `{decisions, info}` (`/search`, `/search/advanced`) and a single decision (`/decisions/{ADA}`).
import type { ParsedRecord } from '../types.js';
import type { DiavgeiaDecision, DiavgeiaSearchPage } from './types.js';
import { isObject, parseJsonBody } from '../values.js';

export function isSearchPage(v: unknown): v is DiavgeiaSearchPage {
  if (!isObject(v) || !Array.isArray(v.decisions) || !isObject(v.info)) return false;
  const info = v.info;
  return typeof info.page === 'number' && typeof info.size === 'number' && typeof info.actualSize === 'number' && typeof info.total === 'number';
}

export function isDecision(v: unknown): v is DiavgeiaDecision {
  return isObject(v) && typeof v.ada === 'string' && typeof v.decisionTypeId === 'string';
}

/** The search envelope, or throws. Used by fetch for paging. */
export function parseSearchPage(body: string): DiavgeiaSearchPage {
  const json = parseJsonBody('diavgeia', body);
  if (!isSearchPage(json)) throw new Error('diavgeia: body is not a search page ({decisions, info} envelope missing)');
  return json;
}

/** A page entry's original is the decision re-serialized on its own; a single decision keeps its bytes. */
function toRecord(decision: unknown, body?: string): ParsedRecord {
  return {
    record: decision,
    original: { body: Buffer.from(body ?? JSON.stringify(decision), 'utf8'), contentType: 'application/json' },
  };
}

export function parseDiavgeia(body: string): ParsedRecord[] {
  const json = parseJsonBody('diavgeia', body);
  if (isSearchPage(json)) return json.decisions.map((d) => toRecord(d));
  if (isDecision(json)) return [toRecord(json, body)];
  throw new Error('diavgeia: body is neither a search page ({decisions, info}) nor a decision');
}
