// What route handlers may use. Built once by createApp from its dependencies.
import type { Config } from '../lib/config.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { EntityReads } from '../lib/entity-readers.js';
import type { BlobStore } from '../lib/blob-store.js';
import type { Embedder } from '../lib/embedding/embedder.js';
import type { SearchProvider } from '../lib/search/provider.js';
import type { SourceName } from '../index-mappings/sources.js';
import type { WebhookSecrets } from './alerts/secret.js';
import type { AlertStore } from './alerts/store.js';
import type { KeyStore } from './db/keys.js';
import type { MonitorStore } from './monitoring/store.js';
import type { ReportStore } from './reports/store.js';
import type { UsageCounter } from './db/usage.js';
import type { ReportService } from './reports/service.js';
import type { AskService } from '../lib/semantic/ask.js';

export interface AppContext {
  config: Config;
  clock: Clock;
  log: Logger;
  /** The logger of another component (`component` bound once). */
  logFor(component: string): Logger;
  keys: KeyStore;
  usage: UsageCounter;
  sourceRuns: SourceRuns;
  search: SearchProvider;
  blobs: BlobStore;
  embedder: Embedder;
  /**
   * The entity index (documents.db), read on reader threads with the engine deadline: what GET /v1/entity and the MCP tool
   * use, so a large entity never holds the event loop.
   */
  entityReaders: EntityReads;
  alerts: AlertStore;
  monitor: MonitorStore;
  webhookSecrets: WebhookSecrets;
  /** Due-diligence reports: `reports.create` records one and queues its generation. */
  reports: ReportService;
  reportStore: ReportStore;
  /** POST /v1/ask and the MCP ask_question tool. */
  asking: AskService;
}

/**
 * What routes read of ingest: each source's last run (ingest/state/store.ts IngestState is one). Its
 * `reason` is what clients may read of a failure; `error` is the operator's and is never served.
 */
export interface SourceRuns {
  lastRuns(): ReadonlyMap<SourceName, { status: 'running' | 'succeeded' | 'failed'; finished_at: string | null; reason: string | null }>;
  everSucceeded(): ReadonlySet<SourceName>;
}
