// One TED notice → one NormalizedDocument, from either shape parse() yields: a Search API notice
// (JSON) or an eForms XML notice. Both go through NoticeFacts (facts.ts).
import type { NormalizedDocument } from '../../../index-mappings/document.js';
import { MalformedRecordError } from '../types.js';
import { eformsFacts } from './eforms.js';
import { buildTedDocument, searchFacts } from './facts.js';
import type { TedEformsRecord, TedSearchNotice } from './types.js';
import { isObject } from '../values.js';

export function normalizeTed(record: unknown): NormalizedDocument {
  if (!isObject(record)) throw new MalformedRecordError('ted: record is not an object');
  if (record.format === 'eforms' && isObject(record.notice)) return buildTedDocument(eformsFacts(record as unknown as TedEformsRecord));
  if ('publication-number' in record) return buildTedDocument(searchFacts(record as TedSearchNotice));
  throw new MalformedRecordError('ted: record is neither a search notice (publication-number) nor an eForms notice');
}
