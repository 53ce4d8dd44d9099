// Deliveries under a slow tenant: a receiver that drips one byte at a time holds a send slot only until
// the attempt's deadline, and holds at most its organization's share of the slots meanwhile, so another
// organization's delivery goes out while it drips.
import t from 'tap';
import { DocumentStore } from '../../ingest/state/documents.js';
import { startAlerts } from '../../api/alerts/service.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { startTestApp } from '../helpers/app.js';
import { startDripReceiver, startWebhookReceiver, until } from '../helpers/alert-peers.js';
import { feedDocument } from '../helpers/alert-profile.js';

t.test(
  "when one organization's receiver drips its answer, then another organization's delivery is sent while it drips, and each dripping attempt ends at the deadline",
  async (t) => {
    const drip = await startDripReceiver(t, 200);
    const hook = await startWebhookReceiver(t);
    const env = { PDI_WEBHOOK_ALLOW_PRIVATE: '1', PDI_WEBHOOK_TIMEOUT: '5s' };
    const app = await startTestApp(t, { env });
    const config = loadConfig({ PDI_DATA_DIR: app.dataDir, LOG_LEVEL: 'silent', ...env });
    const slow = app.key('pro', 'slow-tenant');
    const other = app.key('pro', 'other-tenant');
    const slowProfiles: string[] = [];
    for (const name of ['a', 'b', 'c', 'd']) {
      const res = await app.request('/v1/alerts/profiles', { key: slow, method: 'POST', body: { name, channels: ['webhook'], webhook_url: drip.url } });
      t.equal(res.status, 201);
      slowProfiles.push(res.body.id);
    }
    const created = await app.request('/v1/alerts/profiles', {
      key: other,
      method: 'POST',
      body: { name: 'other', channels: ['webhook'], webhook_url: hook.url },
    });
    hook.secret = created.body.webhook_secret;

    const alerts = startAlerts(config, app.db, app.documents, createLogger('silent'), { concurrency: { webhook: 2 } });
    t.teardown(() => alerts.stop());
    await alerts.check();
    const documents = new DocumentStore(DocumentStore.pathIn(app.dataDir));
    documents.save(
      ['26SYMV000000101', '26SYMV000000102'].map((id) => ({ doc: feedDocument(id), content_hash: id, original: null, indexed_at: '2026-06-12T00:00:00Z' })),
    );
    documents.close();
    await alerts.check();

    // Eight deliveries of the slow organization were recorded before the other's two, and two slots serve both.
    await until(() => drip.dripping > 0, 'the slow receiver dripping');
    const [first] = await until(() => hook.requests.length >= 2 && hook.requests, "the other organization's deliveries");
    t.ok(first!.verified);
    t.equal(first!.json.profile_id, created.body.id);
    t.ok(drip.dripping > 0, "the slow receiver was still dripping when the other organization's deliveries were sent");
    const slowItems = (await app.request('/v1/alerts/deliveries?limit=100', { key: slow })).body.items as { last_error: string | null }[];
    t.ok(
      slowItems.every((d) => d.last_error === null),
      'no dripping attempt had ended yet',
    );

    // Waits on the store, not the API: a poll every 50 ms through the API would spend the key's daily quota.
    const ended = app.db.prepare('SELECT 1 FROM alert_deliveries WHERE alert_profile_id = ? AND last_error IS NOT NULL');
    await until(() => ended.get(slowProfiles[0]), 'a dripping attempt ended');
    const res = await app.request(`/v1/alerts/deliveries?profile_id=${slowProfiles[0]}`, { key: slow });
    t.equal(res.status, 200);
    const timedOut = (res.body.items as { last_error: string | null }[]).find((d) => d.last_error !== null)!;
    t.equal(timedOut.last_error, 'no answer within 5 s', 'the whole-request deadline ended it, though bytes kept coming');
    t.ok(drip.received >= 1);
  },
);
