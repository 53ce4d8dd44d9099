// Monitored entities and monitor events: create, 409, list, soft
// delete, events with their filters, acknowledgement and organization scoping. Events are written
// as the watcher writes them (test/alerts/alerts-delivery.test.ts raises them from documents).
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { DROP_PENDING_SQL } from '../../api/monitoring/store.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

function addEvent(app: TestApp, entityId: string, type: string, detectedAt: string, sourceId = `diavgeia:${randomUUID()}`): string {
  const id = randomUUID();
  const org = app.db.prepare('SELECT org_id FROM monitored_entities WHERE id = ?').pluck().get(entityId);
  app.db
    .prepare(`INSERT INTO monitor_events (id, org_id, monitored_entity_id, document_source_id, event_type, summary, detected_at)
    VALUES (?, ?, ?, ?, ?, 'summary', ?)`)
    .run(id, org, entityId, sourceId, type, detectedAt);
  return id;
}

t.test('when an entity is monitored, then 201 Created as every create; twice, then 409; after its soft delete it can be monitored again', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('enterprise');
  const res = await app.request('/v1/monitor/entities', {
    key,
    method: 'POST',
    body: { entity_identifier: '090252840', identifier_type: 'afm', label: 'Acme' },
  });
  t.equal(res.status, 201, res.text);
  t.match(res.body, { entity_identifier: '090252840', identifier_type: 'afm', label: 'Acme', is_active: true });
  const again = await app.request('/v1/monitor/entities', { key, method: 'POST', body: { entity_identifier: 'EL 090 252 840', identifier_type: 'afm' } });
  t.equal(again.status, 409, 'the same AFM written otherwise is the same entity');
  t.match(again.body.detail, /already monitored/);
  const name = await app.request('/v1/monitor/entities', { key, method: 'POST', body: { entity_identifier: 'Δήμος Αθηναίων', identifier_type: 'name' } });
  t.equal(name.status, 201);
  t.equal(
    (await app.request('/v1/monitor/entities', { key, method: 'POST', body: { entity_identifier: 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', identifier_type: 'name' } })).status,
    409,
    'names fold case and accents',
  );
  const other = app.key('enterprise', 'Globex');
  t.equal(
    (await app.request('/v1/monitor/entities', { key: other, method: 'POST', body: { entity_identifier: '090252840', identifier_type: 'afm' } })).status,
    201,
    'another organization monitors it on its own',
  );
  const deleted = await app.request(`/v1/monitor/entities/${res.body.id}`, { key, method: 'DELETE' });
  t.same(deleted.body, { status: 'deactivated', id: res.body.id });
  t.equal((await app.request('/v1/monitor/entities', { key, method: 'POST', body: { entity_identifier: '090252840', identifier_type: 'afm' } })).status, 201);
});

t.test('when an entity body is invalid, then 422 names the member', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('enterprise');
  const cases: [unknown, RegExp][] = [
    [{ identifier_type: 'afm' }, /^entity_identifier is required/],
    [{ entity_identifier: '090252840' }, /^identifier_type is required/],
    [{ entity_identifier: '090252840', identifier_type: 'vat' }, /^identifier_type is required: one of afm, name, ada/],
    [{ entity_identifier: '12345', identifier_type: 'afm' }, /9-digit AFM/],
    [{ entity_identifier: 'nope', identifier_type: 'ada' }, /decision id/],
    [{ entity_identifier: '...', identifier_type: 'name' }, /letter or digit/],
    [{ entity_identifier: '090252840', identifier_type: 'afm', label: 5 }, /^label must be a string/],
  ];
  for (const [body, detail] of cases) {
    const res = await app.request('/v1/monitor/entities', { key, method: 'POST', body });
    t.equal(res.status, 422, JSON.stringify(body));
    t.match(res.body.detail, detail);
  }
});

t.test('when an entity or its label holds control characters, then 422 as for a report, and nothing is monitored', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('enterprise');
  const forged = 'ΔΗΜΟΣ\u001b[31mΧ\r\nY';
  const cases: [unknown, string][] = [
    [{ entity_identifier: forged, identifier_type: 'name' }, 'entity_identifier must not contain control characters'],
    [{ entity_identifier: 'ΔΗΜΟΣ\u0085Χ', identifier_type: 'name' }, 'entity_identifier must not contain control characters'],
    [{ entity_identifier: 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', identifier_type: 'name', label: 'Acme\r\nBcc: x@example.com' }, 'label must not contain control characters'],
  ];
  for (const [body, detail] of cases) {
    const res = await app.request('/v1/monitor/entities', { key, method: 'POST', body });
    t.equal(res.status, 422, JSON.stringify(body));
    t.same(res.body, { detail });
  }
  const report = await app.request('/v1/reports', { key, method: 'POST', body: { entity_identifier: forged, identifier_type: 'name' } });
  t.same([report.status, report.body], [422, { detail: 'entity_identifier must not contain control characters' }], 'the same words as a report');
  t.equal((await app.request('/v1/monitor/entities', { key })).body.total, 0);
});

t.test('when entities are listed, then each shows last_checked_at and last_alert_at', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('enterprise');
  const e = (await app.request('/v1/monitor/entities', { key, method: 'POST', body: { entity_identifier: '090252840', identifier_type: 'afm' } })).body;
  const list = await app.request('/v1/monitor/entities', { key });
  t.match(list.body, { total: 1, limit: 20, offset: 0 });
  t.match(list.body.items[0], { id: e.id, last_checked_at: e.created_at, last_alert_at: null });
  app.db.prepare("UPDATE monitored_entities SET last_alert_at = '2030-01-01T00:00:00.000Z' WHERE id = ?").run(e.id);
  app.db.prepare("INSERT INTO watcher_state (name, seq, checked_at) VALUES ('documents', 0, '2030-01-02T00:00:00.000Z')").run();
  t.match((await app.request('/v1/monitor/entities', { key })).body.items[0], {
    last_checked_at: '2030-01-02T00:00:00.000Z',
    last_alert_at: '2030-01-01T00:00:00.000Z',
  });
});

t.test('when events are listed, then entity_id, event_type, since and paging filter them, newest first', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('enterprise');
  const a = (await app.request('/v1/monitor/entities', { key, method: 'POST', body: { entity_identifier: '090252840', identifier_type: 'afm' } })).body.id;
  const b = (await app.request('/v1/monitor/entities', { key, method: 'POST', body: { entity_identifier: 'Acme', identifier_type: 'name' } })).body.id;
  addEvent(app, a, 'contract_award', '2026-01-01T00:00:00.000Z');
  addEvent(app, a, 'new_decision', '2026-02-01T00:00:00.000Z');
  addEvent(app, b, 'new_decision', '2026-03-01T00:00:00.000Z');
  const all = await app.request('/v1/monitor/events', { key });
  t.equal(all.body.total, 3);
  t.same(
    all.body.items.map((e: { detected_at: string }) => e.detected_at.slice(0, 7)),
    ['2026-03', '2026-02', '2026-01'],
  );
  t.match(all.body.items[0], { monitored_entity_id: b, event_type: 'new_decision', summary: 'summary', acknowledged_at: null });
  t.equal((await app.request(`/v1/monitor/events?entity_id=${a}`, { key })).body.total, 2);
  t.equal((await app.request('/v1/monitor/events?event_type=new_decision', { key })).body.total, 2);
  t.equal((await app.request('/v1/monitor/events?since=2026-01-15T00:00:00Z', { key })).body.total, 2);
  t.equal((await app.request('/v1/monitor/events?since=2026-02-01T02:00:00%2B03:00', { key })).body.total, 2, 'an offset is honoured');
  t.equal((await app.request('/v1/monitor/events?since=2026-01-15', { key })).body.total, 2, 'a date: after that day began');
  const page = await app.request('/v1/monitor/events?limit=1&offset=2', { key });
  t.match(page.body, { total: 3, limit: 1, offset: 2 });
  t.equal(page.body.items[0].event_type, 'contract_award');
  const bad = await app.request('/v1/monitor/events?since=2026-02-30', { key });
  t.match(bad.body.detail, /^since must be a date YYYY-MM-DD or a date-time/);
  for (const q of ['event_type=fire', 'since=yesterday', 'entity_id=42', 'limit=0']) {
    const res = await app.request(`/v1/monitor/events?${q}`, { key });
    t.equal(res.status, 422, q);
  }
});

t.test('when an event is acknowledged, then acknowledged_at is set once', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('enterprise');
  const entity = (await app.request('/v1/monitor/entities', { key, method: 'POST', body: { entity_identifier: '090252840', identifier_type: 'afm' } })).body.id;
  const event = addEvent(app, entity, 'other', '2026-01-01T00:00:00.000Z');
  const first = await app.request(`/v1/monitor/events/${event}/acknowledge`, { key, method: 'POST' });
  t.equal(first.status, 200);
  t.equal(first.body.id, event);
  t.match(first.body.acknowledged_at, /^\d{4}-\d{2}-\d{2}T/);
  const second = await app.request(`/v1/monitor/events/${event}/acknowledge`, { key, method: 'POST' });
  t.same(second.body, first.body, 'a second acknowledgement keeps the first time');
  t.equal((await app.request('/v1/monitor/events', { key })).body.items[0].acknowledged_at, first.body.acknowledged_at);
});

t.test(
  "when an acknowledged event's pending deliveries are dropped, then SQLite finds them through the event index, not a scan of every delivery",
  async (t) => {
    const app = await startTestApp(t);
    const plan = app.db.prepare(`EXPLAIN QUERY PLAN ${DROP_PENDING_SQL}`).all('e') as { detail: string }[];
    t.match(plan.map((p) => p.detail).join('; '), /USING INDEX alert_deliveries_by_event/);
  },
);

t.test('when another organization names an entity or event, then 404', async (t) => {
  const app = await startTestApp(t);
  const mine = app.key('enterprise', 'Acme');
  const theirs = app.key('enterprise', 'Globex');
  const entity = (await app.request('/v1/monitor/entities', { key: mine, method: 'POST', body: { entity_identifier: '090252840', identifier_type: 'afm' } }))
    .body.id;
  const event = addEvent(app, entity, 'other', '2026-01-01T00:00:00.000Z');
  t.equal((await app.request(`/v1/monitor/entities/${entity}`, { key: theirs, method: 'DELETE' })).status, 404);
  t.equal((await app.request(`/v1/monitor/events/${event}/acknowledge`, { key: theirs, method: 'POST' })).status, 404);
  t.equal((await app.request(`/v1/monitor/events?entity_id=${entity}`, { key: theirs })).status, 404);
  t.equal((await app.request('/v1/monitor/events', { key: theirs })).body.total, 0);
  t.equal((await app.request('/v1/monitor/entities', { key: theirs })).body.total, 0);
  t.equal((await app.request('/v1/monitor/events', { key: mine })).body.items[0].acknowledged_at, null, 'untouched');
  t.equal(
    (await app.request('/v1/monitor/entities', { key: mine, method: 'POST', body: { entity_identifier: '090252840', identifier_type: 'afm' } })).status,
    409,
    'still monitored',
  );
});

t.test("when a monitored entity's report is asked for, then a pending report of the entity is created for the organization", async (t) => {
  const app = await startTestApp(t);
  const key = app.key('enterprise', 'Acme');
  const entity = (await app.request('/v1/monitor/entities', { key, method: 'POST', body: { entity_identifier: '090252840', identifier_type: 'afm' } })).body;
  const res = await app.request(`/v1/monitor/entities/${entity.id}/report`, { key });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { entity_id: entity.id, entity_identifier: '090252840', status: 'pending' });
  const report = await app.request(`/v1/reports/${res.body.report_id}`, { key });
  t.equal(report.status, 200);
  t.match(report.body, { id: res.body.report_id, entity_identifier: '090252840', identifier_type: 'afm' });
  const other = app.key('enterprise', 'Globex');
  t.equal((await app.request(`/v1/monitor/entities/${entity.id}/report`, { key: other })).status, 404);
  t.equal((await app.request(`/v1/reports/${res.body.report_id}`, { key: other })).status, 404);
});
