// Entity resolution on reader threads. better-sqlite3 is synchronous: on the main thread an entity of
// many documents (a municipality: its documents, parties and ΑΔΑs aggregated) held every other request
// of the API behind it, and ten clients resolving took turns on one core. Each thread opens its own
// connection to documents.db (WAL: it sees every committed write and never waits for the writer).
import { Worker } from 'node:worker_threads';
import { workerModule } from './paths.js';
import type { Sqlite } from './sqlite.js';
import { EntityIndex, type EntityAggregate, type EntityQuery } from './entities.js';

export interface Page {
  limit: number;
  offset: number;
}
export interface ResolveRequest {
  id: number;
  query: EntityQuery;
  page: Page;
}
export type ResolveReply = { id: number; result: EntityAggregate } | { id: number; error: string };

interface Call {
  id: number;
  query: EntityQuery;
  page: Page;
  resolve: (value: EntityAggregate) => void;
  reject: (err: Error) => void;
}

interface Reader {
  worker: Worker;
  /** The call the thread runs, or null when it is idle. */
  running: Call | null;
  /** Why the thread failed (its 'error' comes before its 'exit'), for the call it was running. */
  failure: Error | null;
}

/**
 * `resolve` runs EntityIndex.resolve on one of `size` threads (started on first use), in the order
 * calls come. A database without a file (`:memory:`, tests and benches) is resolved on this thread.
 */
export class EntityReaders {
  private readonly readers: (Reader | null)[];
  private readonly queue: Call[] = [];
  private readonly inThread: EntityIndex | null;
  private nextId = 1;
  private closed = false;

  constructor(private readonly db: Sqlite, size = 2) {
    this.readers = Array.from({ length: size }, () => null);
    this.inThread = db.memory ? new EntityIndex(db) : null;
  }

  resolve(query: EntityQuery, page: Page = { limit: 20, offset: 0 }): Promise<EntityAggregate> {
    if (this.inThread) return Promise.resolve(this.inThread.resolve(query, page));
    if (this.closed) return Promise.reject(new Error('The entity readers are closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, query, page, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const call of this.queue.splice(0)) call.reject(new Error('The entity readers are closed'));
    const running = this.readers.filter((r): r is Reader => r !== null);
    this.readers.fill(null);
    await Promise.all(running.map((r) => r.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let reader = this.readers.find((r) => r !== null && r.running === null) ?? null;
      const slot = this.readers.indexOf(null);
      if (!reader && slot !== -1) reader = this.readers[slot] = this.start(slot);
      if (!reader) return;
      const call = this.queue.shift()!;
      reader.running = call;
      // A busy thread keeps the process alive (a CLI awaiting its answer); an idle one must not.
      reader.worker.ref();
      reader.worker.postMessage({ id: call.id, query: call.query, page: call.page } satisfies ResolveRequest);
    }
  }

  private start(slot: number): Reader {
    // The parent's flags are not passed on: they would register tsx twice (the source entry registers it).
    const worker = new Worker(workerModule('entity-reader-worker', import.meta.url), { workerData: { file: this.db.name }, execArgv: [] });
    worker.unref();
    const reader: Reader = { worker, running: null, failure: null };
    worker.on('message', (reply: ResolveReply) => {
      const call = reader.running;
      if (!call || call.id !== reply.id) return;
      reader.running = null;
      worker.unref();
      if ('error' in reply) call.reject(new Error(reply.error));
      else call.resolve(reply.result);
      this.dispatch();
    });
    worker.on('exit', () => {
      if (this.readers[slot] === reader) this.readers[slot] = null;
      reader.running?.reject(new Error(`An entity reader thread stopped${reader.failure ? `: ${reader.failure.message}` : ''}`));
      reader.running = null;
      if (!this.closed) this.dispatch();
    });
    // An 'error' is followed by 'exit', which answers the call; without a listener it would crash us.
    worker.on('error', (err) => {
      reader.failure = err;
    });
    return reader;
  }
}
