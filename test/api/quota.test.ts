import t from 'tap';
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

t.test('when the server restarts, then the day\'s count is kept', async (t) => {
  const first = await startTestApp(t);
  const key = first.key('free');
  for (let i = 0; i < 3; i++) await first.request('/v1/usage', { key });
  first.app.close(); // flushes the write-behind counts
  const second = await startTestApp(t, { dataDir: first.dataDir });
  const usage = await second.request('/v1/usage', { key });
  t.match(usage.body, { daily_used: 4 });
});
