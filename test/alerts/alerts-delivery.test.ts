// The watcher and the sender against real loopback peers (an SMTP server, a webhook receiver): what
// matches is delivered once per channel, signed, retried after a 503 on the same delivery; what does
// not match, deactivated profiles and acknowledged events get nothing.
import t, { type Test } from 'tap';
import type { NormalizedDocument } from '../../index-mappings/document.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { startAlerts } from '../../api/alerts/service.js';
import { Watcher } from '../../api/alerts/watcher.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startSmtp, startWebhookReceiver, until } from '../helpers/alert-peers.js';
import { feedDocument } from '../helpers/alert-profile.js';

/** Stores documents as an ingest in another process does: through a connection of its own. */
function store(app: TestApp, docs: NormalizedDocument[]): void {
  const documents = new DocumentStore(DocumentStore.pathIn(app.dataDir));
  documents.save(docs.map((d) => ({ doc: d, content_hash: d.source_id, original: null, indexed_at: '2026-06-12T00:00:00Z' })));
  documents.close();
}

async function setup(t: Test) {
  const smtp = await startSmtp(t);
  const hook = await startWebhookReceiver(t);
  const env = { PDI_WEBHOOK_ALLOW_PRIVATE: '1', SMTP_URL: smtp.url };
  const app = await startTestApp(t, { env });
  const config = loadConfig({ PDI_DATA_DIR: app.dataDir, LOG_LEVEL: 'silent', ...env });
  return { smtp, hook, app, config };
}

t.test('when a stored document matches a profile, then one email and one signed webhook go out, and a 503 is retried on the same delivery', async (t) => {
  const { smtp, hook, app, config } = await setup(t);
  const key = app.key('pro');
  const alerts = startAlerts(config, app.db, app.documents, createLogger('silent'));
  t.teardown(() => alerts.stop());
  await alerts.check(); // the watermark is set before the profile exists
  const created = await app.request('/v1/alerts/profiles', {
    key,
    method: 'POST',
    body: {
      name: 'Fire safety',
      channels: ['email', 'webhook'],
      notify_email: 'ops@example.com',
      webhook_url: hook.url,
      filters: { keywords: ['ΠΥΡΟΣΒΕΣΤΗΡΩΝ'], sources: ['e_procurement'], min_value: 1000 },
    },
  });
  t.equal(created.status, 201);
  hook.secret = created.body.webhook_secret;
  const other = await app.request('/v1/alerts/profiles', {
    key,
    method: 'POST',
    body: { name: 'Roads', channels: ['email'], notify_email: 'roads@example.com', filters: { keywords: ['οδοποιία'] } },
  });
  const paused = await app.request('/v1/alerts/profiles', {
    key,
    method: 'POST',
    body: { name: 'Paused', channels: ['email'], notify_email: 'paused@example.com' },
  });
  await app.request(`/v1/alerts/profiles/${paused.body.id}`, { key, method: 'DELETE' });
  hook.statuses.push(503);

  store(app, [feedDocument('26SYMV000000001'), feedDocument('26SYMV000000002', { title: 'Προμήθεια χαρτιού', summary: 'χαρτί', content: 'χαρτί' })]);
  await alerts.check();

  const [mail] = await smtp.received(1);
  t.same(mail!.to && 'value' in mail!.to ? mail!.to.value.map((a) => a.address) : [], ['ops@example.com']);
  t.match(mail!.subject, /Συντήρηση Πυροσβεστήρων/);
  t.match(mail!.text, /kimdis:26SYMV000000001/, 'the text names the document');
  t.match(mail!.text, /Title: Συντήρηση Πυροσβεστήρων Σχολικών Κτιρίων/);
  t.match(mail!.text, /Πηγή \/ Source: ΚΗΜΔΗΣ — Central Electronic Registry of Public Contracts/);
  t.match(mail!.text, /5\.285,20/, 'the amount');
  t.match(mail!.html, /<a href="https:\/\/cerpp\.eprocurement\.gov\.gr\/26SYMV000000001">/);

  const [first, second] = await hook.answered(2);
  t.equal(first!.status, 503);
  t.ok(first!.verified && second!.verified, 'both attempts are signed with the secret');
  t.equal(first!.json.delivery_id, second!.json.delivery_id, 'the retry is the same delivery');
  t.match(second!.json, { type: 'alert.match', profile_id: created.body.id, document: { source_id: 'kimdis:26SYMV000000001', amount: { value: 5285.2 } } });

  // Waits on the store, not the API: a poll every 50 ms through the API would spend the key's daily quota.
  const pending = app.db.prepare("SELECT count(*) FROM alert_deliveries WHERE alert_profile_id = ? AND delivery_status != 'sent'").pluck();
  await until(() => pending.get(created.body.id) === 0, 'both deliveries sent');
  const listed = await app.request(`/v1/alerts/deliveries?profile_id=${created.body.id}`, { key });
  t.equal(listed.status, 200);
  const deliveries = listed.body;
  t.equal(deliveries.total, 2, 'one per channel');
  const webhook = deliveries.items.find((d: { channel: string }) => d.channel === 'webhook');
  t.match(webhook, { id: first!.json.delivery_id, attempts: 2, last_error: 'the receiver answered 503', document_source_id: 'kimdis:26SYMV000000001' });
  t.match(
    deliveries.items.find((d: { channel: string }) => d.channel === 'email'),
    { attempts: 1, last_error: null },
  );
  t.equal((await app.request(`/v1/alerts/deliveries?profile_id=${other.body.id}`, { key })).body.total, 0, 'the non-matching profile got nothing');
  t.equal((await app.request(`/v1/alerts/deliveries?profile_id=${paused.body.id}`, { key })).body.total, 0, 'the deactivated profile got nothing');

  await alerts.check();
  t.equal((await app.request('/v1/alerts/deliveries', { key })).body.total, 2, 'a second pass repeats nothing');
  t.equal(smtp.messages.length, 1);
});

t.test(
  "when a monitored entity appears in a document, then an event is raised once and goes out on the organization's channels, unless acknowledged first",
  async (t) => {
    const { smtp, hook, app, config } = await setup(t);
    const key = app.key('enterprise');
    const profile = await app.request('/v1/alerts/profiles', {
      key,
      method: 'POST',
      body: { name: 'All', channels: ['webhook'], webhook_url: hook.url, filters: { sources: ['ted'] } },
    });
    hook.secret = profile.body.webhook_secret;
    const entity = await app.request('/v1/monitor/entities', {
      key,
      method: 'POST',
      body: { entity_identifier: 'Δήμος Δοκιμής', identifier_type: 'name', label: 'Δοκιμή' },
    });
    const byAfm = await app.request('/v1/monitor/entities', { key, method: 'POST', body: { entity_identifier: '090252840', identifier_type: 'afm' } });
    // The watcher alone first: the events and their deliveries are recorded, nothing is sent yet.
    const watcher = new Watcher({ db: app.db, documents: app.documents, log: createLogger('silent') });
    watcher.watermark();
    store(app, [
      feedDocument('26SYMV000000003', { entities: { afm: [], ada: [], names: ['ΔΗΜΟΣ ΔΟΚΙΜΗΣ'] } }),
      feedDocument('26SYMV000000004', { entities: { afm: ['090252840'], ada: [], names: [] }, title: 'Άλλο' }),
    ]);
    await watcher.pass();
    const events = (await app.request('/v1/monitor/events', { key })).body;
    t.equal(events.total, 2);
    const byName = events.items.find((e: { monitored_entity_id: string }) => e.monitored_entity_id === entity.body.id);
    t.match(byName, { event_type: 'contract_award', document_source_id: 'kimdis:26SYMV000000003', acknowledged_at: null });
    t.match(byName.summary, /^Δοκιμή: Συντήρηση/);
    t.equal((await app.request('/v1/alerts/deliveries', { key })).body.total, 2, 'one webhook delivery per event');
    const ack = await app.request(`/v1/monitor/events/${byName.id}/acknowledge`, { key, method: 'POST' });
    t.equal(ack.status, 200);

    const alerts = startAlerts(config, app.db, app.documents, createLogger('silent'));
    t.teardown(() => alerts.stop());
    const [sent] = await hook.answered(1);
    t.ok(sent!.verified);
    t.match(sent!.json, {
      type: 'monitor.event',
      profile_id: profile.body.id,
      event: { monitored_entity_id: byAfm.body.id, event_type: 'contract_award' },
      document: { source_id: 'kimdis:26SYMV000000004' },
    });
    await until(
      async () => (await app.request('/v1/alerts/deliveries', { key })).body.items.every((d: { delivery_status: string }) => d.delivery_status === 'sent'),
      'the event delivery sent',
    );
    const deliveries = (await app.request('/v1/alerts/deliveries', { key })).body;
    t.equal(deliveries.total, 1, "the acknowledged event's delivery is gone, never sent");
    t.notOk(
      hook.requests.some((r) => r.json.event?.id === byName.id),
      'the acknowledged event never reached the receiver',
    );
    const listed = (await app.request('/v1/monitor/entities', { key })).body.items;
    t.ok(
      listed.every((e: { last_alert_at: string | null }) => e.last_alert_at !== null),
      'last_alert_at is set',
    );
    await alerts.check();
    t.equal((await app.request('/v1/monitor/events', { key })).body.total, 2, 'one event per entity and document');
    t.equal(smtp.messages.length, 0, 'the profile has no email channel');
  },
);

t.test('when profiles and monitored entities change between passes, then the next pass matches by them as they are now', async (t) => {
  const { app } = await setup(t);
  const key = app.key('enterprise');
  const watcher = new Watcher({ db: app.db, documents: app.documents, log: createLogger('silent') });
  watcher.watermark();
  // One pass first, so that the watcher holds a match index of the profiles and entities before the changes.
  const before = await app.request('/v1/alerts/profiles', {
    key,
    method: 'POST',
    body: { name: 'Paper', channels: ['email'], notify_email: 'a@example.com', filters: { keywords: ['χαρτιού'] } },
  });
  store(app, [feedDocument('26SYMV000000010', { title: 'Προμήθεια χαρτιού' })]);
  await watcher.pass();
  const listed = async (profileId: string) => (await app.request(`/v1/alerts/deliveries?profile_id=${profileId}`, { key })).body.total as number;
  t.equal(await listed(before.body.id), 1);

  const added = await app.request('/v1/alerts/profiles', {
    key,
    method: 'POST',
    body: { name: 'Fire', channels: ['email'], notify_email: 'b@example.com', filters: { keywords: ['πυροσβεστήρων'] } },
  });
  await app.request(`/v1/alerts/profiles/${before.body.id}`, { key, method: 'DELETE' });
  const entity = await app.request('/v1/monitor/entities', { key, method: 'POST', body: { entity_identifier: '090252840', identifier_type: 'afm' } });
  store(app, [feedDocument('26SYMV000000011', { title: 'Προμήθεια χαρτιού πυροσβεστήρων' })]);
  await watcher.pass();
  t.equal(await listed(added.body.id), 2, 'a profile made since the last pass hears of the document and of the event');
  t.equal(await listed(before.body.id), 1, 'a profile deleted since then hears of nothing more');
  const events = (await app.request('/v1/monitor/events', { key })).body;
  t.match(
    events.items,
    [{ monitored_entity_id: entity.body.id, document_source_id: 'kimdis:26SYMV000000011' }],
    'an entity monitored since then raises its event',
  );

  await app.request(`/v1/monitor/entities/${entity.body.id}`, { key, method: 'DELETE' });
  store(app, [feedDocument('26SYMV000000012', { title: 'Άλλο' })]);
  await watcher.pass();
  t.equal((await app.request('/v1/monitor/events', { key })).body.total, 1, 'an entity no longer monitored raises nothing');
});

t.test('when two profiles share a webhook URL and two an email address, then a monitor event goes once to each, and each profile lists it', async (t) => {
  const { smtp, hook, app, config } = await setup(t);
  const key = app.key('enterprise');
  const body = (name: string, extra: Record<string, unknown>) => ({ name, filters: { sources: ['ted'] }, ...extra });
  const hookA = await app.request('/v1/alerts/profiles', { key, method: 'POST', body: body('hook a', { channels: ['webhook'], webhook_url: hook.url }) });
  const hookB = await app.request('/v1/alerts/profiles', {
    key,
    method: 'POST',
    body: body('hook b', { channels: ['webhook', 'email'], webhook_url: hook.url, notify_email: 'Ops@Example.com' }),
  });
  const mailC = await app.request('/v1/alerts/profiles', {
    key,
    method: 'POST',
    body: body('mail c', { channels: ['email'], notify_email: 'ops@example.com' }),
  });
  const mailD = await app.request('/v1/alerts/profiles', {
    key,
    method: 'POST',
    body: body('mail d', { channels: ['email'], notify_email: 'other@example.com' }),
  });
  hook.secret = hookA.body.webhook_secret;
  await app.request('/v1/monitor/entities', { key, method: 'POST', body: { entity_identifier: '090252840', identifier_type: 'afm' } });
  const alerts = startAlerts(config, app.db, app.documents, createLogger('silent'));
  t.teardown(() => alerts.stop());
  await alerts.check();
  store(app, [feedDocument('26SYMV000000005')]);
  await alerts.check();

  const deliveriesOf = async (p: { body: { id: string } }) =>
    (await app.request(`/v1/alerts/deliveries?profile_id=${p.body.id}`, { key })).body.items as {
      delivery_status: string;
      channel: string;
      monitor_event_id: string | null;
    }[];
  await until(async () => {
    for (const p of [hookA, hookB, mailC, mailD]) if (!(await deliveriesOf(p)).every((d) => d.delivery_status === 'sent')) return false;
    return true;
  }, 'every delivery sent');
  t.equal(hook.requests.length, 1, 'one webhook request for the shared URL');
  t.ok(hook.requests[0]!.verified, 'signed with the secret of the profile it names');
  t.match(hook.requests[0]!.json, { type: 'monitor.event', profile_id: hookA.body.id });
  await smtp.received(2);
  const to = smtp.messages.flatMap((m) => (m.to && 'value' in m.to ? m.to.value.map((a) => a.address!.toLowerCase()) : [])).sort();
  t.same(to, ['ops@example.com', 'other@example.com'], 'one email per distinct address');
  for (const [p, channels] of [
    [hookA, ['webhook']],
    [hookB, ['email', 'webhook']],
    [mailC, ['email']],
    [mailD, ['email']],
  ] as const) {
    const items = await deliveriesOf(p);
    t.same(items.map((d) => d.channel).sort(), channels, `${p.body.name} lists the event on each of its channels`);
    t.ok(
      items.every((d) => d.monitor_event_id !== null && d.delivery_status === 'sent'),
      `${p.body.name}: sent`,
    );
  }
});

t.test(
  'when the profile whose delivery stands for a shared address is deactivated before the send, then the event still goes once, as the other profile',
  async (t) => {
    const { hook, app, config } = await setup(t);
    const key = app.key('enterprise');
    const create = (name: string) =>
      app.request('/v1/alerts/profiles', { key, method: 'POST', body: { name, channels: ['webhook'], webhook_url: hook.url, filters: { sources: ['ted'] } } });
    const profiles = [await create('first'), await create('second')];
    await app.request('/v1/monitor/entities', { key, method: 'POST', body: { entity_identifier: '090252840', identifier_type: 'afm' } });
    const watcher = new Watcher({ db: app.db, documents: app.documents, log: createLogger('silent') });
    watcher.watermark();
    store(app, [feedDocument('26SYMV000000006')]);
    await watcher.pass();
    // The delivery recorded to be sent; the other is recorded `sent_with` it.
    const standing = app.db.prepare('SELECT alert_profile_id FROM alert_deliveries WHERE sent_with IS NULL').pluck().all() as string[];
    t.equal(standing.length, 1, 'one delivery to send for the two profiles');
    const gone = profiles.find((p) => p.body.id === standing[0])!;
    const kept = profiles.find((p) => p !== gone)!;
    t.equal((await app.request(`/v1/alerts/profiles/${gone.body.id}`, { key, method: 'PUT', body: { is_active: false } })).status, 200);
    hook.secret = kept.body.webhook_secret;

    const alerts = startAlerts(config, app.db, app.documents, createLogger('silent'));
    t.teardown(() => alerts.stop());
    const statusOf = async (p: { body: { id: string } }) =>
      ((await app.request(`/v1/alerts/deliveries?profile_id=${p.body.id}`, { key })).body.items as { delivery_status: string }[]).map((d) => d.delivery_status);
    await until(async () => (await statusOf(kept)).join() === 'sent', 'the kept profile lists the event as sent');
    t.equal(hook.requests.length, 1, 'one request to the shared URL');
    t.match(hook.requests[0]!.json, { type: 'monitor.event', profile_id: kept.body.id });
    t.ok(hook.requests[0]!.verified, "signed with the kept profile's secret");
    t.same(await statusOf(gone), ['failed'], 'the deactivated profile lists its delivery as not sent');
  },
);
