// Record decoding of the Elasticsearch adapter: hits into documents (whole `_source`, or the metadata
// record from doc values, parsed only when read), the tie-breakers read from a record's bytes, totals.
import type { estypes } from '@elastic/elasticsearch';
import { metadataOf, type IndexedDocument } from '../../../index-mappings/document.js';
import { METADATA_JSON_FIELD, SNIPPET_TEXT_FIELD } from '../../../index-mappings/mapping.js';
import type { Logger } from '../../logger.js';
import type { SearchHit, SourceStats, StoredDocument } from '../provider.js';
import { snippetText } from '../snippet.js';
import { METADATA_AND_SNIPPET, METADATA_FROM_SOURCE, SNIPPET_FROM_SOURCE, type Projection } from './queries.js';

export function emptyStats(): SourceStats {
  return { documents: 0, last_updated: null, avg_quality: null };
}

export function totalOf(res: estypes.SearchResponse<unknown, unknown>): number {
  const t = res.hits.total;
  return typeof t === 'number' ? t : (t?.value ?? 0);
}

/** The metadata record stored with a document, base64 as binary fields take it (mapping.ts METADATA_JSON_FIELD). */
export function metadataRecord(doc: IndexedDocument): string {
  return Buffer.from(JSON.stringify(metadataOf(doc))).toString('base64');
}

/** The snippet text stored with a document, base64 as binary fields take it (mapping.ts SNIPPET_TEXT_FIELD). */
export function snippetRecord(doc: IndexedDocument): string {
  return Buffer.from(snippetText(doc.content)).toString('base64');
}

/**
 * The hits with their documents: each `_source`, else its metadata record from doc values; null when a
 * hit has neither (written by a build of mapping version 1), or when `snippets` are asked for and a hit
 * has neither its snippet text nor its content (written by a build before mapping version 13). A record
 * stays UTF-8 JSON (`metadataJson`) and is parsed only when `doc` is read: a search page is sent on by
 * the API as it is, and only the hits of a score tie are read (pageFromScoreWindow). Decoding and
 * parsing 125 records took a third of the API's CPU on a rare-term search, and re-serialising them
 * another sixth.
 */
export function hitsOf(hits: estypes.SearchHit<StoredDocument>[], snippets = false): SearchHit[] | null {
  const stored = hits.map((h) => h.fields?.[METADATA_JSON_FIELD]?.[0] as string | undefined);
  const records = decodeRecords(stored.filter((r): r is string => r !== undefined));
  let next = 0;
  const out: SearchHit[] = [];
  for (let i = 0; i < hits.length; i++) {
    const score = hits[i]._score ?? 0;
    let doc = hits[i]._source;
    let snippet: string | undefined;
    if (snippets) {
      const text = hits[i].fields?.[SNIPPET_TEXT_FIELD]?.[0] as string | undefined;
      if (text !== undefined) snippet = Buffer.from(text, 'base64').toString('utf8');
      else if (typeof doc?.content === 'string') {
        // Read from `_source` (SNIPPET_FROM_SOURCE): cut as it would have been stored, and not passed on.
        const { content, ...metadata } = doc;
        snippet = snippetText(content);
        doc = metadata as StoredDocument;
      } else return null;
    }
    const hit: SearchHit | null = stored[i] !== undefined ? new RecordHit(records[next++], score) : doc ? { doc, score } : null;
    if (hit === null) return null;
    if (snippet !== undefined) hit.snippetText = snippet;
    out.push(hit);
  }
  return out;
}

/** A hit whose document is parsed from its metadata record on first use. */
class RecordHit implements SearchHit {
  private parsed: StoredDocument | undefined;
  snippetText?: string;
  constructor(
    readonly metadataJson: Buffer,
    readonly score: number,
  ) {}
  get doc(): StoredDocument {
    return (this.parsed ??= JSON.parse(this.metadataJson.toString('utf8')) as StoredDocument);
  }
}

type TieFields = Pick<StoredDocument, 'published_at' | 'source_id'>;

/** A text-page hit as pageFromScoreWindow sees it: its tie-breakers are read when first asked for. */
export class WindowHit {
  private fields: TieFields | undefined;
  readonly score: number;
  constructor(readonly hit: SearchHit) {
    this.score = hit.score;
  }
  get published_at(): unknown {
    return (this.fields ??= tieFieldsOf(this.hit)).published_at;
  }
  get source_id(): string {
    return (this.fields ??= tieFieldsOf(this.hit)).source_id;
  }
}

function tieFieldsOf(hit: SearchHit): TieFields {
  return (hit.metadataJson && recordTieFields(hit.metadataJson)) || hit.doc;
}

const SOURCE_ID_OPENING = Buffer.from('{"source_id":"');
const PUBLISHED_AT_KEY = Buffer.from(',"published_at":');

/**
 * source_id and published_at of a metadata record, read from its bytes without parsing the rest, or
 * null when the record is not in the expected shape (then the caller parses it). The record is
 * JSON.stringify of METADATA_FIELDS in order, so it opens with source_id; `,"published_at":` cannot
 * occur inside a string value, where every quote is escaped. A value with an escape is left to
 * JSON.parse.
 */
export function recordTieFields(json: Buffer): TieFields | null {
  const start = SOURCE_ID_OPENING.length;
  if (json.compare(SOURCE_ID_OPENING, 0, start, 0, start) !== 0) return null;
  const idEnd = json.indexOf(0x22, start);
  if (idEnd < 0 || hasEscape(json, start, idEnd)) return null;
  const key = json.indexOf(PUBLISHED_AT_KEY, idEnd);
  if (key < 0) return null;
  const v = key + PUBLISHED_AT_KEY.length;
  let published_at: unknown;
  if (json[v] === 0x22) {
    const end = json.indexOf(0x22, v + 1);
    if (end < 0 || hasEscape(json, v + 1, end)) return null;
    published_at = json.toString('utf8', v + 1, end);
  } else {
    let end = v;
    while (end < json.length && json[end] !== 0x2c && json[end] !== 0x7d) end++;
    try {
      published_at = JSON.parse(json.toString('utf8', v, end));
    } catch {
      return null;
    }
  }
  return { source_id: json.toString('utf8', start, idEnd), published_at } as TieFields;
}

/** Whether json[from, to) holds a backslash: a JSON escape, which JSON.parse must read. */
function hasEscape(json: Buffer, from: number, to: number): boolean {
  const at = json.indexOf(0x5c, from);
  return at >= 0 && at < to;
}

/** `{`: a record stored as raw JSON (a keyword, mapping version 2), which base64 never begins with. */
const RAW_JSON = 0x7b;

/**
 * Metadata records as doc values give them: base64 (binary, mapping version 3 on), decoded into one
 * buffer (one allocation for the page) and cut into records; or raw JSON (version 2, until its source
 * is rebuilt), read as it is. Decoding raw JSON as base64 served bytes that were no JSON at all.
 */
function decodeRecords(records: string[]): Buffer[] {
  const buf = Buffer.allocUnsafe(records.reduce((n, r) => (r.charCodeAt(0) === RAW_JSON ? n : n + (r.length >> 2) * 3), 0));
  let at = 0;
  return records.map((r) => {
    if (r.charCodeAt(0) === RAW_JSON) return Buffer.from(r, 'utf8');
    const start = at;
    at += buf.write(r, at, 'base64');
    return buf.subarray(start, at);
  });
}

/**
 * Runs a page request with projection `src` and reads each hit's document: `_source` when asked
 * for, else the metadata record (and with METADATA_AND_SNIPPET, the snippet text) from doc values. A
 * hit without them (written by a build of mapping version 1, or before 13 for the snippet text, its
 * source not yet rebuilt) makes the request run once more reading from `_source`, so an index awaiting
 * its rebuild keeps answering, only more slowly.
 */
export async function withDocs(
  log: Logger,
  src: Projection,
  run: (projection: Projection) => Promise<estypes.SearchResponse<StoredDocument>>,
): Promise<{ res: estypes.SearchResponse<StoredDocument>; hits: SearchHit[] }> {
  const snippets = src === METADATA_AND_SNIPPET;
  let res = await run(src);
  let hits = hitsOf(res.hits.hits, snippets);
  if (hits === null) {
    log.debug('hits without the doc-values record or snippet text; page read from _source');
    res = await run(snippets ? SNIPPET_FROM_SOURCE : METADATA_FROM_SOURCE);
    hits = hitsOf(res.hits.hits, snippets) ?? [];
  }
  return { res, hits };
}
