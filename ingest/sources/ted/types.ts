// Upstream shapes of TED: the Search API v3 response (docs/upstream-sources.md §1.2) and the eForms XML notice.

/** A value of the search API: a scalar, an array (one element per lot) or a language map. */
export type TedValue = string | number | null | TedValue[] | { [lang: string]: string | string[] };

/** One notice of `POST /v3/notices/search`: the requested fields, keyed by field name. */
export interface TedSearchNotice {
  'publication-number': string;
  'notice-type'?: string | string[];
  'form-type'?: string | string[];
  'publication-date'?: string | string[];
  'notice-title'?: TedValue;
  links?: { html?: Record<string, string>; xml?: Record<string, string>; pdf?: Record<string, string> };
  [field: string]: unknown;
}

export interface TedSearchResponse {
  notices: TedSearchNotice[];
  totalNoticeCount: number;
  iterationNextToken: string | null;
  timedOut?: boolean;
}

/**
 * An eForms notice as parse() hands it to normalize: the root element name and its content as
 * fast-xml-parser builds it (namespace prefixes removed, every element an array, attributes as `@_x`).
 */
export interface TedEformsRecord {
  format: 'eforms';
  root: 'ContractNotice' | 'ContractAwardNotice' | 'PriorInformationNotice' | 'BusinessRegistrationInformationNotice';
  notice: XmlNode;
}

/** An element: child elements by local name (always arrays; a leaf without attributes is a bare string),
 * attributes as `@_name`, text as `#text`. */
export interface XmlNode {
  [name: string]: (XmlNode | string)[] | string | undefined;
}

/** Where to resume: the publication date (YYYY-MM-DD) the next query starts from. */
export interface TedCheckpoint {
  from: string;
  [key: string]: unknown;
}
