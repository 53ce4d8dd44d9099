// The durable job queue (lib/job-queue.ts) on a real account database: bounded concurrency, a job
// past its timeout failed with its message, interrupted jobs run again up to their attempts, and a
// report job run twice writes one result.
import t, { type Test } from 'tap';
import { accountsDbPath, openDatabase, type Db } from '../../api/db/database.js';
import { JobQueue } from '../../lib/job-queue.js';
import { createLogger } from '../../lib/logger.js';
import { ReportStore } from '../../api/reports/store.js';
import { ReportService } from '../../api/reports/service.js';
import { startTestApp, tempDir } from '../helpers/app.js';

function db(t: Test): Db {
  const d = openDatabase(accountsDbPath(tempDir(t)));
  t.teardown(() => d.close());
  return d;
}

function queue(d: Db, opts: Partial<{ concurrency: number; timeoutMs: number; maxAttempts: number; retryMs: number }> = {}): JobQueue {
  return new JobQueue(d, { concurrency: 2, timeoutMs: 60_000, maxAttempts: 3, log: createLogger('silent'), ...opts });
}

const status = (d: Db, id: string) =>
  d.prepare('SELECT status, attempts, last_error FROM jobs WHERE id = ?').get(id) as { status: string; attempts: number; last_error: string | null };

t.test('when more jobs are queued than the concurrency, then no more than that many run at once, and all finish', async (t) => {
  const d = db(t);
  const q = queue(d, { concurrency: 2 });
  let running = 0;
  let peak = 0;
  const ran: number[] = [];
  q.register<{ n: number }>('work', {
    run: async ({ n }) => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((r) => setImmediate(r));
      ran.push(n);
      running -= 1;
    },
    failed: () => {},
    messageOf: () => 'failed',
  });
  const ids = [1, 2, 3, 4, 5].map((n) => q.enqueue('work', { n }));
  q.start();
  await q.idle();
  t.equal(peak, 2);
  t.same(ran.sort(), [1, 2, 3, 4, 5]);
  t.same(
    ids.map((id) => status(d, id).status),
    ['done', 'done', 'done', 'done', 'done'],
  );
});

t.test('when a job runs past its timeout, then it ends failed with a message saying so, and finishing late changes nothing', async (t) => {
  const d = db(t);
  const q = queue(d, { timeoutMs: 50 });
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const failures: string[] = [];
  q.register('slow', { run: () => held, failed: (_p, message) => failures.push(message), messageOf: () => 'failed' });
  const id = q.enqueue('slow', {});
  q.start();
  await q.idle();
  t.same(failures, ['It took longer than 50 ms and was stopped; try again later or for a narrower identifier']);
  t.match(status(d, id), { status: 'failed', attempts: 1, last_error: failures[0] });
  release();
  await held;
  await new Promise((r) => setImmediate(r));
  t.equal(status(d, id).status, 'failed', 'the late end does not mark it done');
});

t.test('when a job was left running by a killed process, then the next start runs it again, and fails it after its last attempt', async (t) => {
  const d = db(t);
  const insert = d.prepare(`INSERT INTO jobs (id, kind, payload, status, attempts, created_at) VALUES (?, 'work', '{}', 'running', ?, '2026-01-01T00:00:00Z')`);
  insert.run('job_again', 1);
  insert.run('job_spent', 3);
  const q = queue(d, { maxAttempts: 3 });
  const ran: string[] = [];
  const failures: string[] = [];
  q.register('work', { run: async (_p, job) => void ran.push(job.id), failed: (_p, m) => failures.push(m), messageOf: () => 'failed' });
  q.start();
  await q.idle();
  t.same(ran, ['job_again']);
  t.match(status(d, 'job_again'), { status: 'done', attempts: 2 });
  t.match(status(d, 'job_spent'), { status: 'failed', last_error: 'It was interrupted 3 times by a server stop; create it again' });
  t.same(failures, ['It was interrupted 3 times by a server stop; create it again']);
});

t.test("when a handler throws, then the job and its record end failed with the handler's user message", async (t) => {
  const d = db(t);
  const q = queue(d);
  const failures: string[] = [];
  q.register('boom', {
    run: async () => {
      throw new Error('internal detail');
    },
    failed: (_p, m) => failures.push(m),
    messageOf: (err) => `user words (${(err as Error).name})`,
  });
  const id = q.enqueue('boom', {});
  q.start();
  await q.idle();
  t.same(failures, ['user words (Error)']);
  t.equal(status(d, id).status, 'failed');
});

t.test('when a job cannot write its result because the storage is full, then it stays open and completes once there is room', async (t) => {
  const d = db(t);
  d.exec('CREATE TABLE results (job TEXT PRIMARY KEY, body BLOB)');
  const q = queue(d, { retryMs: 20 });
  const failures: string[] = [];
  let runs = 0;
  q.register<{ n: number }>('write', {
    run: async (_p, job) => {
      runs++;
      d.prepare('INSERT OR REPLACE INTO results VALUES (?, ?)').run(job.id, Buffer.alloc(256 * 1024));
    },
    failed: (_p, m) => failures.push(m),
    messageOf: () => 'failed',
  });
  const id = q.enqueue('write', { n: 1 });
  // A real SQLITE_FULL: the database may not grow past the pages it has.
  const pages = d.pragma('page_count', { simple: true }) as number;
  d.pragma(`max_page_count = ${pages}`);
  q.start();
  const until = async (done: () => boolean) => {
    for (let waited = 0; !done() && waited < 5_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
  };
  await until(() => runs >= 2);
  t.ok(runs >= 2, 'run again while the disk is full');
  t.equal(status(d, id).status, 'running', 'still open while the disk is full, not failed');
  t.same(failures, []);
  d.pragma('max_page_count = 1073741823');
  await until(() => status(d, id).status !== 'running');
  t.equal(status(d, id).status, 'done');
  t.equal(d.prepare('SELECT count(*) FROM results').pluck().get(), 1, 'its result written once there was room');
  await q.stop();
});

t.test('when a report job runs twice (killed after writing its result, before marking the job done), then the report keeps its one result', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('pro');
  const created = await app.request('/v1/reports', { key, method: 'POST', body: { entity_identifier: '094014201', identifier_type: 'afm' } });
  await app.app.jobs.idle();
  const first = await app.request(`/v1/reports/${created.body.id}`, { key });
  t.equal(first.body.status, 'completed');
  app.db.prepare(`UPDATE jobs SET status = 'running'`).run();

  // The next process: a queue and report service of its own on the same database, with a later clock.
  const again = queue(app.db);
  new ReportService(new ReportStore(app.db), again, app.app.context.entityReaders, app.search, () => new Date(Date.now() + 3_600_000));
  again.start();
  await again.idle();
  const second = await app.request(`/v1/reports/${created.body.id}`, { key });
  t.equal(second.body.completed_at, first.body.completed_at);
  t.equal(second.body.report_json, first.body.report_json, 'the same generated_at: not written again');
  t.same(app.db.prepare('SELECT status FROM jobs').pluck().all(), ['done']);
});

t.test('when the queue starts, then the rows of jobs ended a week ago or more are deleted, and recent and open ones kept', async (t) => {
  const d = db(t);
  let now = new Date('2026-03-01T12:00:00Z');
  const before = new JobQueue(d, { concurrency: 2, timeoutMs: 60_000, maxAttempts: 3, log: createLogger('silent'), now: () => now });
  before.register('work', { run: async () => {}, failed: () => {}, messageOf: () => 'failed' });
  before.register('broken', {
    run: async () => {
      throw new Error('no');
    },
    failed: () => {},
    messageOf: () => 'failed',
  });
  const old = [before.enqueue('work', {}), before.enqueue('broken', {})];
  before.start();
  await before.idle();
  now = new Date('2026-03-05T12:00:00Z');
  const recent = before.enqueue('work', {});
  await before.idle();
  await before.stop();

  now = new Date('2026-03-08T12:00:01Z');
  const after = new JobQueue(d, { concurrency: 2, timeoutMs: 60_000, maxAttempts: 3, log: createLogger('silent'), now: () => now });
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  after.register('work', { run: () => held, failed: () => {}, messageOf: () => 'failed' });
  const open = after.enqueue('work', {});
  after.start();
  t.teardown(async () => {
    release();
    await after.idle();
  });
  t.same(
    old.map((id) => status(d, id)),
    [undefined, undefined],
    'a done and a failed job of a week ago are gone',
  );
  t.equal(status(d, recent).status, 'done', 'a job ended three days ago is kept');
  t.equal(status(d, open).status, 'running', 'an open job is kept');
});

t.test('when one organization queues six jobs and another one, then the other runs next, not after all six', async (t) => {
  const d = db(t);
  const q = queue(d, { concurrency: 1 });
  const ran: string[] = [];
  q.register<{ org: string; n: number }>('report', {
    run: async ({ org, n }) => {
      ran.push(`${org}${n}`);
      await new Promise((r) => setImmediate(r));
    },
    turnOf: ({ org }) => org,
    failed: () => {},
    messageOf: () => 'failed',
  });
  q.start();
  for (let n = 1; n <= 6; n++) q.enqueue('report', { org: 'A', n });
  q.enqueue('report', { org: 'B', n: 1 });
  await q.idle();
  // A1 started at once; B's is the next, not the seventh.
  t.same(ran, ['A1', 'B1', 'A2', 'A3', 'A4', 'A5', 'A6']);
});
