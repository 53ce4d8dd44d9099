// Listens and stops gracefully: on SIGTERM/SIGINT it stops accepting, lets requests in flight
// finish (up to 10 s), lets running report jobs finish (up to 10 s), flushes quota counts and closes
// the databases.
import fs from 'node:fs';
import type { Server as TlsServer } from 'node:tls';
import { pathToFileURL } from 'node:url';
import { loadConfig, ConfigError, type Config } from '../lib/config.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { IngestState } from '../ingest/state/store.js';
import { DocumentStore } from '../ingest/state/documents.js';
import { EntityReaders } from '../lib/entity-readers.js';
import { SqliteBlobStore } from '../lib/blob-store.js';
import { createSearchProvider } from '../lib/search/index.js';
import { warnPastEnvelope } from '../lib/search/envelope.js';
import { pipelineOn } from '../ingest/runtime.js';
import { startIngestJobs, type IngestJobs } from '../ingest/schedule.js';
import { automaticModel, chooseEmbedder, startModelSwitch } from '../ingest/model-switch.js';
import { startAlerts, type AlertService } from './alerts/service.js';
import { createApp, type App } from './app.js';
import { accountsDbPath, openDatabase } from './db/database.js';
import { ServerLock } from '../lib/server-lock.js';
import { readTlsCredentials, reloadOnSighup, secureOptions, type TlsCredentials } from '../lib/tls.js';

const DRAIN_MS = 10_000;
/**
 * Slow clients. Node gives a client 60 s to send its headers and 300 s for its whole request, and
 * checks every 30 s: thousands of connections sending a header byte a second (slowloris) then held
 * every file descriptor for ~90 s, and no one else got in. A request here is a few hundred bytes of
 * headers and at most 1 MiB of body.
 */
const HEADERS_TIMEOUT_MS = 15_000;
const REQUEST_TIMEOUT_MS = 60_000;
/** File descriptors kept for the server's own use (SQLite files, reader threads, engine sockets). */
const RESERVED_FDS = 512;

export interface RunningServer {
  url: string;
  app: App;
  jobs: IngestJobs;
  alerts: AlertService;
  stop(): Promise<void>;
}

export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  // Unreadable or mismatched files fail the start before anything is opened.
  const tls = config.tls ? readTlsCredentials(config.tls) : null;
  const lock = ServerLock.acquire(config.dataDir);
  try {
    return await startLocked(config, logger, lock, tls);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function startLocked(config: Config, logger: Logger, lock: ServerLock, tls: TlsCredentials | null): Promise<RunningServer> {
  const db = openDatabase(accountsDbPath(config.dataDir));
  const ingestState = new IngestState(IngestState.pathIn(config.dataDir));
  const { embedder, upgrade } = await chooseEmbedder(config, logger);
  const search = await createSearchProvider(config, embedder, logger, { entities: DocumentStore.pathIn(config.dataDir) });
  await warnPastEnvelope(search, config.embeddedEnvelope, logger);
  const blobs = new SqliteBlobStore(SqliteBlobStore.pathIn(config.dataDir));
  // Opened before listening: a store without an entity index gets it built here, once.
  const documents = new DocumentStore(DocumentStore.pathIn(config.dataDir));
  const entityReaders = new EntityReaders(documents.db, { search, log: logger });
  const app = createApp({ config, db, sourceRuns: ingestState, search, blobs, embedder, entityReaders, logger, https: tls ? secureOptions(tls) : undefined });
  // What the server opened, closed in one order whether it stops or never listened.
  const closeStores = async () => {
    app.close();
    await search.close();
    blobs.close();
    await entityReaders.close();
    documents.close();
    ingestState.close();
    db.close();
  };
  const http = app.server.server;
  http.headersTimeout = HEADERS_TIMEOUT_MS;
  http.requestTimeout = REQUEST_TIMEOUT_MS;
  // Past the descriptors it may open, accept() fails (EMFILE) and the server can no longer open a
  // file either; at the cap Node closes new connections at once instead, and says so here.
  const cap = connectionLimit(readProcessLimits());
  if (cap !== null) {
    http.maxConnections = cap;
    let warnedAt = -Infinity;
    http.on('drop', () => {
      if (performance.now() - warnedAt < 60_000) return;
      warnedAt = performance.now();
      logger.warn({ maxConnections: cap }, 'connection limit reached; new connections are closed until some end');
    });
  }

  await new Promise<void>((resolve, reject) => {
    // restify re-emits the HTTP server's errors on itself, where none had a listener: a port in use
    // ended the process with an unhandled 'error' event and a stack trace.
    const failed = (err: NodeJS.ErrnoException) => reject(listenError(err, config));
    app.server.once('error', failed);
    app.server.listen(config.port, config.host, () => {
      app.server.off('error', failed);
      resolve();
    });
  }).catch(async (err: unknown) => {
    await closeStores();
    throw err;
  });
  const bound = http.address();
  const port = typeof bound === 'object' && bound ? bound.port : config.port;
  const address = typeof bound === 'object' && bound ? `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}` : String(bound);
  const url = `${tls ? 'https' : 'http'}://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
  logger.info({ address, url, dataDir: config.dataDir, engine: search.engine, embedder: embedder.id }, 'listening');
  if (tls) logger.info({ fingerprint: tls.fingerprint, validTo: tls.validTo }, 'serving HTTPS; SIGHUP reloads PDI_TLS_CERT and PDI_TLS_KEY');
  const stopReloading = config.tls ? reloadOnSighup(http as unknown as TlsServer, config.tls, logger) : () => {};
  // Reports left pending by a stop or a crash run again now.
  app.jobs.start();
  const pipeline = pipelineOn(config, search, embedder, ingestState, logger);
  const jobs = startIngestJobs(config, pipeline, logger);
  // The model fetched at the first start, switched to once the index holds its vectors.
  const switching =
    upgrade && automaticModel(config) ? startModelSwitch({ config, embedder, pipeline, exclusive: (fn) => jobs.exclusive(fn), log: logger }, upgrade) : null;
  const alerts = startAlerts(config, db, documents, logger);

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      logger.info('stopping: draining requests in flight');
      stopReloading();
      const force = setTimeout(() => http.closeAllConnections(), DRAIN_MS);
      await new Promise<void>((resolve) => http.close(() => resolve()));
      clearTimeout(force);
      // A report still running after the wait stays pending and runs again at the next start.
      await app.jobs.stop();
      await switching?.stop();
      await jobs.stop();
      await alerts.stop();
      await pipeline.close();
      await closeStores();
      lock.release();
      logger.info('stopped');
    })();
    return stopping;
  };
  return { url, app, jobs, alerts, stop };
}

/** /proc/self/limits, or null where there is none (not Linux). */
function readProcessLimits(): string | null {
  try {
    return fs.readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return null;
  }
}

/** Connections the server accepts at most: its open-file soft limit less RESERVED_FDS; null if unknown. */
export function connectionLimit(limits: string | null): number | null {
  const soft = limits && /^Max open files\s+(\d+)/m.exec(limits)?.[1];
  return soft ? Math.max(64, Number(soft) - RESERVED_FDS) : null;
}

/** A failure to listen, in terms of the setting that caused it. */
function listenError(err: NodeJS.ErrnoException, config: Config): Error {
  if (err.code === 'EADDRINUSE') return new Error(`PORT ${config.port} is already in use on HOST ${config.host}`);
  if (err.code === 'EACCES') return new Error(`PORT ${config.port} needs privileges this process does not have`);
  if (err.code === 'ENOTFOUND' || err.code === 'EADDRNOTAVAIL' || err.code === 'EAI_AGAIN') {
    return new Error(`HOST ${config.host} is not an address of this machine`);
  }
  return err;
}

/** Entry point of `npm start` and `pdi serve`. */
export async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  const running = await startServer(config, logger);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      running.stop().then(
        () => process.exit(0),
        (err) => {
          logger.error({ err }, 'error while stopping');
          process.exit(1);
        },
      );
    });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err) => {
    process.stderr.write(`Failed to start: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
