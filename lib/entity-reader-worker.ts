// An entity reader thread (entity-readers.ts): its own connection to documents.db, resolving one
// query at a time.
import { parentPort, workerData } from 'node:worker_threads';
import { openSqlite } from './sqlite.js';
import { EntityIndex } from './entities.js';
import type { ResolveReply, ResolveRequest } from './entity-readers.js';

const index = new EntityIndex(openSqlite((workerData as { file: string }).file));
const port = parentPort!;

port.on('message', ({ id, query, page }: ResolveRequest) => {
  let reply: ResolveReply;
  try {
    reply = { id, result: index.resolve(query, page) };
  } catch (err) {
    reply = { id, error: (err as Error).message ?? String(err) };
  }
  port.postMessage(reply);
});
