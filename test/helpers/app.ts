// Builds the API in-process on a loopback port with a temporary data directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { createApp, type App } from '../../api/app.js';
import { accountsDbPath, openDatabase, type Db } from '../../api/db/database.js';
import type { Tier } from '../../api/db/keys.js';
import type { Clock } from '../../lib/clock.js';
import { EngineUnavailableError } from '../../lib/errors.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger, type Logger } from '../../lib/logger.js';
import { IngestState } from '../../ingest/state/store.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { EntityReaders } from '../../lib/entity-readers.js';
import { SqliteBlobStore } from '../../lib/blob-store.js';
import { HashingEmbedder } from '../../lib/embedding/hashing-embedder.js';
import type { Embedder } from '../../lib/embedding/embedder.js';
import { embeddedIndexPath } from '../../lib/search/index.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import type { SearchProvider } from '../../lib/search/provider.js';

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface RequestOptions {
  key?: string;
  method?: string;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** Aborts the request (e.g. AbortSignal.timeout). */
  signal?: AbortSignal;
}

export interface TestApp {
  url: string;
  app: App;
  db: Db;
  dataDir: string;
  ingestState: IngestState;
  search: SearchProvider;
  blobs: SqliteBlobStore;
  embedder: Embedder;
  documents: DocumentStore;
  /** Creates a key of that tier and returns the secret. */
  key(tier: Tier, org?: string): string;
  request(pathAndQuery: string, opts?: RequestOptions): Promise<TestResponse>;
}

export function tempDir(t: Test, prefix = 'pdi-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export async function request(base: string, pathAndQuery: string, opts: RequestOptions = {}): Promise<TestResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
  let body: string | Buffer | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const res = await fetch(`${base}${pathAndQuery}`, { method: opts.method ?? 'GET', headers, body: body as BodyInit | undefined, signal: opts.signal });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/**
 * Options: `search` replaces the embedded engine (e.g. Elasticsearch in the engine contract tests);
 * `embedder` the hashing embedder (e.g. an embeddings service on loopback); `holdJobs` keeps background
 * jobs (reports) queued until the test calls `app.jobs.start()`.
 */
export async function startTestApp(
  t: Test,
  opts: {
    clock?: Clock;
    env?: Record<string, string>;
    dataDir?: string;
    search?: SearchProvider;
    embedder?: Embedder;
    logger?: Logger;
    holdJobs?: boolean;
  } = {},
): Promise<TestApp> {
  const dataDir = opts.dataDir ?? tempDir(t);
  const config = loadConfig({ PDI_DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...opts.env });
  const db = openDatabase(accountsDbPath(dataDir));
  const ingestState = new IngestState(IngestState.pathIn(dataDir));
  const embedder = opts.embedder ?? new HashingEmbedder();
  const search = opts.search ?? new EmbeddedProvider({ file: embeddedIndexPath(dataDir), dimension: embedder.dimension, embeddingModel: embedder.id });
  // As at server start (createSearchProvider), an engine that is down does not stop the API.
  await search.init().catch((err: unknown) => {
    if (!(err instanceof EngineUnavailableError)) throw err;
  });
  const blobs = new SqliteBlobStore(SqliteBlobStore.pathIn(dataDir));
  const documents = new DocumentStore(DocumentStore.pathIn(dataDir));
  const entityReaders = new EntityReaders(documents.db, { search });
  const app = createApp({
    config,
    db,
    sourceRuns: ingestState,
    search,
    blobs,
    embedder,
    entityReaders,
    logger: opts.logger ?? createLogger('silent'),
    clock: opts.clock,
  });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', () => resolve()));
  const address = app.server.server.address() as { port: number };
  const url = `http://127.0.0.1:${address.port}`;
  if (!opts.holdJobs) app.jobs.start();
  t.teardown(async () => {
    await new Promise<void>((resolve) => app.server.close(() => resolve()));
    await app.jobs.stop();
    app.close();
    if (!opts.search) await search.close();
    blobs.close();
    await entityReaders.close();
    documents.close();
    ingestState.close();
    db.close();
  });
  return {
    url,
    app,
    db,
    dataDir,
    ingestState,
    search,
    blobs,
    embedder,
    documents,
    key: (tier, org = `org-${tier}`) => app.context.keys.create(org, tier).key,
    request: (p, o) => request(url, p, o),
  };
}
