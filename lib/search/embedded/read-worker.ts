// A reader thread (read-pool.ts): an in-thread EmbeddedProvider on the embedded index and the entity
// index of documents.db, whichever it was given, answering one read at a time.
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import type { ExportCursor, ExportQuery, KnnQuery, ListQuery, MoreLikeThisQuery, TextQuery } from '../provider.js';
import type { AggregateQuery, FacetsQuery } from '../aggregate.js';
import { EntityIndex, type EntityPage, type EntityQuery } from '../../entities.js';
import { BucketLabels, type LabelRequest } from '../../bucket-labels.js';
import { openSqlite } from '../../sqlite.js';
import { EmbeddedProvider } from './provider.js';
import type { Counters, ReadOp, ReadReply, ReadRequest, ReaderData } from './read-pool.js';

const options = workerData as ReaderData;
const port = parentPort!;
if (options.nice !== 0) os.setPriority(options.nice);
// Log lines go to the owner, whose logger writes them to its own stream (stdout for the API, stderr
// for the CLI).
const logger = options.logLevel ? pino({ level: options.logLevel, base: undefined }, { write: (line: string) => port.postMessage({ log: line }) }) : undefined;
const provider = options.index ? new EmbeddedProvider({ ...options.index, logger }) : null;
const entitiesDb = options.entities ? openSqlite(options.entities) : null;
const entities = entitiesDb ? new EntityIndex(entitiesDb) : null;
const labels = entitiesDb ? new BucketLabels(entitiesDb) : null;
const NO_COUNTERS: Counters = { fromList: 0, rankedByFts: 0, listsBuilt: 0, fromRanking: 0, pruned: 0 };

function entityIndex(): EntityIndex {
  if (!entities) throw new Error('This reader thread opens no entity index');
  return entities;
}

function index(): EmbeddedProvider {
  if (!provider) throw new Error('This reader thread opens no embedded index');
  return provider;
}

const OPS: Record<ReadOp, (arg: never) => Promise<unknown>> = {
  // Hits cross the thread boundary by copy: of a metadata or snippet view, the fields it reads alone.
  search: (q: TextQuery) => index().search(q),
  list: (q: ListQuery) => index().list(q),
  get: (sourceId: string) => index().get(sourceId),
  knn: (q: KnnQuery) => index().knn(q),
  moreLikeThis: (q: MoreLikeThisQuery) => index().moreLikeThis(q),
  stats: () => index().stats(),
  aggregate: (q: AggregateQuery) => index().aggregate(q),
  facets: (q: FacetsQuery) => index().facets(q),
  exportBatch: ({ q, cursor }: { q: ExportQuery; cursor: ExportCursor | null }) => index().exportBatch(q, cursor),
  entity: async ({ query, page }: { query: EntityQuery; page: EntityPage }) => entityIndex().resolve(query, page),
  named: async ({ text, limit }: { text: string; limit: number }) => entityIndex().namedIn(text, limit),
  labels: async (req: LabelRequest) => {
    if (!labels) throw new Error('This reader thread opens no entity index');
    return labels.labels(req);
  },
};

port.on('message', async ({ id, op, arg }: ReadRequest) => {
  // Started only if the owner has not taken the call back meanwhile (read-pool.ts ReaderData.claim).
  if (Atomics.compareExchange(options.claim, 0, id, 0) !== id) {
    port.postMessage({ id, skipped: true } satisfies ReadReply);
    return;
  }
  const before = { ...(provider?.counters ?? NO_COUNTERS) };
  let reply: ReadReply;
  try {
    const result = await OPS[op](arg as never);
    reply = { id, counters: delta(before), result };
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    // `why`: what an EngineUnavailableError tells the operator beyond its message (a damaged file).
    reply = { id, counters: delta(before), error: { name: e.name, message: e.message, why: (e as { why?: string | null }).why ?? null } };
  }
  port.postMessage(reply);
});

function delta(before: Counters): Counters {
  const now = provider?.counters ?? NO_COUNTERS;
  return {
    fromList: now.fromList - before.fromList,
    rankedByFts: now.rankedByFts - before.rankedByFts,
    listsBuilt: now.listsBuilt - before.listsBuilt,
    fromRanking: now.fromRanking - before.fromRanking,
    pruned: now.pruned - before.pruned,
  };
}
