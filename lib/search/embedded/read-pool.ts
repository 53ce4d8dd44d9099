// The embedded engine's reads on worker threads. better-sqlite3 is synchronous, so on the main thread a
// heavy query (two common terms at 1M documents: 0.4–1.4 s) stalls every other request of the API,
// /v1/usage included (docs/benchmarks.md "Embedded engine: reads off the event loop"). Each reader
// thread opens its own connection to the same file and runs one call at a time: in WAL mode readers
// never wait for the writer and see every committed write, as a second process would.
import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { BadRequestError, EngineUnavailableError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Tuning } from './table-set.js';

/** What a reader thread opens: an in-thread EmbeddedProvider on the same file. */
export interface ReaderOptions {
  file: string;
  dimension: number;
  embeddingModel: string;
  tuning: Tuning;
  /** The pino level of the owner's logger; null when it has none. */
  logLevel: string | null;
}

export type ReadOp = 'search' | 'list' | 'get' | 'knn' | 'stats';

/** How searches were served (EmbeddedProvider.counters), as a delta per call. */
export interface Counters {
  fromList: number;
  rankedByFts: number;
  listsBuilt: number;
}

export interface ReadRequest {
  id: number;
  op: ReadOp;
  arg: unknown;
}

export type ReadReply =
  | { id: number; counters: Counters; result: unknown }
  | { id: number; counters: Counters; error: { name: string; message: string } }
  /** A log line of the reader, written by the owner's logger (so it reaches the owner's stream). */
  | { log: string };

/** Errors a reader may raise that the API answers with their own status; anything else is a 500. */
const KNOWN_ERRORS = new Map<string, (message: string) => Error>([
  ['BadRequestError', (m) => new BadRequestError(m)],
  ['EngineUnavailableError', (m) => new EngineUnavailableError(m)],
]);

interface Reader {
  worker: Worker;
  pending: Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>;
}

export interface ReadPoolOptions {
  reader: ReaderOptions;
  /** Threads at most; each is started when every running one is busy. */
  size: number;
  /** Receives each call's counter delta. */
  onCounters: (delta: Counters) => void;
  log?: Logger;
  /** The thread's entry module; tests substitute one that can fail on demand. */
  entry?: URL;
}

export class ReadPool {
  private readonly readers: (Reader | null)[];
  private readonly entry: URL;
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: ReadPoolOptions) {
    this.readers = Array.from({ length: opts.size }, () => null);
    this.entry = opts.entry ?? new URL('./read-worker-entry.js', import.meta.url);
  }

  /** Runs `op` on the least busy reader thread, starting it if needed. */
  call<T>(op: ReadOp, arg: unknown): Promise<T> {
    if (this.closed) return Promise.reject(new EngineUnavailableError('The embedded index is closed'));
    const reader = this.pick();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      reader.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      // An idle reader must not keep the process alive; a busy one must (a CLI awaiting a search).
      if (reader.pending.size === 1) reader.worker.ref();
      reader.worker.postMessage({ id, op, arg } satisfies ReadRequest);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const running = this.readers.filter((r): r is Reader => r !== null);
    this.readers.fill(null);
    await Promise.all(running.map((r) => r.worker.terminate()));
  }

  private relay(line: string): void {
    const log = this.opts.log;
    if (!log) return;
    const { level, time: _time, component: _component, ...rest } = JSON.parse(line) as { level: number; [k: string]: unknown };
    const label = pino.levels.labels[level] as pino.Level | undefined;
    if (label) log[label](rest);
  }

  /** The reader with the fewest calls in flight; a thread is started only when every running one is busy. */
  private pick(): Reader {
    const load = (i: number) => this.readers[i]?.pending.size ?? 0;
    let best = 0;
    for (let i = 1; i < this.readers.length; i++) {
      if (load(i) < load(best) || (load(i) === load(best) && this.readers[i] && !this.readers[best])) best = i;
    }
    return (this.readers[best] ??= this.start(best));
  }

  private start(slot: number): Reader {
    // The entry registers tsx itself, so a reader starts the same under `node --import tsx`, the `pdi`
    // launcher (which registers tsx in code) and tap. The parent's flags are not passed on: they would
    // register tsx twice, and process-level ones (--cpu-prof) are not meant for the readers.
    const worker = new Worker(this.entry, { workerData: this.opts.reader, execArgv: [] });
    worker.unref();
    const reader: Reader = { worker, pending: new Map() };
    worker.on('message', (reply: ReadReply) => {
      if ('log' in reply) return this.relay(reply.log);
      const waiting = reader.pending.get(reply.id);
      if (!waiting) return;
      reader.pending.delete(reply.id);
      if (reader.pending.size === 0) worker.unref();
      this.opts.onCounters(reply.counters);
      if ('error' in reply) {
        const { name, message } = reply.error;
        const make = KNOWN_ERRORS.get(name);
        waiting.reject(make ? make(message) : Object.assign(new Error(message), { name }));
      } else {
        waiting.resolve(reply.result);
      }
    });
    worker.on('error', (err) => this.opts.log?.error({ err, slot }, 'embedded reader thread failed'));
    worker.on('exit', (code) => {
      if (this.readers[slot] === reader) this.readers[slot] = null;
      if (reader.pending.size === 0) return;
      if (!this.closed) this.opts.log?.error({ code, slot, pending: reader.pending.size }, 'embedded reader thread stopped with calls in flight');
      const err = new EngineUnavailableError('The embedded search reader stopped; try again');
      for (const { reject } of reader.pending.values()) reject(err);
      reader.pending.clear();
    });
    return reader;
  }
}
