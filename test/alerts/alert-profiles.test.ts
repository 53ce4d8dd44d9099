// Alert profiles (docs/api.md "Alert profiles and monitoring"): create, list, update,
// soft delete, validation and organization scoping.
import t from 'tap';
import { accountsDbPath } from '../../api/db/database.js';
import { MIGRATIONS } from '../../api/db/migrations.js';
import { openSqlite } from '../../lib/sqlite.js';
import { startTestApp, tempDir } from '../helpers/app.js';

const PUBLIC_HOOK = 'https://93.184.215.14/hook';

t.test('when a profile is created, then 201 shows all six filter members, the secret once, and it lists without the secret', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('pro');
  const res = await app.request('/v1/alerts/profiles', {
    key,
    method: 'POST',
    body: {
      name: 'IT tenders',
      filters: { keywords: ['υπολογιστές'], min_value: 1000 },
      channels: ['email', 'webhook'],
      notify_email: 'ops@example.com',
      webhook_url: PUBLIC_HOOK,
    },
  });
  t.equal(res.status, 201, res.text);
  t.match(res.body, { name: 'IT tenders', channels: ['email', 'webhook'], notify_email: 'ops@example.com', webhook_url: PUBLIC_HOOK, is_active: true });
  t.same(res.body.filters, { sectors: [], regions: [], keywords: ['υπολογιστές'], min_value: 1000, max_value: null, sources: [] });
  t.match(res.body.id, /^[0-9a-f-]{36}$/);
  t.match(res.body.webhook_secret, /^whsec_[0-9a-f]{64}$/);
  t.notOk(JSON.stringify(app.db.prepare('SELECT * FROM alert_profiles').all()).includes(res.body.webhook_secret.slice(6)), 'the secret is not stored');
  const list = await app.request('/v1/alerts/profiles', { key });
  t.equal(list.status, 200);
  t.match(list.body, { total: 1, limit: 20, offset: 0 });
  t.equal(list.body.items[0].id, res.body.id);
  t.notOk('webhook_secret' in list.body.items[0], 'the secret is shown once');
});

t.test('when a body is invalid, then 422 names the member', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('pro');
  const base = { name: 'n', channels: ['email'], notify_email: 'a@example.com' };
  const cases: [unknown, RegExp][] = [
    [{ channels: ['email'], notify_email: 'a@example.com' }, /^name is required/],
    [{ ...base, name: 'IT\u001b[2J' }, /^name must not contain control characters$/],
    [{ ...base, filters: { keywords: ['word\u0085'] } }, /^filters\.keywords must hold non-empty strings/],
    [{ name: 'n' }, /^channels is required/],
    [{ ...base, channels: [] }, /^channels is required/],
    [{ ...base, channels: ['sms'] }, /unknown channel: "sms"/],
    [{ name: 'n', channels: ['email'] }, /^notify_email is required/],
    [{ name: 'n', channels: ['webhook'] }, /^webhook_url is required/],
    [{ ...base, notify_email: 'not-an-email' }, /^notify_email must be an email/],
    [{ ...base, notify_email: 'a@example.com\r\nBcc: x@y.z' }, /^notify_email must be an email/],
    [{ name: 'n', channels: ['webhook'], webhook_url: 'not a url' }, /^webhook_url must be an absolute URL/],
    [{ name: 'n', channels: ['webhook'], webhook_url: 'http://93.184.215.14/hook' }, /^webhook_url must use https/],
    [{ name: 'n', channels: ['webhook'], webhook_url: 'https://127.0.0.1/hook' }, /^webhook_url host \S+ does not resolve to a public address$/],
    [{ name: 'n', channels: ['webhook'], webhook_url: 'https://10.1.2.3/hook' }, /^webhook_url host \S+ does not resolve to a public address$/],
    [{ name: 'n', channels: ['webhook'], webhook_url: 'https://169.254.169.254/latest' }, /^webhook_url host \S+ does not resolve to a public address$/],
    [{ name: 'n', channels: ['webhook'], webhook_url: 'https://[::1]/hook' }, /^webhook_url host \S+ does not resolve to a public address$/],
    [{ name: 'n', channels: ['webhook'], webhook_url: 'https://[::ffff:127.0.0.1]/hook' }, /^webhook_url host \S+ does not resolve to a public address$/],
    [{ name: 'n', channels: ['webhook'], webhook_url: 'https://localhost/hook' }, /^webhook_url host \S+ does not resolve to a public address$/],
    [{ name: 'n', channels: ['webhook'], webhook_url: 'https://[::127.0.0.1]/hook' }, /^webhook_url host \S+ does not resolve to a public address$/],
    [{ name: 'n', channels: ['webhook'], webhook_url: 'https://[::a9fe:a9fe]/hook' }, /^webhook_url host \S+ does not resolve to a public address$/],
    [{ name: 'n', channels: ['webhook'], webhook_url: 'https://[::ffff:0:7f00:1]/hook' }, /^webhook_url host \S+ does not resolve to a public address$/],
    [{ name: 'n', channels: ['webhook'], webhook_url: 'https://[64:ff9b:1::a9fe:a9fe]/hook' }, /^webhook_url host \S+ does not resolve to a public address$/],
    [{ name: 'n', channels: ['webhook'], webhook_url: 'https://[2002:a9fe:a9fe::]/hook' }, /^webhook_url host \S+ does not resolve to a public address$/],
    [{ name: 'n', channels: ['webhook'], webhook_url: 'https://no-such-host.invalid/hook' }, /^webhook_url host \S+ does not resolve to a public address$/],
    [{ ...base, filters: { min_value: 'ten' } }, /^filters\.min_value must be a number/],
    [{ ...base, filters: { min_value: 100, max_value: 10 } }, /^filters\.min_value must not be greater than filters\.max_value/],
    [{ ...base, filters: { sources: ['nowhere'] } }, /unknown source: nowhere/],
    [{ ...base, filters: { keywords: 'word' } }, /^filters\.keywords must be an array/],
    [{ ...base, filters: { colour: ['red'] } }, /^filters\.colour is not a filter/],
    [{ ...base, extra: 1 }, /^extra is not a member/],
    [[1, 2], /must be a JSON object/],
  ];
  for (const [body, detail] of cases) {
    const res = await app.request('/v1/alerts/profiles', { key, method: 'POST', body });
    t.equal(res.status, 422, JSON.stringify(body));
    t.match(res.body.detail, detail, JSON.stringify(body));
  }
  t.equal((await app.request('/v1/alerts/profiles', { key })).body.total, 0, 'nothing was created');
});

t.test('when PDI_WEBHOOK_ALLOW_PRIVATE is set, then an http loopback target is accepted, and link-local or metadata ones are still refused', async (t) => {
  const app = await startTestApp(t, { env: { PDI_WEBHOOK_ALLOW_PRIVATE: '1' } });
  const res = await app.request('/v1/alerts/profiles', {
    key: app.key('pro'),
    method: 'POST',
    body: { name: 'n', channels: ['webhook'], webhook_url: 'http://127.0.0.1:9/hook' },
  });
  t.equal(res.status, 201, res.text);
  for (const target of [
    'http://169.254.169.254/latest',
    'http://[fe80::1]/hook',
    'http://[::a9fe:a9fe]/hook',
    'http://[64:ff9b::a9fe:a9fe]/hook',
    'http://[64:ff9b:1::a9fe:a9fe]/hook',
    'http://[2002:a9fe:a9fe::]/hook',
  ]) {
    const refused = await app.request('/v1/alerts/profiles', {
      key: app.key('pro'),
      method: 'POST',
      body: { name: 'n', channels: ['webhook'], webhook_url: target },
    });
    t.equal(refused.status, 422, target);
    t.match(refused.body.detail, /does not resolve to a public address/, target);
  }
});

t.test('when a profile is updated in part and deleted, then other members keep their values and it is deactivated, not removed', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('pro');
  const created = (
    await app.request('/v1/alerts/profiles', {
      key,
      method: 'POST',
      body: { name: 'a', channels: ['email'], notify_email: 'a@example.com', filters: { sources: ['e_procurement'] } },
    })
  ).body;
  t.same(created.filters.sources, ['kimdis'], 'the alias is stored as the canonical source');
  const renamed = await app.request(`/v1/alerts/profiles/${created.id}`, { key, method: 'PUT', body: { name: 'b' } });
  t.equal(renamed.status, 200);
  t.match(renamed.body, { id: created.id, name: 'b', notify_email: 'a@example.com', is_active: true, filters: { sources: ['kimdis'] } });
  t.notOk('webhook_secret' in renamed.body);
  const paused = await app.request(`/v1/alerts/profiles/${created.id}`, { key, method: 'PUT', body: { is_active: false } });
  t.equal(paused.body.is_active, false);
  const resumed = await app.request(`/v1/alerts/profiles/${created.id}`, { key, method: 'PUT', body: { is_active: true } });
  t.equal(resumed.body.is_active, true);
  const bad = await app.request(`/v1/alerts/profiles/${created.id}`, { key, method: 'PUT', body: { channels: ['webhook'] } });
  t.equal(bad.status, 422, 'the merged profile must still be complete');
  t.match(bad.body.detail, /^webhook_url is required/);
  t.equal((await app.request(`/v1/alerts/profiles/${created.id}`, { key, method: 'PUT', body: { is_active: 'no' } })).status, 422);
  const deleted = await app.request(`/v1/alerts/profiles/${created.id}`, { key, method: 'DELETE' });
  t.equal(deleted.status, 200);
  t.same(deleted.body, { status: 'deactivated', id: created.id });
  const list = await app.request('/v1/alerts/profiles', { key });
  t.equal(list.body.total, 1, 'kept');
  t.equal(list.body.items[0].is_active, false);
});

t.test('when another organization names a profile, then every route answers 404 and lists stay apart', async (t) => {
  const app = await startTestApp(t);
  const mine = app.key('pro', 'Acme');
  const theirs = app.key('pro', 'Globex');
  const created = (
    await app.request('/v1/alerts/profiles', { key: mine, method: 'POST', body: { name: 'a', channels: ['email'], notify_email: 'a@example.com' } })
  ).body;
  const put = await app.request(`/v1/alerts/profiles/${created.id}`, { key: theirs, method: 'PUT', body: { name: 'stolen' } });
  t.equal(put.status, 404);
  t.same(put.body, { detail: `Alert profile not found: ${created.id}` });
  t.equal((await app.request(`/v1/alerts/profiles/${created.id}`, { key: theirs, method: 'DELETE' })).status, 404);
  t.equal((await app.request(`/v1/alerts/deliveries?profile_id=${created.id}`, { key: theirs })).status, 404);
  t.equal((await app.request('/v1/alerts/profiles', { key: theirs })).body.total, 0);
  t.equal((await app.request('/v1/alerts/profiles/not-a-uuid', { key: mine, method: 'DELETE' })).status, 404);
  const still = (await app.request('/v1/alerts/profiles', { key: mine })).body.items[0];
  t.match(still, { name: 'a', is_active: true }, 'untouched');
});

t.test('when profiles are paged, then limit and offset are echoed and checked', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('pro');
  for (const name of ['one', 'two', 'three'])
    await app.request('/v1/alerts/profiles', { key, method: 'POST', body: { name, channels: ['email'], notify_email: 'a@example.com' } });
  const page = await app.request('/v1/alerts/profiles?limit=2&offset=1', { key });
  t.match(page.body, { total: 3, limit: 2, offset: 1 });
  t.same(
    page.body.items.map((p: { name: string }) => p.name),
    ['two', 'one'],
    'newest first',
  );
  const bad = await app.request('/v1/alerts/profiles?limit=101', { key });
  t.equal(bad.status, 422);
  t.same(bad.body, { detail: 'limit must be an integer from 1 to 100' });
  t.equal((await app.request('/v1/alerts/deliveries', { key })).body.total, 0);
});

t.test(
  'when an organization holds PDI_MAX_ALERT_PROFILES active profiles, then another is refused with 409 until one is deleted, and other organizations are not counted',
  async (t) => {
    const app = await startTestApp(t, { env: { PDI_MAX_ALERT_PROFILES: '2' } });
    const key = app.key('pro', 'full');
    const body = { name: 'n', channels: ['email'], notify_email: 'a@example.com' };
    const first = await app.request('/v1/alerts/profiles', { key, method: 'POST', body });
    t.equal((await app.request('/v1/alerts/profiles', { key, method: 'POST', body })).status, 201);
    const refused = await app.request('/v1/alerts/profiles', { key, method: 'POST', body });
    t.equal(refused.status, 409);
    t.match(refused.body, { detail: /already has 2 active alert profiles/ });
    t.equal((await app.request('/v1/alerts/profiles', { key: app.key('pro', 'other'), method: 'POST', body })).status, 201, 'another organization');
    await app.request(`/v1/alerts/profiles/${first.body.id}`, { key, method: 'DELETE' });
    t.equal((await app.request('/v1/alerts/profiles', { key, method: 'POST', body })).status, 201, 'a deleted profile frees its place');
    const reactivated = await app.request(`/v1/alerts/profiles/${first.body.id}`, { key, method: 'PUT', body: { is_active: true } });
    t.equal(reactivated.status, 409, 'reactivating past the bound is refused too');
    t.equal((await app.request('/v1/alerts/profiles', { key })).body.total, 3);
  },
);

/** The migration that keeps a profile's addresses in one column. */
const TARGETS_MIGRATION = MIGRATIONS.find((m) => m.name === "a profile's channel addresses in one column")!.version;

t.test(
  'when an account database from before the targets column is opened, then each profile keeps its addresses, the old columns are gone, and the API shows and changes them as before',
  async (t) => {
    const dataDir = tempDir(t);
    const old = openSqlite(accountsDbPath(dataDir));
    for (const m of MIGRATIONS.filter((m) => m.version < TARGETS_MIGRATION)) {
      old.exec(m.sql);
      m.run?.(old);
    }
    old.pragma(`user_version = ${TARGETS_MIGRATION - 1}`);
    old.prepare("INSERT INTO organizations (id, name, created_at) VALUES ('org_a', 'Acme', '2026-01-01T00:00:00Z')").run();
    const profile = old.prepare(
      `INSERT INTO alert_profiles (id, org_id, name, filters, channels, webhook_url, notify_email, secret_salt, is_active, created_at)
       VALUES (?, 'org_a', ?, '{"sectors":[],"regions":[],"keywords":[],"min_value":null,"max_value":null,"sources":[]}', ?, ?, ?, 'salt', 1, ?)`,
    );
    profile.run('00000000-0000-4000-8000-000000000001', 'both', '["email","webhook"]', PUBLIC_HOOK, 'ops@example.com', '2026-01-03T00:00:00Z');
    profile.run('00000000-0000-4000-8000-000000000002', 'mail', '["email"]', null, 'a@example.com', '2026-01-02T00:00:00Z');
    profile.run('00000000-0000-4000-8000-000000000003', 'hook', '["webhook"]', PUBLIC_HOOK, null, '2026-01-01T00:00:00Z');
    old.close();

    const app = await startTestApp(t, { dataDir });
    t.equal(app.db.pragma('user_version', { simple: true }), MIGRATIONS.at(-1)!.version);
    t.same(app.db.prepare('SELECT name, targets FROM alert_profiles ORDER BY created_at DESC').all(), [
      { name: 'both', targets: JSON.stringify({ notify_email: 'ops@example.com', webhook_url: PUBLIC_HOOK }) },
      { name: 'mail', targets: JSON.stringify({ notify_email: 'a@example.com' }) },
      { name: 'hook', targets: JSON.stringify({ webhook_url: PUBLIC_HOOK }) },
    ]);
    const columns = app.db.prepare("SELECT name FROM pragma_table_info('alert_profiles')").pluck().all();
    t.notOk(columns.includes('webhook_url') || columns.includes('notify_email'), `the address columns are gone: ${columns}`);

    const key = app.key('pro', 'Acme');
    const list = await app.request('/v1/alerts/profiles', { key });
    t.same(list.body.items.map((p: Record<string, unknown>) => [p.name, p.notify_email, p.webhook_url]).sort(), [
      ['both', 'ops@example.com', PUBLIC_HOOK],
      ['hook', null, PUBLIC_HOOK],
      ['mail', 'a@example.com', null],
    ]);
    const changed = await app.request('/v1/alerts/profiles/00000000-0000-4000-8000-000000000001', {
      key,
      method: 'PUT',
      body: { channels: ['webhook'], notify_email: '' },
    });
    t.equal(changed.status, 200, changed.text);
    t.match(changed.body, { channels: ['webhook'], notify_email: null, webhook_url: PUBLIC_HOOK }, 'an empty address removes it');
    t.equal(app.db.prepare("SELECT targets FROM alert_profiles WHERE name = 'both'").pluck().get(), JSON.stringify({ webhook_url: PUBLIC_HOOK }));
  },
);
