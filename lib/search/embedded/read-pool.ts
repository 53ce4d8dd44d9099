// The API's SQLite reads on worker threads, so a heavy query (0.4–1.4 s at 1M documents) or a large
// entity never stalls the event loop: the embedded engine's reads, and entity resolution from
// documents.db (lib/entity-readers.ts), on whichever engine. Each thread has its own WAL connections
// and runs one call at a time.
// One queue fair between tenants (fair-queue.ts); a thread is given its next call while it runs the
// current one (PIPELINE), revocable until started (ReaderData.claim). docs/search-engines.md "Reader threads".
import { Worker } from 'node:worker_threads';
import { pino } from 'pino';
import { BadRequestError, EngineUnavailableError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { workerModule } from '../../paths.js';
import type { ReadOptions } from '../provider.js';
import { FairQueue } from './fair-queue.js';
import type { Tuning } from './table-set.js';

/** The embedded index a reader thread opens (an in-thread EmbeddedProvider on the same file). */
export interface IndexReaderOptions {
  file: string;
  dimension: number;
  embeddingModel: string;
  tuning: Tuning;
}

/** What a reader thread opens. */
export interface ReaderOptions {
  /** For search, list, get, knn, moreLikeThis and stats; null with Elasticsearch. */
  index: IndexReaderOptions | null;
  /** documents.db, whose entity index answers `entity`; null when the pool does not resolve entities. */
  entities: string | null;
  /** The pino level of the owner's logger; null when it has none. */
  logLevel: string | null;
}

/** What a reader thread is started with. */
export interface ReaderData extends ReaderOptions {
  /** The thread's Linux nice value, which the thread sets on itself (a nice value is per thread). */
  nice: number;
  /**
   * Shared with the owner: the id of the call posted to the thread and not started yet, 0 when none.
   * Whoever swaps it from that id to 0 first decides the call: the thread to run it, the owner to
   * revoke it (the thread then answers `skipped`).
   */
  claim: Int32Array;
}

export type ReadOp = 'search' | 'list' | 'get' | 'knn' | 'moreLikeThis' | 'stats' | 'aggregate' | 'facets' | 'exportBatch' | 'entity' | 'named' | 'labels';

/** How searches were served (EmbeddedProvider.counters), as a delta per call. */
export interface Counters {
  fromList: number;
  rankedByFts: number;
  listsBuilt: number;
  fromRanking: number;
  pruned: number;
}

export interface ReadRequest {
  id: number;
  op: ReadOp;
  arg: unknown;
}

export type ReadReply =
  | { id: number; counters: Counters; result: unknown }
  /** The call was revoked before the thread started it. */
  | { id: number; skipped: true }
  | { id: number; counters: Counters; error: { name: string; message: string; why?: string | null } }
  /** A log line of the reader, written by the owner's logger (so it reaches the owner's stream). */
  | { log: string };

/** Errors a reader may raise that the API answers with their own status; anything else is a 500. */
const KNOWN_ERRORS = new Map<string, (message: string, why: string | null) => Error>([
  ['BadRequestError', (m) => new BadRequestError(m)],
  ['EngineUnavailableError', (m, why) => new EngineUnavailableError(m, why)],
]);

/** Calls posted to one thread at most: the one it runs and the next. */
const PIPELINE = 2;

/** A read waiting for a thread, or posted to one. */
interface Call {
  op: ReadOp;
  arg: unknown;
  /** Whose read it is (ReadOptions.tenant): its line in the queue. */
  tenant: string;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
  /** Set once the caller has its answer (or gave up): a late reply is then only counted. */
  settled: boolean;
  /** Put back in the queue once already, when a thread died before starting it. */
  requeued?: boolean;
}

/** A call as posted to a thread, under the id of that posting; `call` is null once revoked. */
interface Posted {
  id: number;
  call: Call | null;
}

interface Reader {
  worker: Worker;
  /** In the thread's order: the first is running (or about to), the second waits its turn. */
  posted: Posted[];
  claim: Int32Array;
}

export interface ReadPoolOptions {
  reader: ReaderOptions;
  /** Threads at most; each is started when every running one is busy. */
  size: number;
  /** Receives each call's counter delta. */
  onCounters: (delta: Counters) => void;
  log?: Logger;
  /** The thread's entry module; tests substitute one that can fail or wait on demand. */
  entry?: URL;
}

/**
 * Background reads (ReadOptions.background: reports) run on a thread of their own at this nice value,
 * never on the API's reader threads: at nice 0 three reports' reads took a core from /healthz and
 * searches on two cores; at nice 10 a Linux thread gets about a tenth of a core it contends for.
 */
export const BACKGROUND_NICE = 10;

/** Reads on reader threads, the clients' on their threads and background reads on a thread of its own. */
export class ReadPool {
  private readonly interactive: Lane;
  private readonly background: Lane;

  /** The documents.db whose entities the threads resolve (ReaderOptions.entities). */
  get entities(): string | null {
    return this.opts.reader.entities;
  }

  constructor(private readonly opts: ReadPoolOptions) {
    this.interactive = new Lane(opts, opts.size, 0);
    this.background = new Lane(opts, 1, BACKGROUND_NICE);
  }

  /** Runs `op` on a reader thread of its lane, starting one if every running thread of the lane is busy. */
  call<T>(op: ReadOp, arg: unknown, opts: ReadOptions = {}): Promise<T> {
    return (opts.background ? this.background : this.interactive).call<T>(op, arg, opts);
  }

  async close(): Promise<void> {
    await Promise.all([this.interactive.close(), this.background.close()]);
  }
}

/**
 * One lane's reads on its threads: a call goes to a free thread (or waits its turn on a busy one while it can
 * still be taken back), a call whose caller went away (its signal aborted) is dropped unless a thread
 * has started it. A started call cannot be stopped (SQLite is inside one synchronous step): its caller
 * is answered at once and the thread finishes it unobserved.
 */
class Lane {
  private readonly readers: (Reader | null)[];
  private readonly queue = new FairQueue<Call>();
  private readonly entry: URL;
  private nextId = 1;
  private closed = false;

  /**
   * Threads one tenant may hold at once: all but one, so that a tenant's heavy searches never make
   * another's read wait for one of them to end (the fair queue alone only orders the waiting calls).
   * The price: one tenant alone gets all but one thread.
   */
  private readonly perTenant: number;

  constructor(
    private readonly opts: ReadPoolOptions,
    size: number,
    private readonly nice: number,
  ) {
    this.readers = Array.from({ length: size }, () => null);
    this.perTenant = Math.max(1, size - 1);
    this.entry = opts.entry ?? workerModule('read-worker', import.meta.url);
  }

  call<T>(op: ReadOp, arg: unknown, { signal, tenant = '' }: ReadOptions): Promise<T> {
    if (this.closed) return Promise.reject(new EngineUnavailableError('The embedded index is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<T>((resolve, reject) => {
      const call: Call = { op, arg, tenant, resolve: resolve as (value: unknown) => void, reject, signal, settled: false };
      if (signal) {
        call.onAbort = () => this.abandon(call);
        signal.addEventListener('abort', call.onAbort, { once: true });
      }
      this.queue.push(tenant, call);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const err = new EngineUnavailableError('The embedded index is closed');
    for (const call of this.queue.drain()) settle(call, () => call.reject(err));
    const running = this.readers.filter((r): r is Reader => r !== null);
    this.readers.fill(null);
    // A timer holds the event loop until every thread has stopped: Node let a process with nothing else
    // to do exit before a terminated thread's 'exit' arrived, its close never completing (about 1 run in
    // 10 with a revoked call's message still in flight to the thread), even with the thread referenced.
    const hold = setInterval(() => {}, 60_000);
    try {
      await Promise.all(running.map((r) => r.worker.terminate()));
    } finally {
      clearInterval(hold);
    }
  }

  private relay(line: string): void {
    const log = this.opts.log;
    if (!log) return;
    const { level, time: _time, component: _component, ...rest } = JSON.parse(line) as { level: number; [k: string]: unknown };
    const label = pino.levels.labels[level] as pino.Level | undefined;
    if (label) log[label](rest);
  }

  /** The caller gave up: the call leaves the queue or is revoked if no thread started it; answered now. */
  private abandon(call: Call): void {
    this.queue.remove(call.tenant, call);
    for (const reader of this.readers) {
      if (!reader) continue;
      const posted = reader.posted.find((p) => p.call === call);
      if (posted) revoke(reader, posted);
    }
    settle(call, () => call.reject(call.signal!.reason as Error));
  }

  /**
   * Gives queued calls to threads: an idle one, else a new one while a slot is free, else one that has
   * started everything posted to it. Then an idle thread takes back a call still waiting on another.
   */
  private dispatch(): void {
    while (this.queue.length > 0) {
      const call = this.queue.shift((tenant) => this.mayTakeThread(tenant));
      if (!call) break;
      const reader = this.readerFor();
      if (!reader) {
        this.queue.unshift(call.tenant, call);
        break;
      }
      this.post(reader, call);
    }
    for (const idle of this.readers) {
      if (!idle || idle.posted.length > 0) continue;
      for (const other of this.readers) {
        const waiting = other?.posted.at(-1);
        if (!other || other === idle || !waiting?.call) continue;
        const call = waiting.call;
        // Moved off a thread running a call of its own tenant, it would hold one thread more.
        if (other.posted[0]?.call?.tenant === call.tenant && !this.mayTakeThread(call.tenant)) continue;
        if (revoke(other, waiting)) {
          this.post(idle, call);
          break;
        }
      }
    }
  }

  /** Whether a call of `tenant` may go to a thread it holds no call on (reads with no tenant always may). */
  private mayTakeThread(tenant: string): boolean {
    if (tenant === '') return true;
    let held = 0;
    for (const reader of this.readers) if (reader?.posted.some((p) => p.call?.tenant === tenant)) held++;
    return held < this.perTenant;
  }

  private readerFor(): Reader | null {
    const running = this.readers.filter((r): r is Reader => r !== null);
    const idle = running.find((r) => r.posted.length === 0);
    if (idle) return idle;
    const slot = this.readers.indexOf(null);
    if (slot !== -1) return (this.readers[slot] = this.start(slot));
    return running.find((r) => r.posted.length < PIPELINE && Atomics.load(r.claim, 0) === 0) ?? null;
  }

  private post(reader: Reader, call: Call): void {
    const id = this.nextId;
    this.nextId = (this.nextId % 0x7fffffff) + 1;
    reader.posted.push({ id, call });
    Atomics.store(reader.claim, 0, id);
    // A busy reader keeps the process alive (a CLI awaiting a search); an idle one must not.
    reader.worker.ref();
    reader.worker.postMessage({ id, op: call.op, arg: call.arg } satisfies ReadRequest);
  }

  private start(slot: number): Reader {
    const claim = new Int32Array(new SharedArrayBuffer(4));
    // From the sources the entry registers tsx itself, so a reader starts the same under `node --import
    // tsx`, the `pdi` launcher and tap. The parent's flags are not passed on: they would register tsx
    // twice, and process-level ones (--cpu-prof) are not meant for the readers.
    const worker = new Worker(this.entry, { workerData: { ...this.opts.reader, nice: this.nice, claim } satisfies ReaderData, execArgv: [] });
    worker.unref();
    const reader: Reader = { worker, posted: [], claim };
    worker.on('message', (reply: ReadReply) => {
      if ('log' in reply) return this.relay(reply.log);
      if (reader.posted[0]?.id !== reply.id) return;
      const { call } = reader.posted.shift()!;
      if (reader.posted.length === 0) worker.unref();
      if ('counters' in reply) this.opts.onCounters(reply.counters);
      if (call && 'error' in reply) {
        const { name, message, why = null } = reply.error;
        const make = KNOWN_ERRORS.get(name);
        settle(call, () => call.reject(make ? make(message, why) : Object.assign(new Error(message), { name })));
      } else if (call && 'result' in reply) {
        settle(call, () => call.resolve(reply.result));
      }
      this.dispatch();
    });
    worker.on('error', (err) => this.opts.log?.error({ err, slot, nice: this.nice }, 'embedded reader thread failed'));
    worker.on('exit', (code) => {
      if (this.readers[slot] === reader) this.readers[slot] = null;
      // The call the thread had not started (at most one: the claim's) goes back to the front of the
      // queue, once, so a thread that dies before starting anything is not restarted for ever. A call
      // it was running fails.
      const unstarted = Atomics.load(claim, 0);
      for (const { id, call } of reader.posted.splice(0)) {
        if (!call || call.settled) continue;
        if (id === unstarted && !call.requeued && !this.closed) {
          call.requeued = true;
          this.queue.unshift(call.tenant, call);
          continue;
        }
        if (!this.closed) this.opts.log?.error({ code, slot }, 'embedded reader thread stopped with a call in flight');
        settle(call, () => call.reject(new EngineUnavailableError('The embedded search reader stopped; try again')));
      }
      if (!this.closed) this.dispatch();
    });
    return reader;
  }
}

/** Takes back a call posted to `reader` if the thread has not started it; false if it has. */
function revoke(reader: Reader, posted: Posted): boolean {
  if (Atomics.compareExchange(reader.claim, 0, posted.id, 0) !== posted.id) return false;
  posted.call = null;
  return true;
}

/** Answers a call once: the first of its reply, its abandonment or the pool's end wins. */
function settle(call: Call, answer: () => void): void {
  if (call.settled) return;
  call.settled = true;
  if (call.onAbort) call.signal!.removeEventListener('abort', call.onAbort);
  answer();
}
