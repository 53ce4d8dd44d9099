// The embedded engine's reads on reader threads (read-pool.ts): what moving them off the calling thread
// must not change (visibility of writes, answers, errors), and what the threads add (a thread that
// dies, a process that must neither exit early nor hang). The shared search contract also runs on reader
// threads (search-embedded.test.ts).
import { Database } from '../../lib/sqlite.js';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import type { IndexedDocument } from '../../index-mappings/document.js';
import { BadRequestError, EngineUnavailableError } from '../../lib/errors.js';
import { DEFAULT_TUNING, EmbeddedProvider } from '../../lib/search/embedded.js';
import { BACKGROUND_NICE, ReadPool } from '../../lib/search/embedded/read-pool.js';
import { tempDir } from '../helpers/app.js';
import { doc as plainDoc } from '../helpers/embedded-index.js';
import { REPO_ROOT } from '../helpers/paths.js';

const run = promisify(execFile);

/** A document of 2025-01-01 with a vector, the rest plain. */
const doc = (source_id: string, title: string, content = 'κείμενο'): IndexedDocument =>
  plainDoc(source_id, '2025-01-01T00:00:00Z', title, content, { embedding: [1, 0] });

async function* batches(...docs: IndexedDocument[]) {
  yield docs;
}

async function pooled(t: Test, readers = 2) {
  const file = path.join(tempDir(t), 'index.db');
  const provider = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm', readers });
  await provider.init();
  t.teardown(() => provider.close());
  return { provider, file };
}

const ids = (hits: { doc: { source_id: string } }[]) => hits.map((h) => h.doc.source_id);
const page = { limit: 10, offset: 0 };

t.test('when reads run on reader threads, then each sees every write committed before it', async (t) => {
  const { provider } = await pooled(t);
  await provider.upsert([doc('diavgeia:A', 'απόφαση ανάθεσης')]);
  t.same(ids((await provider.search({ text: 'απόφαση', ...page })).hits), ['diavgeia:A'], 'an insert');
  await provider.upsert([doc('diavgeia:A', 'πρόσκληση υποβολής')]);
  t.equal((await provider.search({ text: 'απόφαση', ...page })).total, 0, 'an overwrite: the old title is gone');
  t.same(ids((await provider.search({ text: 'πρόσκληση', ...page })).hits), ['diavgeia:A'], 'and the new one found');

  await provider.rebuild('diavgeia', batches(doc('diavgeia:B', 'απόφαση έγκρισης')));
  t.same(ids((await provider.list({ source: 'diavgeia', ...page })).hits), ['diavgeia:B'], 'a rebuild: the new generation lists');
  t.equal(await provider.get('diavgeia:A'), null, 'and the old one is gone');
  t.equal((await provider.get('diavgeia:B'))?.title, 'απόφαση έγκρισης');
  t.same(
    (await provider.knn({ vector: [1, 0], limit: 5 })).map((h) => h.doc.source_id),
    ['diavgeia:B'],
  );
  t.equal((await provider.stats()).total_documents, 1);
});

t.test('when many reads are in flight at once, then each gets the answer the calling thread would give', async (t) => {
  const { provider, file } = await pooled(t);
  const words = Array.from({ length: 30 }, (_, i) => `λέξη${i}`);
  await provider.upsert(words.flatMap((w, i) => [doc(`diavgeia:${i}`, `${w} απόφαση`), doc(`kimdis:${i}`, `${w} σύμβαση ${words[(i + 1) % 30]}`)]));
  const inThread = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm' });
  t.teardown(() => inThread.close());

  const before = provider.counters.rankedByFts;
  const answers = await Promise.all(words.map((w) => provider.search({ text: w, ...page })));
  for (const [i, w] of words.entries()) t.same(answers[i], await inThread.search({ text: w, ...page }), w);
  t.ok(provider.counters.rankedByFts - before >= words.length, 'the threads report how they served each search');
});

t.test('when a search asks for the metadata view, then its hits cross the thread boundary with those fields only', async (t) => {
  const { provider } = await pooled(t);
  await provider.upsert([doc('diavgeia:A', 'απόφαση ανάθεσης', 'μακρύ κείμενο')]);
  const [hit] = (await provider.search({ text: 'απόφαση', ...page, view: 'metadata' })).hits;
  t.equal(hit.doc.title, 'απόφαση ανάθεσης');
  t.notOk('content' in hit.doc, 'no content');
  const [full] = (await provider.search({ text: 'απόφαση', ...page })).hits;
  t.equal(full.doc.content, 'μακρύ κείμενο', 'the full view keeps it');
});

t.test('when a reader raises an error, then the caller gets it with its status', async (t) => {
  const { provider } = await pooled(t);
  const bad = provider.list({ source: 'diavgeia', filters: { since: '2024-13-45' }, ...page });
  await t.rejects(bad, BadRequestError);
  await t.rejects(bad, { statusCode: 400, message: /^since must be a date YYYY-MM-DD or a date-time .*, got "2024-13-45"$/ });
  await t.rejects(provider.knn({ vector: [1, 0, 0], limit: 1 }), { message: /3 dimensions/ }, 'any other error keeps its message');
  t.equal((await provider.search({ text: 'απόφαση', ...page })).total, 0, 'and the thread keeps serving');
});

type Answer = { total: number; threadId: number; text: string };

/** A pool whose threads run a stand-in entry (test/helpers): stub-reader.js unless another is named. */
function stubPool(t: Test, size: number, entry = 'stub-reader.js') {
  const pool = new ReadPool({
    reader: { index: { file: ':unused:', dimension: 2, embeddingModel: 'm', tuning: DEFAULT_TUNING }, entities: null, logLevel: null },
    size,
    onCounters: () => {},
    entry: new URL(`../helpers/${entry}`, import.meta.url),
  });
  // How many calls the threads have started, and gates holding a call on its thread until opened.
  const started = new Int32Array(new SharedArrayBuffer(4));
  const gates: Int32Array[] = [];
  const gate = () => {
    const g = new Int32Array(new SharedArrayBuffer(4));
    gates.push(g);
    return g;
  };
  const open = (g: Int32Array) => {
    Atomics.store(g, 0, 1);
    Atomics.notify(g, 0);
  };
  const search = (text: string, extra: { gate?: Int32Array; signal?: AbortSignal; tenant?: string; background?: boolean } = {}) =>
    pool.call<Answer>('search', { text, started, gate: extra.gate }, { signal: extra.signal, tenant: extra.tenant, background: extra.background });
  /** Resolves once the threads have started `n` calls in all. */
  const startedCalls = async (n: number) => {
    while (Atomics.load(started, 0) < n) await new Promise((r) => setTimeout(r, 5));
  };
  t.teardown(async () => {
    for (const g of gates) open(g);
    await pool.close();
  });
  return { pool, started, gate, open, search, startedCalls };
}

t.test('when a reader thread dies with a call in flight, then that call fails with 503 and the calls queued behind it get a new thread', async (t) => {
  const { pool, search } = stubPool(t, 1);
  const first = await search('ok');
  const dying = pool.call('search', { text: 'die' });
  const queued = search('queued');
  await t.rejects(dying, { statusCode: 503, message: 'The embedded search reader stopped; try again' });
  await t.rejects(dying, EngineUnavailableError);
  const next = await queued;
  t.equal(next.text, 'queued', 'the queued call is answered');
  t.not(next.threadId, first.threadId, 'by a new thread');
});

t.test('when reader threads die before starting anything, then the call fails with 503 after one retry, not a thread per try for ever', async (t) => {
  const { pool } = stubPool(t, 1, 'dead-reader.js');
  await t.rejects(pool.call('search', { text: 'x' }), { statusCode: 503, message: 'The embedded search reader stopped; try again' });
});

t.test('when the caller of a queued read goes away, then the read never runs and the caller gets the reason at once', async (t) => {
  const { started, gate, open, search, startedCalls } = stubPool(t, 1);
  const held = gate();
  const slow = search('slow', { gate: held });
  await startedCalls(1);
  const controller = new AbortController();
  const abandoned = search('abandoned', { signal: controller.signal });
  const reason = new Error('client went away');
  controller.abort(reason);
  await t.rejects(abandoned, reason, 'rejected while the only thread is still busy');
  open(held);
  t.equal((await slow).text, 'slow');
  t.equal((await search('after')).text, 'after');
  t.equal(Atomics.load(started, 0), 2, 'the thread ran the slow call and the next one, not the abandoned one');
  await t.rejects(search('too late', { signal: AbortSignal.abort(reason) }), reason, 'a signal aborted before the call: refused');
});

t.test('when the caller of a running read goes away, then it is answered at once and the thread takes the next call when done', async (t) => {
  const { started, gate, open, search, startedCalls } = stubPool(t, 1);
  const held = gate();
  const controller = new AbortController();
  const running = search('running', { gate: held, signal: controller.signal });
  await startedCalls(1);
  const next = search('next');
  controller.abort(new Error('gone'));
  await t.rejects(running, { message: 'gone' });
  t.equal(Atomics.load(started, 0), 1, 'the next call waits while the thread finishes the abandoned one');
  open(held);
  t.equal((await next).text, 'next');
});

t.test('when one thread is held by a slow read, then later reads go to whichever thread is free', async (t) => {
  const { gate, open, search, startedCalls } = stubPool(t, 2);
  const [first, second] = [gate(), gate()];
  const slow = search('slow', { gate: first, tenant: 'a' });
  const quick = search('quick', { gate: second, tenant: 'b' });
  await startedCalls(2);
  const queued = search('queued', { tenant: 'b' });
  open(second);
  const answered = await quick;
  // Each thread used to get its own queue: `queued` waited behind `slow` while the other thread idled.
  const served = await Promise.race([queued, new Promise<null>((r) => setTimeout(() => r(null), 10_000).unref())]);
  t.ok(served, 'answered while the slow read still holds its thread');
  t.equal(served?.threadId, answered.threadId, 'by the thread that became free');
  open(first);
  t.equal((await slow).text, 'slow');
});

t.test("when one tenant has many reads waiting, then another tenant's read waits behind at most one of them", async (t) => {
  const { gate, open, search, startedCalls } = stubPool(t, 1);
  const held = gate();
  const order: string[] = [];
  const track = (text: string, tenant: string, extra: { gate?: Int32Array } = {}) => search(text, { ...extra, tenant }).then((a) => order.push(a.text));
  const flood = [track('a0', 'a', { gate: held })];
  await startedCalls(1);
  for (let i = 1; i <= 8; i++) flood.push(track(`a${i}`, 'a'));
  const other = track('b', 'b');
  open(held);
  await Promise.all([...flood, other]);
  // One first-in-first-out queue served b after all eight.
  t.same(order.slice(0, 3), ['a0', 'b', 'a1'], 'b is served as soon as the call running ends');
  t.same(order.slice(3), ['a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8'], "a's calls keep their order");
});

t.test("when one tenant's reads would hold every thread, then one thread stays free for another tenant", async (t) => {
  const { gate, open, search, startedCalls, started } = stubPool(t, 2);
  const [first, second] = [gate(), gate()];
  const heavy = [search('a0', { gate: first, tenant: 'a' }), search('a1', { gate: second, tenant: 'a' })];
  await startedCalls(1);
  const other = search('b', { tenant: 'b' });
  const served = await Promise.race([other, new Promise<null>((r) => setTimeout(() => r(null), 10_000).unref())]);
  t.equal(served?.text, 'b', "b answered while a's first read still holds its thread");
  t.equal(Atomics.load(started, 0), 2, "a's second read waits for a's first: it ran a0 and b only");
  open(first);
  open(second);
  t.same(
    (await Promise.all(heavy)).map((a) => a.text),
    ['a0', 'a1'],
  );
});

/** Resolves to null unless `p` settles within 10 s. */
const within = <T>(p: Promise<T>) => Promise.race([p, new Promise<null>((r) => setTimeout(() => r(null), 10_000).unref())]);

t.test("when a background read holds its thread, then a client's read is served on a thread of its own, and the other way round", async (t) => {
  const { gate, open, search, startedCalls } = stubPool(t, 1);
  const held = gate();
  const report = search('report', { gate: held, tenant: 'report:o', background: true });
  await startedCalls(1);
  const client = await within(search('client', { tenant: 'k' }));
  t.equal(client?.text, 'client', "a client's read is answered while the background read runs");
  open(held);
  const backgroundThread = (await report).threadId;
  t.not(client!.threadId, backgroundThread, "on a client's thread, not the background one");

  const clientHeld = gate();
  const slow = search('slow', { gate: clientHeld, tenant: 'k' });
  await startedCalls(3);
  const second = await within(search('report 2', { tenant: 'report:o', background: true }));
  t.equal(second?.text, 'report 2', "a background read is answered while a client's read holds its thread");
  t.equal(second?.threadId, backgroundThread, 'on the background thread');
  open(clientHeld);
  t.equal((await slow).text, 'slow');
});

/** This process's threads by their Linux nice value (field 19 of /proc/self/task/TID/stat). */
function niceOfThreads(): number[] {
  return fs.readdirSync('/proc/self/task').map((tid) => {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

t.test(
  "when a background read runs, then its reader thread is niced and the clients' are not",
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async (t) => {
    const own = os.getPriority();
    if (own >= BACKGROUND_NICE) {
      t.comment(`skipped: the test process already runs at nice ${own}`);
      return;
    }
    const { provider } = await pooled(t, 1);
    await provider.upsert([doc('diavgeia:A', 'απόφαση ανάθεσης')]);
    await provider.search({ text: 'απόφαση', ...page });
    t.notOk(niceOfThreads().includes(BACKGROUND_NICE), "no thread at the background nice value after a client's read");
    t.equal((await provider.search({ text: 'απόφαση', ...page }, { background: true })).total, 1);
    t.ok(niceOfThreads().includes(BACKGROUND_NICE), 'a thread at the background nice value after a background read');
  },
);

t.test('when an in-thread provider is called with an aborted signal, then it refuses with the reason', async (t) => {
  const provider = new EmbeddedProvider({ file: path.join(tempDir(t), 'index.db'), dimension: 2, embeddingModel: 'm' });
  await provider.init();
  t.teardown(() => provider.close());
  const reason = new Error('gone');
  const signal = AbortSignal.abort(reason);
  await t.rejects(provider.search({ text: 'απόφαση', ...page }, { signal }), reason);
  await t.rejects(provider.list({ source: 'diavgeia', ...page }, { signal }), reason);
  t.equal((await provider.search({ text: 'απόφαση', ...page })).total, 0, 'without one it answers');
});

t.test('when a process has nothing else to do, then a pending read keeps it alive and the idle pool lets it exit', async (t) => {
  const file = path.join(tempDir(t), 'index.db');
  // Fails by timing out if an idle reader kept the process alive, and prints nothing if a busy one did not.
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'test/helpers/read-pool-child.ts', file], { cwd: REPO_ROOT, timeout: 60_000 });
  t.equal(stdout, 'total 1\n');
});

t.test('when another connection holds the write lock, then a reader thread still opens and answers', async (t) => {
  const { provider, file } = await pooled(t, 1);
  await provider.upsert([doc('diavgeia:A', 'απόφαση ανάθεσης')]);
  // A long write elsewhere (a reindex's FTS5 optimize, say). Opening needs no write unless the file
  // has something to set up or prune, so readers are not stuck behind it (busy_timeout, then a 503).
  const writer = new Database(file);
  writer.prepare('BEGIN IMMEDIATE').run();
  t.teardown(() => writer.close());
  t.equal((await provider.search({ text: 'απόφαση', ...page })).total, 1, 'a reader thread started now');
  const another = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm' });
  t.teardown(() => another.close());
  t.equal((await another.search({ text: 'απόφαση', ...page })).total, 1, 'and a new in-thread reader');
  writer.prepare('ROLLBACK').run();
});

t.test('when the pool is closed, then a read is refused with 503', async (t) => {
  const { provider } = await pooled(t, 1);
  await provider.search({ text: 'απόφαση', ...page });
  await provider.close();
  await t.rejects(provider.search({ text: 'απόφαση', ...page }), EngineUnavailableError);
});
