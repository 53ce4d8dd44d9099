// Splits a TED body into records: a Search API v3 response (JSON, one record per notice) or one eForms
// XML notice (ContractNotice, ContractAwardNotice, PriorInformationNotice, …).
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { ParsedRecord } from '../types.js';
import type { TedEformsRecord, TedSearchResponse, XmlNode } from './types.js';
import { isObject, parseJsonBody } from '../values.js';

const EFORMS_ROOTS = ['ContractNotice', 'ContractAwardNotice', 'PriorInformationNotice', 'BusinessRegistrationInformationNotice'] as const;

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // Prefixes vary between producers (cbc:, cac:, efac: …); element local names do not collide in eForms.
  removeNSPrefix: true,
  // Keep every value a string: CPV `03000000`, version `01` and ids must not become numbers.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // Every element an array, so one lot and many lots read the same way.
  isArray: (_name, _path, _leaf, isAttribute) => !isAttribute,
});

export function isSearchResponse(v: unknown): v is TedSearchResponse {
  return isObject(v) && Array.isArray(v.notices) && typeof v.totalNoticeCount === 'number';
}

/** The search envelope, or throws. Used by fetch for paging. */
export function parseSearchResponse(body: string): TedSearchResponse {
  const json = parseJsonBody('ted', body);
  if (!isSearchResponse(json)) throw new Error('ted: body is not a search response ({notices, totalNoticeCount} missing)');
  return json;
}

function looksLikeXml(body: string, contentType?: string): boolean {
  return /xml/i.test(contentType ?? '') || /^\s*</.test(body);
}

export function parseEforms(body: string): TedEformsRecord {
  const valid = XMLValidator.validate(body);
  if (valid !== true) throw new Error(`ted: invalid XML (${valid.err.msg} at line ${valid.err.line})`);
  const doc = xml.parse(body) as Record<string, unknown>;
  const root = EFORMS_ROOTS.find((r) => Array.isArray(doc[r]));
  if (!root)
    throw new Error(
      `ted: XML root is not an eForms notice (${
        Object.keys(doc)
          .filter((k) => !k.startsWith('?'))
          .join(', ') || 'none'
      })`,
    );
  const notice = (doc[root] as XmlNode[])[0];
  if (!isObject(notice)) throw new Error(`ted: empty ${root}`);
  return { format: 'eforms', root, notice: notice as XmlNode };
}

export function parseTed(body: string, contentType?: string): ParsedRecord[] {
  if (looksLikeXml(body, contentType)) {
    const record = parseEforms(body);
    return [{ record, original: { body: Buffer.from(body, 'utf8'), contentType: 'application/xml' } }];
  }
  const res = parseSearchResponse(body);
  return res.notices.map((n) => {
    if (!isObject(n)) throw new Error('ted: a notice is not an object');
    return { record: n, original: { body: Buffer.from(JSON.stringify(n), 'utf8'), contentType: 'application/json' } };
  });
}
