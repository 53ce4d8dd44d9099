// A new alert channel is a file beside the others and its line in the registry (api/alerts/channels/
// index.ts, with its import): this test builds a copy of the sources with a text-message channel added
// so, and nothing else changed, then runs the app of that copy in process. The channel gets its address member in the
// documented schemas, its validation, its storage (no migration) and its deliveries.
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import type { Delivery } from '../../api/alerts/channels/channel.js';
import { MIGRATIONS } from '../../api/db/migrations.js';
import { tempDir } from '../helpers/app.js';
import { feedDocument } from '../helpers/alert-profile.js';
import { REPO_ROOT } from '../helpers/paths.js';

/** The channel added: what a developer would write, a file of its own. Its sends are told to the test. */
const SMS_CHANNEL = `// Text messages to the profile's notify_phone.
import { EventEmitter } from 'node:events';
import { TargetError, type AlertChannel, type Delivery } from './channel.js';

export const outbox = new EventEmitter<{ sent: [Delivery] }>();
const PHONE = /^\\+[1-9][0-9]{7,14}$/;

export const smsChannel = {
  name: 'sms',
  member: 'notify_phone',
  target: { maxLength: 24, value: { pattern: '^\\\\+[0-9 -]+$' }, note: 'in international form' },
  concurrency: 2,
  parseTarget(value: string): string {
    const phone = value.replace(/[ -]/g, '');
    if (!PHONE.test(phone)) throw new TargetError('notify_phone must be a phone number in international form, such as +30 210 1234567');
    return phone;
  },
  sender: () => ({
    async send(delivery) {
      outbox.emit('sent', delivery);
    },
  }),
} as const satisfies AlertChannel;
`;

/** What test/helpers/app.ts and the alert service import, copied; the packages and the demo data are linked. */
const COPIED = ['api', 'lib', 'index-mappings', 'ingest', 'test/helpers', 'docs/openapi.json', 'package.json', 'tsconfig.json'];
const LINKED = ['node_modules', 'data'];

/** A copy of the sources with the channel's file and its line in the registry. */
function buildWithSms(dir: string): void {
  for (const p of COPIED) fs.cpSync(path.join(REPO_ROOT, p), path.join(dir, p), { recursive: true });
  for (const p of LINKED) fs.symlinkSync(path.join(REPO_ROOT, p), path.join(dir, p));
  const channels = path.join(dir, 'api/alerts/channels');
  fs.writeFileSync(path.join(channels, 'sms.ts'), SMS_CHANNEL);
  const registry = fs.readFileSync(path.join(channels, 'index.ts'), 'utf8');
  const registered = registry
    .replace("import { webhookChannel } from './webhook.js';\n", "import { webhookChannel } from './webhook.js';\nimport { smsChannel } from './sms.js';\n")
    .replace('[emailChannel, webhookChannel]', '[emailChannel, webhookChannel, smsChannel]');
  if (registered.split('\n').length !== registry.split('\n').length + 1 || !registered.includes('smsChannel]')) {
    throw new Error('api/alerts/channels/index.ts no longer lists its channels as this test expects: update buildWithSms');
  }
  fs.writeFileSync(path.join(channels, 'index.ts'), registered);
}

t.test(
  'when a channel is added by its file and its line in the registry, then the profile API documents, checks and stores its address member, and its deliveries are sent through it',
  async (t) => {
    const dir = tempDir(t, 'pdi-channel-build-');
    buildWithSms(dir);
    const load = (file: string) => import(pathToFileURL(path.join(dir, file)).href);
    const { startTestApp }: typeof import('../helpers/app.js') = await load('test/helpers/app.ts');
    const { startAlerts }: typeof import('../../api/alerts/service.js') = await load('api/alerts/service.ts');
    const { loadConfig }: typeof import('../../lib/config.js') = await load('lib/config.ts');
    const { createLogger }: typeof import('../../lib/logger.js') = await load('lib/logger.ts');
    const { outbox } = (await load('api/alerts/channels/sms.ts')) as { outbox: NodeJS.EventEmitter };

    const app = await startTestApp(t);
    const key = app.key('pro');

    // Documented: the channel's name, its member in the bodies and the profile, and the member required with it.
    const schemas = (await app.request('/openapi.json')).body.components.schemas;
    t.same(schemas.AlertChannel.enum, ['email', 'webhook', 'sms']);
    t.same(schemas.AlertProfileCreate.properties.notify_phone, {
      type: ['string', 'null'],
      maxLength: 24,
      anyOf: [{ type: 'string', pattern: '^\\+[0-9 -]+$' }, { type: 'string', maxLength: 0 }, { type: 'null' }],
      description: 'Required with channel `sms`; in international form. An empty string or null means none.',
    });
    t.same(schemas.AlertProfileUpdate.properties.notify_phone, schemas.AlertProfileCreate.properties.notify_phone);
    const rule = schemas.AlertProfileCreate.allOf.at(-1);
    t.same([rule.if.properties.channels.contains.const, rule.then.required], ['sms', ['notify_phone']], 'required with its channel');
    t.ok(schemas.AlertProfile.required.includes('notify_phone'), 'the profile shows it');

    // Checked: required with its channel, in the form the channel accepts.
    const post = (body: Record<string, unknown>) => app.request('/v1/alerts/profiles', { key, method: 'POST', body: { name: 'Texts', ...body } });
    const missing = await post({ channels: ['sms'] });
    t.same([missing.status, missing.body.detail], [422, 'notify_phone is required with the sms channel']);
    const bad = await post({ channels: ['sms'], notify_phone: 'call me' });
    t.same([bad.status, bad.body.detail], [422, 'notify_phone must be a phone number in international form, such as +30 210 1234567']);
    const created = await post({ channels: ['sms', 'email'], notify_phone: ' +30 210 1234567 ', notify_email: 'ops@example.com' });
    t.equal(created.status, 201, created.text);
    t.match(created.body, { channels: ['email', 'sms'], notify_phone: '+30 210 1234567', notify_email: 'ops@example.com', webhook_url: null });

    // Stored: in the profile's targets, by a database no migration was added for.
    t.equal(app.db.pragma('user_version', { simple: true }), MIGRATIONS.at(-1)!.version);
    t.same(JSON.parse(app.db.prepare('SELECT targets FROM alert_profiles').pluck().get() as string), {
      notify_phone: '+30 210 1234567',
      notify_email: 'ops@example.com',
    });
    const cleared = await app.request(`/v1/alerts/profiles/${created.body.id}`, { key, method: 'PUT', body: { channels: ['email'], notify_phone: null } });
    t.match(cleared.body, { channels: ['email'], notify_phone: null }, 'and removed');
    const restored = await app.request(`/v1/alerts/profiles/${created.body.id}`, {
      key,
      method: 'PUT',
      body: { channels: ['sms'], notify_phone: '+302101234567' },
    });
    t.equal(restored.status, 200, restored.text);

    // Sent: a new document is delivered on the channel, to the stored address.
    const config = loadConfig({ PDI_DATA_DIR: app.dataDir, LOG_LEVEL: 'silent' });
    const alerts = startAlerts(config, app.db, app.documents, createLogger('silent'));
    await alerts.check(); // the watermark starts at the feed's end
    const sent = once(outbox, 'sent') as Promise<[Delivery]>;
    app.documents.save([{ doc: feedDocument('sms-1'), content_hash: 'sms-1', original: null, indexed_at: '2026-06-12T00:00:00Z' }]);
    await alerts.check();
    const [delivery] = await sent;
    t.same([delivery.target, delivery.document.source_id], ['+302101234567', 'kimdis:sms-1']);
    await alerts.stop();
    const deliveries = (await app.request('/v1/alerts/deliveries', { key })).body.items;
    t.match(deliveries, [{ channel: 'sms', delivery_status: 'sent', document_source_id: 'kimdis:sms-1' }]);
  },
);
