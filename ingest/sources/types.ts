// The shape every source module has (Pelias importers): fetch → parse → normalize.
// The pipeline (ingest/pipeline.ts) drives it; `pdi ingest SOURCE --from DIR` skips fetch and feeds
// saved response bodies straight to parse.
import type { NormalizedDocument } from '../../index-mappings/document.js';
import type { Logger } from '../../lib/logger.js';
import type { SourceName } from '../../index-mappings/sources.js';
import type { HttpClient } from '../http.js';

/** Per-source resume state, opaque to the pipeline, stored as JSON after the sink has flushed. */
export type Checkpoint = Record<string, unknown>;

export interface FetchContext {
  http: HttpClient;
  /** Upstream base URL (the real one by default; a loopback replay server in tests). */
  baseUrl: string;
  /** YYYY-MM-DD lower bound asked by the operator; else resume from the checkpoint. */
  since: string | null;
  checkpoint: Checkpoint | null;
  now: Date;
  log: Logger;
}

/** What a source may load before its pages are normalized (reference data such as a directory). */
export interface PrepareContext {
  /** Null on a replay (`--from`): nothing is fetched, what an earlier run stored is used. */
  http: HttpClient | null;
  baseUrl: string;
  now: Date;
  log: Logger;
  signal?: AbortSignal;
  /** Reference data an earlier run stored under `name` (ingest.db), or null. */
  stored(name: string): { body: string; fetchedAt: string } | null;
  /** Keeps `body` under `name` for later runs, replays included. */
  store(name: string, body: string): void;
}

/** One upstream response body, exactly as received. */
export interface FetchedPage {
  body: string;
  contentType: string;
  /** Where to resume once this page's documents are flushed. */
  checkpoint: Checkpoint;
}

export interface ParsedRecord {
  record: unknown;
  /** The record's original, for the blob store and GET /v1/documents/{id}/content. */
  original: { body: Buffer; contentType: string };
}

export interface SourceModule {
  name: SourceName;
  /** The production base URL. */
  defaultBaseUrl: string;
  /**
   * The largest response body (decoded) this source is expected to send, with a wide margin: past it a
   * page is refused as an upstream fault before it is held in memory (the client's own bound is 128 MiB).
   */
  maxPageBytes: number;
  /** Yields raw pages in order; throws (UpstreamError) when a page cannot be had after retries. */
  fetch(ctx: FetchContext): AsyncIterable<FetchedPage>;
  /** Splits one response body into records; throws on a truncated or invalid body. */
  parse(body: string, contentType?: string): ParsedRecord[];
  /** One record → one document; throws MalformedRecordError when the record cannot be used. */
  normalize(record: unknown): NormalizedDocument;
  /**
   * Loads what normalizing needs besides the record (Diavgeia: its organisation directory) and returns
   * the normalize to use for this run. Without it, `normalize` is used as it is.
   */
  prepare?(ctx: PrepareContext): Promise<(record: unknown) => NormalizedDocument>;
  /**
   * The content type to give parse() for a saved body replayed by `--from DIR`, when the file name
   * carries what the body does not (data.gov.gr's bare arrays do not name their dataset). Default:
   * from the extension.
   */
  replayContentType?(fileName: string): string;
}

/** A record that cannot be normalized; the pipeline skips and counts it. */
export class MalformedRecordError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedRecordError';
  }
}
