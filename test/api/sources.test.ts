// GET /v1/sources: a source's status follows whether its documents are served, with the latest run beside it.
import t from 'tap';
import { startTestApp } from '../helpers/app.js';

t.test('when a source has never been ingested, then it is unavailable with no last run', async (t) => {
  const app = await startTestApp(t);
  const res = await app.request('/v1/sources', { key: app.key('free') });
  t.equal(res.status, 200);
  const elstat = res.body.find((s: { name: string }) => s.name === 'elstat');
  t.match(elstat, { status: 'unavailable', last_ingest: null });
});

t.test('when the latest ingest of a served source failed, then it stays active with the failure beside it', async (t) => {
  const app = await startTestApp(t);
  const ok = app.ingestState.beginRun('diavgeia', 'ingest');
  app.ingestState.endRun('diavgeia', ok, { fetched: 3, new: 3, updated: 0, unchanged: 0, failed: 0 }, null);
  const bad = app.ingestState.beginRun('diavgeia', 'ingest');
  app.ingestState.endRun('diavgeia', bad, { fetched: 0, new: 0, updated: 0, unchanged: 0, failed: 0 }, 'upstream answered 503');
  const res = await app.request('/v1/sources', { key: app.key('free') });
  const diavgeia = res.body.find((s: { name: string }) => s.name === 'diavgeia');
  t.match(diavgeia, { status: 'active', last_ingest: { status: 'failed', error: 'upstream answered 503', finished_at: /^\d{4}-\d\d-\d\dT/ } });
});

t.test('when a source only ever failed, then it is unavailable with its failure', async (t) => {
  const app = await startTestApp(t);
  const bad = app.ingestState.beginRun('rae', 'ingest');
  app.ingestState.endRun('rae', bad, { fetched: 0, new: 0, updated: 0, unchanged: 0, failed: 0 }, 'fetch failed');
  const res = await app.request('/v1/sources', { key: app.key('free') });
  t.match(
    res.body.find((s: { name: string }) => s.name === 'rae'),
    { status: 'unavailable', last_ingest: { status: 'failed', error: 'fetch failed' } },
  );
});

t.test('when the sources are listed, then every source says country GR (TED included)', async (t) => {
  const app = await startTestApp(t);
  const res = await app.request('/v1/sources', { key: app.key('free') });
  t.same([...new Set(res.body.map((s: { country: string }) => s.country))], ['GR']);
});
