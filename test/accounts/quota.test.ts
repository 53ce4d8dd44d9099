import { Database } from '../../lib/sqlite.js';
import t from 'tap';
import { accountsDbPath } from '../../api/db/database.js';
import { UsageCounter } from '../../api/db/usage.js';
import { startTestApp } from '../helpers/app.js';

t.test('when 30 concurrent requests use a fresh Free key, then exactly 5 succeed and 25 get 429', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('free');
  const responses = await Promise.all(Array.from({ length: 30 }, () => app.request('/v1/sources', { key })));
  const ok = responses.filter((r) => r.status === 200);
  const limited = responses.filter((r) => r.status === 429);
  t.equal(ok.length, 5);
  t.equal(limited.length, 25);
  t.same(ok.map((r) => r.headers.get('x-ratelimit-remaining')).sort(), ['0', '1', '2', '3', '4']);
  for (const r of limited) {
    t.match(r.body, { detail: /^Daily quota exceeded\. Resets at \d{4}-\d\d-\d\dT00:00:00Z$/ });
    t.equal(r.headers.get('x-ratelimit-remaining'), '0');
    t.equal(r.headers.get('x-ratelimit-limit'), '5');
    t.equal(r.headers.get('x-tier'), 'free');
    t.ok(Number(r.headers.get('retry-after')) > 0);
  }
});

t.test('when the UTC day ends, then the quota resets at midnight', async (t) => {
  let now = new Date('2026-03-22T23:59:58Z');
  const app = await startTestApp(t, { clock: () => now });
  const key = app.key('free');
  for (let i = 0; i < 5; i++) t.equal((await app.request('/v1/usage', { key })).status, 200);
  const limited = await app.request('/v1/usage', { key });
  t.equal(limited.status, 429);
  t.same(limited.body, { detail: 'Daily quota exceeded. Resets at 2026-03-23T00:00:00Z' });
  t.equal(limited.headers.get('retry-after'), '2');
  t.equal(limited.headers.get('x-ratelimit-reset'), String(Date.parse('2026-03-23T00:00:00Z') / 1000));

  now = new Date('2026-03-23T00:00:00Z');
  const fresh = await app.request('/v1/usage', { key });
  t.equal(fresh.status, 200);
  t.match(fresh.body, { tier: 'free', daily_quota: 5, daily_used: 1, daily_remaining: 4, reset_at: '2026-03-24T00:00:00Z' });
});

t.test('when requests fail with 403 or 404, then they count; a 429 and /v1/models do not', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('free');
  t.equal((await app.request('/v1/search?q=x', { key })).status, 403);
  t.equal((await app.request('/v1/nothing-here', { key })).status, 404);
  t.equal((await app.request('/v1/models', { key })).status, 200);
  const usage = await app.request('/v1/usage', { key });
  t.match(usage.body, { daily_used: 3, daily_remaining: 2 });
  await app.request('/v1/usage', { key });
  await app.request('/v1/usage', { key });
  t.equal((await app.request('/v1/usage', { key })).status, 429);
  t.equal((await app.request('/v1/usage', { key })).status, 429);
  t.equal(app.app.context.usage.used(app.app.context.keys.list()[0].id, new Date().toISOString().slice(0, 10)), 5);
});

t.test("when the server restarts, then the day's count is kept", async (t) => {
  const first = await startTestApp(t);
  const key = first.key('free');
  for (let i = 0; i < 3; i++) await first.request('/v1/usage', { key });
  first.app.close(); // flushes the write-behind counts
  const second = await startTestApp(t, { dataDir: first.dataDir });
  const usage = await second.request('/v1/usage', { key });
  t.match(usage.body, { daily_used: 4 });
});

t.test('when another process holds the account database write lock, then requests are answered and the counts are written once it is released', async (t) => {
  let now = new Date('2026-03-22T23:59:50Z');
  const app = await startTestApp(t, { clock: () => now });
  const key = app.key('pro');
  const keyId = app.app.context.keys.list()[0].id;
  t.equal((await app.request('/v1/usage', { key })).status, 200);
  const other = new Database(accountsDbPath(app.dataDir));
  t.teardown(() => other.close());
  const rows = () => other.prepare('SELECT day, count FROM daily_usage WHERE key_id = ? ORDER BY day').all(keyId);
  other.exec('BEGIN EXCLUSIVE');

  // The write behind fails and says so; before, it threw (from its timer: the server died).
  t.equal(app.app.context.usage.flush(), false, 'the write fails without throwing');
  t.equal((await app.request('/v1/usage', { key })).status, 200, 'requests are answered meanwhile');
  // The day ends while the lock is held: yesterday's count cannot be written then, and is kept.
  now = new Date('2026-03-23T00:00:05Z');
  const today = await app.request('/v1/usage', { key });
  t.match(today.body, { daily_used: 1 }, 'the quota restarts at midnight');
  t.equal(app.app.context.usage.flush(), false);

  other.exec('COMMIT');
  t.equal(app.app.context.usage.flush(), true, 'written once the lock is released');
  t.same(
    rows(),
    [
      { day: '2026-03-22', count: 2 },
      { day: '2026-03-23', count: 1 },
    ],
    'no count lost, of either day',
  );
});

t.test('when the event loop is too busy for the write timer to fire, then a count made after the interval writes the counts itself', async (t) => {
  const app = await startTestApp(t);
  app.key('pro');
  const keyId = app.app.context.keys.list()[0].id;
  const usage = new UsageCounter(app.db, 50);
  t.teardown(() => usage.close());
  const stored = () => app.db.prepare('SELECT count FROM daily_usage WHERE key_id = ? AND day = ?').pluck().get(keyId, '2026-03-22');
  usage.consume(keyId, '2026-03-22', 100);
  // A busy event loop, as under thousands of requests at once: the interval's timer cannot run.
  const until = performance.now() + 60;
  while (performance.now() < until);
  usage.consume(keyId, '2026-03-22', 100);
  t.equal(stored(), 2, 'written without the timer (a crash now forgets nothing)');
});
