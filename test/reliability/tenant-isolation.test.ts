// The cross-organization matrix: organization A makes one of everything organization-scoped (a
// report, an alert profile and its deliveries, a monitored entity and its events); a key of
// organization B, of the same tier, then tries every route and method on them. 0 leaks, by status (404
// on A's resources, as the contract says: "A report of another organization is 404") and by body (no
// id, name, address or label of A's in any of B's responses; B's listings empty). Then A sees all of
// it unchanged, so every 404 was about B, not a missing resource. On both engines (reports read it).
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { BUYER } from '../helpers/report-docs.js';
import { ENGINES, seedCorpus, timedRequest } from '../helpers/reliability.js';

interface Probe {
  method: string;
  path: string;
  body?: unknown;
  expect: number | 'empty';
}

/** A's deliveries and events, written as the watcher writes them. */
function watcherRows(app: TestApp, orgId: string, profileId: string, entityId: string) {
  const event = randomUUID();
  const delivery = randomUUID();
  const doc = 'kimdis:25SYMV000000000';
  app.db
    .prepare(`INSERT INTO monitor_events (id, org_id, monitored_entity_id, document_source_id, event_type, summary, detected_at)
    VALUES (?, ?, ?, ?, 'contract_award', 'A-secret-summary', '2026-01-01T00:00:00.000Z')`)
    .run(event, orgId, entityId, doc);
  app.db
    .prepare('INSERT OR IGNORE INTO alert_documents (source_id, document) VALUES (?, ?)')
    .run(doc, JSON.stringify({ source_id: doc, title: 'A-secret-document' }));
  app.db
    .prepare(`INSERT INTO alert_deliveries (id, org_id, alert_profile_id, document_source_id, channel, delivery_status, attempts, next_attempt_at, created_at)
    VALUES (?, ?, ?, ?, 'email', 'sent', 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`)
    .run(delivery, orgId, profileId, doc);
  return { event, delivery };
}

for (const engine of ENGINES) {
  t.test(
    `${engine.name}: when organization B's key tries every organization-scoped route on organization A's resources, then nothing of A's leaks`,
    async (t) => {
      const app = await startTestApp(t, { search: await engine.open(t) });
      await seedCorpus(app);
      const a = app.key('enterprise', 'Org A');
      const b = app.key('enterprise', 'Org B');
      const post = (key: string, path: string, body: unknown) => app.request(path, { key, method: 'POST', body });

      const profile = (
        await post(a, '/v1/alerts/profiles', {
          name: 'A-secret-profile',
          channels: ['email'],
          notify_email: 'a-secret@example.org',
          filters: { keywords: ['καθαριότητα'] },
        })
      ).body;
      const report = (await post(a, '/v1/reports', { entity_identifier: BUYER.afm, identifier_type: 'afm' })).body;
      const entity = (await post(a, '/v1/monitor/entities', { entity_identifier: BUYER.afm, identifier_type: 'afm', label: 'A-secret-label' })).body;
      await app.app.jobs.idle();
      const orgA = app.db.prepare('SELECT org_id FROM alert_profiles WHERE id = ?').pluck().get(profile.id) as string;
      const { event, delivery } = watcherRows(app, orgA, profile.id, entity.id);
      const secrets = [profile.id, report.id, entity.id, event, delivery, 'A-secret', 'a-secret@example.org', profile.webhook_secret];
      t.ok(
        secrets.every((s) => typeof s === 'string' && s.length > 0),
        'A made one of everything',
      );

      const probes: Probe[] = [
        { method: 'GET', path: '/v1/reports', expect: 'empty' },
        { method: 'GET', path: `/v1/reports/${report.id}`, expect: 404 },
        { method: 'GET', path: `/v1/reports/${report.id.toUpperCase()}`, expect: 404 },
        { method: 'GET', path: `/v1/reports/${report.id}/pdf`, expect: 404 },
        { method: 'HEAD', path: `/v1/reports/${report.id}/pdf`, expect: 404 },
        { method: 'GET', path: '/v1/alerts/profiles', expect: 'empty' },
        { method: 'PUT', path: `/v1/alerts/profiles/${profile.id}`, body: { name: 'taken over', is_active: false }, expect: 404 },
        { method: 'PUT', path: `/v1/alerts/profiles/${profile.id}`, body: {}, expect: 404 },
        { method: 'DELETE', path: `/v1/alerts/profiles/${profile.id}`, expect: 404 },
        { method: 'GET', path: '/v1/alerts/deliveries', expect: 'empty' },
        { method: 'GET', path: `/v1/alerts/deliveries?profile_id=${profile.id}`, expect: 404 },
        { method: 'GET', path: '/v1/monitor/entities', expect: 'empty' },
        { method: 'DELETE', path: `/v1/monitor/entities/${entity.id}`, expect: 404 },
        { method: 'GET', path: `/v1/monitor/entities/${entity.id}/report`, expect: 404 },
        { method: 'GET', path: '/v1/monitor/events', expect: 'empty' },
        { method: 'GET', path: `/v1/monitor/events?entity_id=${entity.id}`, expect: 404 },
        { method: 'GET', path: '/v1/monitor/events?event_type=contract_award', expect: 'empty' },
        { method: 'POST', path: `/v1/monitor/events/${event}/acknowledge`, expect: 404 },
        // Ids of A's of the wrong kind, where B's routes take an id.
        { method: 'GET', path: `/v1/reports/${profile.id}`, expect: 404 },
        { method: 'POST', path: `/v1/monitor/events/${delivery}/acknowledge`, expect: 404 },
      ];
      let requests = 0;
      for (const p of probes) {
        const res = await timedRequest(app.url, p.path, { key: b, method: p.method, body: p.body });
        requests++;
        if (res === 'timeout') {
          t.fail(`${p.method} ${p.path}: no answer`);
          continue;
        }
        const label = `${p.method} ${p.path.replace(/[0-9a-f-]{36}/gi, '{A id}')}`;
        if (p.expect === 'empty')
          t.match({ status: res.status, items: res.body?.items, total: res.body?.total }, { status: 200, items: [], total: 0 }, `${label}: 200, empty`);
        else t.equal(res.status, p.expect, `${label}: ${p.expect}`);
        // B's own request is echoed in a 404's detail ("Report not found: <id>"): only what B did not send is a leak.
        const sent = `${p.path} ${JSON.stringify(p.body ?? '')}`.toLowerCase();
        const leaked = secrets.filter((s) => !sent.includes(s.toLowerCase()) && (res.text.includes(s) || res.headers.get('content-disposition')?.includes(s)));
        t.same(leaked, [], `${label}: no field of A's in the body`);
        if (p.expect === 404) {
          // The same route with an id nobody has: the same answer, so B cannot even tell A's exists.
          const nobody = randomUUID();
          const other = await timedRequest(app.url, p.path.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i, nobody), {
            key: b,
            method: p.method,
            body: p.body,
          });
          requests++;
          const shape = (r: Awaited<ReturnType<typeof timedRequest>>, id: string) =>
            r === 'timeout' ? 'timeout' : `${r.status} ${r.text.split(id).join('<id>')}`;
          const aId = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i.exec(p.path)![0];
          t.equal(shape(res, aId), shape(other, nobody), `${label}: answered as for an id nobody has`);
        }
      }
      // B monitoring the entity A monitors, or reporting on it, is its own business: no 409 that would tell.
      const mine = await post(b, '/v1/monitor/entities', { entity_identifier: BUYER.afm, identifier_type: 'afm' });
      t.equal(mine.status, 201, 'B monitors the entity A monitors without learning that A does');
      const bReport = await post(b, '/v1/reports', { entity_identifier: BUYER.afm, identifier_type: 'afm' });
      t.equal(bReport.status, 201);
      await app.app.jobs.idle();
      const bList = await app.request('/v1/reports', { key: b });
      t.same(
        bList.body.items.map((r: { id: string }) => r.id),
        [bReport.body.id],
        "B's list holds B's report alone",
      );
      requests += 3;

      // A still has everything, as it was.
      const own = async (path: string) => (await app.request(path, { key: a })).body;
      t.equal((await own(`/v1/reports/${report.id}`)).status, 'completed');
      t.equal((await app.request(`/v1/reports/${report.id}/pdf`, { key: a })).status, 200);
      t.match(await own('/v1/alerts/profiles'), { total: 1, items: [{ id: profile.id, name: 'A-secret-profile', is_active: true }] });
      t.match(await own('/v1/alerts/deliveries'), { total: 1, items: [{ id: delivery }] });
      t.match(await own('/v1/monitor/entities'), { total: 1, items: [{ id: entity.id, is_active: true }] });
      t.match(await own('/v1/monitor/events'), { total: 1, items: [{ id: event, acknowledged_at: null }] });
      t.equal((await own('/v1/reports')).total, 1, "A's list holds A's report alone");
      t.comment(`${engine.name}: ${probes.length} routes and methods tried with B's key, ${requests} requests, 0 leaks`);
    },
  );
}
