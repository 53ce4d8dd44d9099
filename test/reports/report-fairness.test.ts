// Reports never hold the API: report_json and the PDF are made on a thread of their own, so /healthz is
// answered while a large report renders, and organizations take turns in the report queue.
import t from 'tap';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { embeddedIndexPath } from '../../lib/search/index.js';
import { request, startTestApp, tempDir } from '../helpers/app.js';
import { BUYER, contractDoc, ingestDocs } from '../helpers/report-docs.js';

/** As many documents as the demo corpus holds for ΔΗΜΟΣ. */
const LARGE = 1_260;

t.test('when a report of 1,260 documents has read its last document, then /healthz is answered before the report is written', async (t) => {
  const dataDir = tempDir(t);
  const engine = new EmbeddedProvider({ file: embeddedIndexPath(dataDir), dimension: 384, embeddingModel: 'pdi/hashing-384' });
  t.teardown(() => engine.close());
  // The engine as the app sees it, calling `afterLastRead` once the report has read its last document:
  // then only building report_json and the PDF remain, which held the event loop for seconds.
  let reads = 0;
  let afterLastRead = () => {};
  const search = new Proxy(engine, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (prop === 'get') {
        return async (...args: Parameters<EmbeddedProvider['get']>) => {
          const doc = await target.get(...args);
          if (++reads === LARGE) afterLastRead();
          return doc;
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const app = await startTestApp(t, { dataDir, search });
  await ingestDocs(
    app.documents,
    engine,
    Array.from({ length: LARGE }, (_, i) => contractDoc(`24SYMV${String(i).padStart(9, '0')}`, { value: 1_000 + i })),
  );
  const reportStatus = () => app.db.prepare('SELECT status FROM reports').pluck().get();
  // Sent the moment the last document is read, and answered by the same event loop the report runs on.
  const healthz = new Promise<{ status: number; report: unknown }>((resolve) => {
    afterLastRead = () => void request(app.url, '/healthz').then((res) => resolve({ status: res.status, report: reportStatus() }));
  });
  const created = await app.request('/v1/reports', { key: app.key('pro'), method: 'POST', body: { entity_identifier: BUYER.afm, identifier_type: 'afm' } });
  t.equal(created.status, 201);
  t.same(await healthz, { status: 200, report: 'pending' }, '/healthz answered while the report was being made');
  await app.app.jobs.idle();
  const done = await app.request(`/v1/reports/${created.body.id}`, { key: app.key('pro') });
  t.equal(done.body.status, 'completed');
  t.equal(JSON.parse(done.body.report_json).documents.covered, LARGE);
});

t.test("when one organization has six reports queued and another one, then the other's runs second, not seventh", async (t) => {
  const app = await startTestApp(t, { holdJobs: true, env: { PDI_REPORT_CONCURRENCY: '1' } });
  await ingestDocs(app.documents, app.search, [contractDoc('24SYMV000000001', { value: 1_000 })]);
  const busy = app.key('pro', 'Busy Ltd');
  const other = app.key('pro', 'Other SA');
  const body = { entity_identifier: BUYER.afm, identifier_type: 'afm' };
  for (let i = 0; i < 6; i++) t.equal((await app.request('/v1/reports', { key: busy, method: 'POST', body })).status, 201);
  const mine = (await app.request('/v1/reports', { key: other, method: 'POST', body })).body.id as string;
  app.app.jobs.start();
  const completed = () => app.db.prepare("SELECT count(*) FROM reports WHERE status = 'completed'").pluck().get() as number;
  while (app.app.context.reportStore.byId(mine)!.status === 'pending') await new Promise((r) => setTimeout(r, 20));
  t.equal(completed(), 2, 'one report of the busy organization ran before it, and no more');
  await app.app.jobs.idle();
  t.equal(completed(), 7);
});
