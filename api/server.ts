// Listens and stops gracefully: on SIGTERM/SIGINT it stops accepting, lets requests in flight
// finish (up to 10 s), flushes quota counts and closes the databases.
import { pathToFileURL } from 'node:url';
import { loadConfig, ConfigError, type Config } from '../lib/config.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { IngestState } from '../ingest/state/store.js';
import { SqliteBlobStore } from '../lib/blob-store.js';
import { createEmbedder } from '../lib/embedding/index.js';
import { createSearchProvider } from '../lib/search/index.js';
import { pipelineOn } from '../ingest/runtime.js';
import { startIngestJobs, type IngestJobs } from './jobs/ingest-jobs.js';
import { createApp, type App } from './app.js';
import { accountsDbPath, openDatabase } from './db/database.js';

const DRAIN_MS = 10_000;

export interface RunningServer {
  url: string;
  app: App;
  jobs: IngestJobs;
  stop(): Promise<void>;
}

export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const db = openDatabase(accountsDbPath(config.dataDir));
  const ingestState = new IngestState(IngestState.pathIn(config.dataDir));
  const embedder = await createEmbedder({ modelDir: config.modelDir, logger });
  const search = await createSearchProvider(config, embedder, logger);
  const blobs = new SqliteBlobStore(SqliteBlobStore.pathIn(config.dataDir));
  const app = createApp({ config, db, ingestState, search, blobs, embedder, logger });
  const http = app.server.server;

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    app.server.listen(config.port, config.host, () => resolve());
  });
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
  logger.info({ url, dataDir: config.dataDir, engine: search.engine, embedder: embedder.id }, 'listening');
  const pipeline = pipelineOn(config, search, embedder, ingestState, logger);
  const jobs = startIngestJobs(config, pipeline, logger);

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      logger.info('stopping: draining requests in flight');
      const force = setTimeout(() => http.closeAllConnections(), DRAIN_MS);
      await new Promise<void>((resolve) => http.close(() => resolve()));
      clearTimeout(force);
      await jobs.stop();
      await pipeline.close();
      app.close();
      await search.close();
      blobs.close();
      ingestState.close();
      db.close();
      logger.info('stopped');
    })();
    return stopping;
  };
  return { url, app, jobs, stop };
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
      running.stop().then(() => process.exit(0), (err) => {
        logger.error({ err }, 'error while stopping');
        process.exit(1);
      });
    });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err) => {
    process.stderr.write(`Failed to start: ${(err as Error).message}\n`);
    process.exit(1);
  });
}
