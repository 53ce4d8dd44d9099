// The ingest pipeline: pages from upstream (or saved bodies) → parse → normalize → content hash →
// skip unchanged → originals to the blob store → embed → bulk sink → record → checkpoint.
// The checkpoint advances only after a page's documents are flushed; one run per source at a time.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { IndexedDocument, NormalizedDocument } from '../index-mappings/document.js';
import type { BlobStore } from '../lib/blob-store.js';
import type { Embedder } from '../lib/embedding/embedder.js';
import type { Logger } from '../lib/logger.js';
import type { SourceName } from '../index-mappings/sources.js';
import type { SearchProvider } from '../lib/search/provider.js';
import { HttpClient, UpstreamError } from './http.js';
import { type RunFailure, runFailure } from './run-failure.js';
import { embedAll } from './stages/embed.js';
import { contentHash } from './stages/hash.js';
import { sink } from './stages/bulk-sink.js';
import { withCpvLabels } from './stages/cpv-labels.js';
import { composedText } from './sources/text.js';
import { plausiblyDated } from './sources/values.js';
import type { DocumentStore, StoredRecord } from './state/documents.js';
import type { IngestState, RunCounts } from './state/store.js';
import type { FetchedPage, ParsedRecord, SourceModule } from './sources/types.js';

export interface PipelineDeps {
  search: SearchProvider;
  blobs: BlobStore;
  embedder: Embedder;
  state: IngestState;
  documents: DocumentStore;
  log: Logger;
}

export interface IngestOptions {
  /** YYYY-MM-DD: fetch from this day instead of resuming from the checkpoint. */
  since?: string | null;
  /** Replay saved response bodies from this folder instead of fetching (no checkpoint is touched). */
  fromDir?: string;
  /** Upstream base URL (default: the module's production one). */
  baseUrl?: string;
  http?: HttpClient;
  /** After each page: the counts so far, and the ms since the run started (a rate over the whole run). */
  onProgress?: (progress: Progress, ms: number) => void;
  /**
   * Stops the run (the server's shutdown, Ctrl-C): a request under way ends at once, no further page is
   * read, and what was flushed stays checkpointed. Its reason (a string) is the run's error.
   */
  signal?: AbortSignal;
}

export interface Progress extends RunCounts {
  source: SourceName;
  pages: number;
}

export interface RunSummary extends Progress {
  runId: number;
  status: 'succeeded' | 'failed';
  error: string | null;
  ms: number;
}

const REPLAYABLE = /\.(json|xml|geojson)$/i;

/** The saved response bodies of a folder that `--from` replays, in name order. */
export async function replayableFiles(dir: string): Promise<string[]> {
  return (await fs.readdir(dir)).filter((n) => REPLAYABLE.test(n)).sort();
}

/** A body that its source's parser refuses: in a replay, skipped and named when the run ends. */
class UnparsableBody extends UpstreamError {
  constructor(message: string) {
    super(message, null);
  }
}

/** Saved response bodies of a folder, in name order, as pages. */
async function* replay(module: SourceModule, dir: string): AsyncIterable<FetchedPage> {
  const names = await replayableFiles(dir);
  if (names.length === 0) throw new Error(`${dir} holds no .json, .xml or .geojson file to replay`);
  for (const name of names) {
    const body = await fs.readFile(path.join(dir, name), 'utf8');
    const contentType = module.replayContentType?.(name) ?? (/\.xml$/i.test(name) ? 'application/xml' : 'application/json');
    yield { body, contentType, checkpoint: { file: name } };
  }
}

/** A source's normalize for one run (SourceModule.prepare). */
type Normalize = (record: unknown) => NormalizedDocument;

interface Changed {
  doc: NormalizedDocument;
  hash: string;
  isNew: boolean;
  original: { body: Buffer; contentType: string };
}

interface Prepared {
  items: Changed[];
  indexed: IndexedDocument[];
}

/**
 * The pages a fetching run has seen, by the ids they hold. An upstream that ignores the page asked for,
 * or whose paging loops, sends a page again: walking on never ended (kimdis, geodata, TED and RAE
 * trust the upstream's own end marker), or stopped early and moved the checkpoint past what was never
 * sent (diavgeia). A repeat stops the run before that page's checkpoint, so nothing is skipped.
 */
class SeenPages {
  private readonly pages = new Map<string, number>();
  private count = 0;

  check(module: SourceModule, ids: string[]): void {
    const n = ++this.count;
    if (ids.length === 0) return;
    const key = createHash('sha256').update(ids.join('\n')).digest('base64');
    const earlier = this.pages.get(key);
    if (earlier !== undefined) {
      throw new UpstreamError(
        `${module.name}: page ${n} of this run holds the same ${ids.length} records as page ${earlier}: the upstream ignored the page asked for, or its paging loops; stopped before page ${n}'s checkpoint, so the next run asks for it again`,
        null,
      );
    }
    this.pages.set(key, n);
  }
}

/** What the pages of one run share. */
interface PageRun {
  deps: PipelineDeps;
  module: SourceModule;
  normalize: Normalize;
  counts: Progress;
  log: Logger;
  /** Hashes of the page whose write is still in flight, so a document repeated on the next page is judged against it. */
  pending: Map<string, string>;
  /** Pages this run fetched, to stop at a repeat; null when replaying saved bodies. */
  seen: SeenPages | null;
}

/** Parse → normalize → hash → skip unchanged → originals → embed. */
async function preparePage(run: PageRun, page: FetchedPage): Promise<Prepared | null> {
  const { deps, module, normalize, counts, log, pending, seen } = run;
  let records;
  try {
    records = module.parse(page.body, page.contentType);
  } catch (err) {
    throw new UnparsableBody((err as Error).message);
  }
  const normalized: { doc: NormalizedDocument; original: ParsedRecord['original'] }[] = [];
  const skipped: string[] = [];
  for (const r of records) {
    try {
      normalized.push({ doc: plausiblyDated(composedText(normalize(r.record))), original: r.original });
    } catch (err) {
      skipped.push((err as Error).message);
    }
  }
  seen?.check(
    module,
    normalized.map((n) => n.doc.source_id),
  );
  counts.fetched += records.length;
  counts.failed += skipped.length;
  // Later records of the same id in one page win (upstreams repeat corrected versions).
  const changed = new Map<string, Changed>();
  for (const { doc, original } of normalized) {
    const hash = contentHash(doc);
    const previous = pending.get(doc.source_id) ?? deps.documents.hash(doc.source_id);
    if (previous === hash) {
      counts.unchanged++;
      continue;
    }
    changed.set(doc.source_id, { doc, hash, isNew: previous === null, original });
  }
  // One line a page, not one a record: a page of a thousand bad records would bury the progress.
  if (skipped.length > 0) {
    log.warn({ skipped: skipped.length, errors: skipped.slice(0, 3) }, 'records skipped: could not be normalized');
  }
  if (changed.size === 0) return null;

  const items = [...changed.values()];
  const digests = await deps.blobs.put(items.map((c) => c.original.body));
  const originals = items.map((c, i) => ({ sha256: digests[i], content_type: c.original.contentType }));
  const { vectors } = await embedAll(
    deps.embedder,
    deps.documents,
    items.map((c) => ({ doc: c.doc, contentHash: c.hash })),
  );
  const indexedAt = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  // With the labels of its CPV codes; one the store learns later reaches it at the next `pdi reindex`.
  const indexed: IndexedDocument[] = items.map((c, i) =>
    withCpvLabels({ ...c.doc, indexed_at: indexedAt, content_hash: c.hash, original: originals[i], embedding: vectors[i] }, deps.documents.learnedCpvLabel),
  );
  for (const c of items) pending.set(c.doc.source_id, c.hash);
  return { items, indexed };
}

/** Bulk write → record in the document store → counts. */
async function commitPage(run: PageRun, prepared: Prepared): Promise<void> {
  const { deps, module, counts, log, pending } = run;
  const result = await sink(deps.search, prepared.indexed);
  const failed = new Map(result.failed.map((f) => [f.source_id, f.error]));
  const blocked = result.failed.filter((f) => f.cause === 'index');
  const stored: StoredRecord[] = [];
  prepared.items.forEach((c, i) => {
    if (pending.get(c.doc.source_id) === c.hash) pending.delete(c.doc.source_id);
    if (failed.has(c.doc.source_id)) return;
    const d = prepared.indexed[i];
    stored.push({ doc: c.doc, content_hash: c.hash, original: d.original, indexed_at: d.indexed_at });
    if (c.isNew) counts.new++;
    else counts.updated++;
  });
  deps.documents.save(stored);
  // An index that takes no writes (blocked, a full disk) refuses documents that are fine: the run stops
  // before this page's checkpoint, so the next run sends them again. Counted as rejected and
  // checkpointed past, an update was lost for good (nothing marks it to be fetched again).
  if (blocked.length > 0) {
    throw new Error(
      `the index refused ${blocked.length} of ${prepared.indexed.length} documents of this page (${blocked[0].error}); ` +
        'stopped before its checkpoint, so the next run sends them again',
    );
  }
  if (failed.size > 0) {
    counts.failed += failed.size;
    deps.documents.reject([...failed].map(([source_id, error]) => ({ source_id, source: module.name, error })));
    log.error({ failed: failed.size, sample: [...failed].slice(0, 3) }, 'documents refused by the index after retries');
  }
}

/** Runs one source once. Never throws for upstream or data problems: the summary says what happened. */
export async function ingestSource(deps: PipelineDeps, module: SourceModule, opts: IngestOptions = {}): Promise<RunSummary> {
  const log = deps.log.child({ component: 'ingest', source: module.name });
  const started = Date.now();
  const runId = deps.state.beginRun(module.name, 'ingest'); // throws SourceBusyError while another run holds it
  const counts: Progress = { source: module.name, pages: 0, fetched: 0, new: 0, updated: 0, unchanged: 0, failed: 0 };
  let failure: RunFailure | null = null;
  let inflight: Promise<void> | null = null;
  try {
    // A base URL the operator named may be on a private network, and an upstream may redirect there.
    const trustedOrigins = opts.baseUrl && URL.canParse(opts.baseUrl) ? [new URL(opts.baseUrl).origin] : [];
    const http = opts.fromDir ? null : (opts.http ?? new HttpClient({ signal: opts.signal, trustedOrigins, maxBodyBytes: module.maxPageBytes }));
    const baseUrl = opts.baseUrl ?? module.defaultBaseUrl;
    const normalize: Normalize = module.prepare
      ? await module.prepare({
          http,
          baseUrl,
          now: new Date(),
          log,
          signal: opts.signal,
          stored: (name) => deps.state.reference(name),
          store: (name, body) => deps.state.saveReference(name, body),
        })
      : module.normalize;
    const pages =
      http === null
        ? replay(module, opts.fromDir!)
        : module.fetch({
            http,
            baseUrl,
            since: opts.since ?? null,
            checkpoint: opts.since ? null : deps.state.checkpoint(module.name),
            now: new Date(),
            log,
          });
    // One page's write is in flight while the next page is fetched and prepared (bench/ingest: the
    // Elasticsearch bulk round trips were otherwise idle time). Writes, records and checkpoints still
    // happen strictly in page order, each checkpoint only after its page is flushed.
    const unparsable: string[] = [];
    // Saved bodies may repeat one another (two saves of one page); only a fetching run is checked.
    const run: PageRun = { deps, module, normalize, counts, log, pending: new Map(), seen: opts.fromDir ? null : new SeenPages() };
    let cut = false;
    for await (const page of pages) {
      if (opts.signal?.aborted) {
        cut = true;
        break;
      }
      let prepared: Prepared | null = null;
      try {
        prepared = await preparePage(run, page);
      } catch (err) {
        // A saved body that does not parse is skipped and counted, the others are still ingested, and
        // the run fails at the end naming it; a fetched one stops the run before its checkpoint, so the
        // next run fetches it again. Anything else (a store that cannot be written) stops either.
        if (!opts.fromDir || !(err instanceof UnparsableBody)) throw err;
        counts.failed++;
        unparsable.push(String(page.checkpoint.file));
        log.warn({ file: page.checkpoint.file, error: err.message }, 'saved body skipped: could not be parsed');
      }
      await inflight;
      inflight = (async () => {
        if (prepared) await commitPage(run, prepared);
        counts.pages++;
        if (!opts.fromDir) deps.state.saveCheckpoint(module.name, page.checkpoint);
        opts.onProgress?.({ ...counts }, Date.now() - started);
      })();
      // Awaited above or below; this only keeps a rejection from counting as unhandled meanwhile.
      inflight.catch(() => undefined);
    }
    await inflight;
    await deps.search.refresh();
    if (cut) throw new Error('stopped');
    if (unparsable.length > 0) {
      const named = unparsable.slice(0, 5).join(', ') + (unparsable.length > 5 ? ` and ${unparsable.length - 5} more` : '');
      throw new UnparsableBody(`${unparsable.length} of the saved bodies could not be parsed as ${module.name} responses: ${named}`);
    }
  } catch (err) {
    // However the stop surfaced (a request ended, the loop left), the run says why it stopped.
    failure = runFailure(err, opts.signal);
    log.error({ error: failure.error }, 'ingest run failed');
    // A write still in flight finishes (and checkpoints) before the run is closed and unlocked.
    await Promise.resolve(inflight).catch(() => undefined);
  } finally {
    deps.state.endRun(module.name, runId, counts, failure, log);
  }
  const summary: RunSummary = { ...counts, runId, status: failure ? 'failed' : 'succeeded', error: failure?.error ?? null, ms: Date.now() - started };
  // `source` is already in the logger's bindings; twice in one JSON object, readers disagree on it.
  const { source: _source, ...fields } = summary;
  log.info(fields, 'ingest run finished');
  return summary;
}
