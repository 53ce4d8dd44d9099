// Builds the restify server without listening (server.ts listens; tests build it in-process).
// Request path: route → gate (admission: key and quota; then the tier) → [JSON body] → handler; a
// request that matches no route is admitted in the error listener before its 404/405.
// No handler can throw past restify: route steps return promises (a throw becomes a rejection that
// restify hands to our formatter, masked when it is a 500). restify's handleUncaughtExceptions would
// do that with a per-request domain, which cost two thirds of the throughput here.
import type https from 'node:https';
import restify, { type Server } from 'restify';
import { systemClock, type Clock } from '../lib/clock.js';
import { publicOverHttps, type Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import type { EntityReaders } from '../lib/entity-readers.js';
import type { BlobStore } from '../lib/blob-store.js';
import type { Embedder } from '../lib/embedding/embedder.js';
import type { SearchProvider } from '../lib/search/provider.js';
import { withEmbedDeadline, withEntityDeadline, withReadDeadline } from '../lib/search/deadline.js';
import type { AppContext, SourceRuns } from './context.js';
import type { Db } from './db/database.js';
import { WebhookSecrets } from './alerts/secret.js';
import { AlertStore } from './alerts/store.js';
import { KeyStore } from './db/keys.js';
import { ReportStore } from './reports/store.js';
import { JobQueue } from '../lib/job-queue.js';
import { AskService } from '../lib/semantic/ask.js';
import { ChatCompletions } from '../lib/semantic/generator.js';
import { ModelTranslator } from '../lib/translation/model-translator.js';
import { ReportService } from './reports/service.js';
import { MonitorStore } from './monitoring/store.js';
import { UsageCounter } from './db/usage.js';
import { admission } from './middleware/admission.js';
import { InFlight } from './middleware/in-flight.js';
import { RefusalPacer } from './middleware/refusal-pacing.js';
import { HSTS } from './middleware/reply.js';
import { formatJson, installErrorHandling } from './middleware/errors.js';
import { registerDashboard } from './dashboard/routes.js';
import { registerExplore } from './explore/routes.js';
import { registerAlerts } from './alerts/routes.js';
import { withChannelSchemas } from './alerts/openapi.js';
import { registerDocuments } from './routes/documents.js';
import { registerAnalysis } from './routes/analysis.js';
import { registerEntity } from './routes/entity.js';
import { registerHealth } from './routes/health.js';
import { registerModels } from './routes/models.js';
import { registerMcp } from './mcp/http.js';
import { registerReference } from './routes/reference.js';
import { registerReports } from './reports/routes.js';
import { registerMonitoring } from './monitoring/routes.js';
import { registerSemantic } from './routes/semantic.js';
import { ContractRoutes } from './routes/contract-routes.js';
import { registerSources } from './routes/sources.js';
import { registerUsage } from './routes/usage.js';

export interface AppDeps {
  config: Config;
  db: Db;
  sourceRuns: SourceRuns;
  search: SearchProvider;
  blobs: BlobStore;
  embedder: Embedder;
  /** The entity index (documents.db) on reader threads, what /v1/entity and reports read (its owner closes it). */
  entityReaders: EntityReaders;
  logger: Logger;
  clock?: Clock;
  /** How often quota counts are written behind (ms). */
  usageFlushMs?: number;
  /** Serves HTTPS with these options (lib/tls.ts) instead of HTTP. */
  https?: https.ServerOptions;
}

export interface App {
  server: Server;
  context: AppContext;
  /** Background jobs (reports): the caller starts them once listening and stops them before close. */
  jobs: JobQueue;
  /** What each key and organization has in flight (/v1 requests and MCP calls): `ofKey` reads a key's count. */
  inFlight: InFlight;
  /** Flushes quota counts; call after the server stopped accepting requests. */
  close(): void;
}

export function createApp(deps: AppDeps): App {
  // Each component's logger is a child of the root: a child of a child binds `component` twice, and
  // pino then writes the key twice in one JSON line.
  const logFor = (component: string) => deps.logger.child({ component });
  const log = logFor('api');
  const jobs = new JobQueue(deps.db, {
    concurrency: deps.config.reportConcurrency,
    timeoutMs: deps.config.reportTimeoutMs,
    maxAttempts: 3,
    log: logFor('jobs'),
  });
  const reportStore = new ReportStore(deps.db);
  // Every engine read of a request ends by the deadline: a 504 rather than a client left waiting.
  const deadline = deps.config.engineDeadlineMs;
  const search = withReadDeadline(deps.search, deadline);
  const entityReaders = withEntityDeadline(deps.entityReaders, deadline);
  const llm = deps.config.llm;
  const chat = llm ? new ChatCompletions(llm) : null;
  const context: AppContext = {
    config: deps.config,
    clock: deps.clock ?? systemClock,
    log,
    logFor,
    keys: new KeyStore(deps.db),
    usage: new UsageCounter(deps.db, deps.usageFlushMs, logFor('usage')),
    sourceRuns: deps.sourceRuns,
    search,
    blobs: deps.blobs,
    embedder: deps.embedder,
    entityReaders,
    alerts: new AlertStore(deps.db),
    monitor: new MonitorStore(deps.db),
    webhookSecrets: WebhookSecrets.inDataDir(deps.config.dataDir),
    reports: new ReportService(reportStore, jobs, deps.entityReaders, deps.search, deps.clock ?? systemClock, logFor('reports')),
    reportStore,
    asking: new AskService({
      search,
      // The question is embedded within the deadline too: a silent embedding service is a 503.
      embedder: withEmbedDeadline(deps.embedder, deadline),
      generator: chat,
      log: logFor('ask'),
      entities: entityReaders,
      // The default ask model translates English questions (PDI_ASK_MODELS' first).
      translator: chat && llm ? new ModelTranslator(chat, deps.config.askModels[0]!, llm.translateTimeoutMs) : null,
    }),
  };

  const server = restify.createServer({
    name: '',
    formatters: { 'application/json': formatJson },
    ignoreTrailingSlash: true,
    // restify's default (100 characters) turned a longer source_id into an unknown route; the
    // contract sets no limit, and a URL is bounded by Node's 16 KiB header limit anyway.
    maxParamLength: 16_384,
    ...(deps.https ? { httpsServerOptions: deps.https } : {}),
  });
  if (deps.https !== undefined || publicOverHttps(deps.config)) {
    // Set before routing: writeHead merges it into every answer, unknown routes and errors included.
    server.pre((_req, res, next) => {
      res.setHeader(HSTS[0], HSTS[1]);
      next();
    });
  }
  const inFlight = new InFlight(deps.config.maxInFlightPerKey, deps.config.maxInFlightPerOrg);
  const pacer = new RefusalPacer();
  const admit = admission(context.keys, context.usage, context.clock, inFlight, pacer);
  installErrorHandling(server, log, admit);

  registerModels(server, context);
  registerMcp(server, context, inFlight, pacer);
  registerHealth(server, context);
  registerReference(server, withChannelSchemas);
  registerDashboard(server, context);
  registerExplore(server);
  const routes = new ContractRoutes(server, admit);
  registerSources(routes, context);
  registerUsage(routes, context);
  registerDocuments(routes, context);
  registerAnalysis(routes, context);
  registerEntity(routes, context);
  registerReports(routes, context);
  registerSemantic(routes, context);
  registerAlerts(routes, context);
  registerMonitoring(routes, context);
  routes.finish();

  return {
    server,
    context,
    jobs,
    inFlight,
    close: () => context.usage.close(),
  };
}
