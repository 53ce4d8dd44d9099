// A durable job queue in the account database (table `jobs`): a job is a row written in the same
// transaction as the work's own record, so a job accepted is never lost, even to a SIGKILL. At start,
// rows left `queued` or `running` by a process that died are run again (a job interrupted
// `maxAttempts` times is failed instead). At most `concurrency` jobs run at once, taken from the
// waiting ones turn by turn (JobKind.turnOf: an organization's six reports no longer make another's
// one wait behind all six); a job that runs past its timeout is failed and its signal aborted. Rows of jobs that ended more than a week ago are deleted at start: the work's
// own record (a report) keeps what users see, and the table would otherwise grow forever.
// Handlers must be idempotent: a job may run twice (a kill after its work was
// written but before its row was marked done), and a job failed on timeout may still finish late.
// A job that could not write its result or its own row (a full disk) is neither failed nor left
// pending for ever: it runs again every `retryMs` while the server runs.
import { isStorageFull, STORAGE_FULL } from './errors.js';
import { base62 } from './random.js';
import { FairQueue } from './search/embedded/fair-queue.js';
import type { Logger } from './logger.js';
import type { Sqlite } from './sqlite.js';

export interface JobKind<P> {
  /** Does the work; throws to fail the job. `signal` aborts when the job is failed on timeout. */
  run(payload: P, job: { id: string; attempt: number; signal: AbortSignal }): Promise<void>;
  /** Whose turn the job takes among the waiting ones (an organization); one line for all when absent. */
  turnOf?(payload: P): string;
  /** Records the failure where users see it (the job's own record); `message` is for the user. */
  failed(payload: P, message: string): void;
  /** The user's message for an error `run` threw. */
  messageOf(err: unknown): string;
}

export interface JobQueueOptions {
  /** Jobs running at once. */
  concurrency: number;
  /** A job running longer is failed (ms). */
  timeoutMs: number;
  /** Runs a job may start (the first included) before an interrupted one is failed. */
  maxAttempts: number;
  /** Wait before running again a job that could not write its result or its row (ms; default 5 s). */
  retryMs?: number;
  log: Logger;
  now?: () => Date;
}

interface JobRow {
  id: string;
  kind: string;
  payload: string;
  status: string;
  attempts: number;
}

export class JobQueue {
  private readonly kinds = new Map<string, JobKind<any>>();
  private readonly waiting = new FairQueue<{ id: string; turn: string }>();
  /** Jobs running, per turn. */
  private readonly runningTurns = new Map<string, number>();
  private running = 0;
  private idleWaiters: (() => void)[] = [];
  private readonly retries = new Set<NodeJS.Timeout>();
  private readonly now: () => Date;
  private started = false;
  private stopped = false;

  constructor(
    private readonly db: Sqlite,
    private readonly opts: JobQueueOptions,
  ) {
    this.now = opts.now ?? (() => new Date());
  }

  register<P>(kind: string, handler: JobKind<P>): void {
    this.kinds.set(kind, handler);
  }

  /**
   * Writes the job, with `within` (the work's own record) in the same transaction, and runs it once
   * the queue is started. Returns the job id.
   */
  enqueue<P>(kind: string, payload: P, within: () => void = () => {}): string {
    if (!this.kinds.has(kind)) throw new Error(`no handler for job kind ${kind}`);
    const id = `job_${base62(20)}`;
    this.db.transaction(() => {
      within();
      this.db
        .prepare(`INSERT INTO jobs (id, kind, payload, status, created_at) VALUES (?, ?, ?, 'queued', ?)`)
        .run(id, kind, JSON.stringify(payload), this.now().toISOString());
    })();
    if (this.started && !this.stopped) this.schedule({ id, kind, payload: JSON.stringify(payload) });
    return id;
  }

  /**
   * Deletes the rows of jobs ended a week ago or more, takes up every job left queued or running (by a
   * process that died), then runs new ones as they come.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    const weekAgo = new Date(this.now().getTime() - KEEP_ENDED_MS).toISOString();
    const pruned = this.db.prepare(`DELETE FROM jobs WHERE status IN ('done', 'failed') AND finished_at < ?`).run(weekAgo).changes;
    if (pruned > 0) this.opts.log.info({ pruned }, 'deleted the rows of jobs ended over a week ago');
    const open = this.db
      .prepare(`SELECT id, kind, payload, status, attempts FROM jobs WHERE status IN ('queued', 'running') ORDER BY created_at, id`)
      .all() as JobRow[];
    for (const job of open) {
      if (job.status === 'running' && job.attempts >= this.opts.maxAttempts) {
        this.fail(job, `It was interrupted ${job.attempts} times by a server stop; create it again`);
        continue;
      }
      if (job.status === 'running') this.opts.log.warn({ job: job.id, kind: job.kind }, 'job interrupted by a stop; running it again');
      this.schedule(job);
    }
  }

  /** Runs `id` now in this process (the CLI), outside the queue's concurrency; resolves when it ended. */
  async runNow(id: string): Promise<void> {
    if ((await this.execute(id, new AbortController().signal)) === 'retry') throw new Error(STORAGE_FULL);
  }

  /** Takes no new jobs and waits for those running, up to `waitMs`; the rest run again at the next start. */
  async stop(waitMs = 10_000): Promise<void> {
    this.stopped = true;
    this.waiting.drain();
    for (const timer of this.retries) clearTimeout(timer);
    this.retries.clear();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.idle(), new Promise((r) => (timer = setTimeout(r, waitMs)))]);
    clearTimeout(timer);
  }

  /** Jobs waiting or running in this process. */
  get size(): number {
    return this.waiting.length + this.running;
  }

  /** Resolves when no job is waiting or running. */
  idle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(job: Pick<JobRow, 'id' | 'kind' | 'payload'>): void {
    const turnOf = this.kinds.get(job.kind)?.turnOf;
    const turn = turnOf ? turnOf(JSON.parse(job.payload)) : '';
    this.waiting.push(turn, { id: job.id, turn });
    this.pump();
  }

  /**
   * Starts waiting jobs, in turn, while fewer than `concurrency` run: first those of a turn with none
   * running (the organization whose job just started is not served again while another waits).
   */
  private pump(): void {
    while (!this.stopped && this.running < this.opts.concurrency) {
      const job = this.waiting.shift((turn) => !this.runningTurns.has(turn)) ?? this.waiting.shift();
      if (job === undefined) break;
      this.running++;
      this.runningTurns.set(job.turn, (this.runningTurns.get(job.turn) ?? 0) + 1);
      void this.runTimed(job.id).finally(() => {
        this.running--;
        // The next job is picked while this one's turn still counts as running: another's goes first.
        this.pump();
        const left = this.runningTurns.get(job.turn)! - 1;
        if (left === 0) this.runningTurns.delete(job.turn);
        else this.runningTurns.set(job.turn, left);
        if (this.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
      });
    }
  }

  /** Runs `id`; past the timeout the job is failed, its signal aborted and its place given to the next. */
  private async runTimed(id: string): Promise<void> {
    const timeout = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.opts.timeoutMs)));
    try {
      const ran = this.execute(id, timeout.signal);
      const outcome = await Promise.race([ran, timedOut]);
      if (outcome === 'retry') return this.retryLater(id);
      if (outcome !== 'timeout') return;
      // It may still finish late: its work is idempotent and a failed row stays failed.
      ran.catch(() => {});
      timeout.abort(new Error('job timed out'));
      const job = this.row(id);
      if (job?.status !== 'running') return;
      this.fail(job, `It took longer than ${duration(this.opts.timeoutMs)} and was stopped; try again later or for a narrower identifier`);
    } catch (err) {
      this.opts.log.error({ job: id, err }, 'job bookkeeping failed; it runs again later');
      this.retryLater(id);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs `id` again after `retryMs`, unless it ended meanwhile or the queue stopped (the next start takes it up). */
  private retryLater(id: string): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.retries.delete(timer);
      if (this.stopped) return;
      const job = this.row(id);
      if (job && (job.status === 'queued' || job.status === 'running')) this.schedule(job);
    }, this.opts.retryMs ?? 5_000);
    timer.unref();
    this.retries.add(timer);
  }

  /** 'retry' when the work could not be written (storage full): the job stays open and runs again. */
  private async execute(id: string, signal: AbortSignal): Promise<'retry' | undefined> {
    const job = this.row(id);
    if (!job || (job.status !== 'queued' && job.status !== 'running')) return;
    const handler = this.kinds.get(job.kind);
    if (!handler) {
      this.opts.log.error({ job: id, kind: job.kind }, 'job of an unknown kind left queued');
      return;
    }
    const attempt = job.attempts + 1;
    this.db.prepare(`UPDATE jobs SET status = 'running', attempts = ?, started_at = ? WHERE id = ?`).run(attempt, this.now().toISOString(), id);
    try {
      await handler.run(JSON.parse(job.payload), { id, attempt, signal });
    } catch (err) {
      if (isStorageFull(err)) {
        this.opts.log.warn({ job: id, kind: job.kind, err }, 'job could not write its result (storage full); it runs again later');
        return 'retry';
      }
      this.opts.log.error({ job: id, kind: job.kind, err }, 'job failed');
      this.fail({ ...job, status: 'running' }, handler.messageOf(err));
      return;
    }
    // A job failed on timeout meanwhile stays failed.
    this.db
      .prepare(`UPDATE jobs SET status = 'done', finished_at = ?, last_error = NULL WHERE id = ? AND status = 'running'`)
      .run(this.now().toISOString(), id);
  }

  private fail(job: JobRow, message: string): void {
    const handler = this.kinds.get(job.kind);
    this.db.transaction(() => {
      this.db
        .prepare(`UPDATE jobs SET status = 'failed', finished_at = ?, last_error = ? WHERE id = ? AND status IN ('queued', 'running')`)
        .run(this.now().toISOString(), message, job.id);
      handler?.failed(JSON.parse(job.payload), message);
    })();
  }

  private row(id: string): JobRow | undefined {
    return this.db.prepare('SELECT id, kind, payload, status, attempts FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
  }
}

const KEEP_ENDED_MS = 7 * 24 * 3600_000;

/** `300000` → `5 min`, `90000` → `90 s`, `50` → `50 ms`. */
function duration(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return ms >= 1_000 ? `${Math.round(ms / 1_000)} s` : `${ms} ms`;
}
