// The API Tokens page at /dashboard (PDI_ADMIN_TOKEN): off when unset, sign-in, the session cookie,
// CSRF, escaping, and keys created, used and revoked through it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { startServer } from '../../api/server.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { startTestApp, tempDir } from '../helpers/app.js';
import { ADMIN_TOKEN, DashboardClient } from '../helpers/dashboard.js';
import { until } from '../helpers/alert-peers.js';

/** A clock the test moves by hand. */
function manualClock(start = '2026-11-26T10:00:00Z') {
  let ms = Date.parse(start);
  return { clock: () => new Date(ms), advance: (by: number) => (ms += by) };
}

async function dashboardApp(t: Test, clock?: () => Date) {
  const app = await startTestApp(t, { env: { PDI_ADMIN_TOKEN: ADMIN_TOKEN }, clock });
  return { app, client: new DashboardClient(app.url) };
}

t.test('when PDI_ADMIN_TOKEN is unset, then every /dashboard path answers 404 as an unknown path does', async (t) => {
  const app = await startTestApp(t);
  const unknown = await app.request('/nowhere');
  t.equal(unknown.status, 404);
  for (const [method, path] of [
    ['GET', '/dashboard'],
    ['GET', '/dashboard/sign-in'],
    ['GET', '/dashboard/style.css'],
    ['POST', '/dashboard/sign-in'],
    ['POST', '/dashboard/keys'],
  ]) {
    const res = await app.request(path, {
      method,
      rawBody: method === 'POST' ? 'token=x' : undefined,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    t.equal(res.status, 404, `${method} ${path}`);
    t.same(res.body, { detail: `Not found: ${method} ${path}` });
  }
});

t.test('when the dashboard is opened without a session, then it sends the browser to the sign-in form', async (t) => {
  const { client } = await dashboardApp(t);
  const home = await client.get('/dashboard');
  t.equal(home.status, 303);
  t.equal(home.headers.get('location'), '/dashboard/sign-in');
  const form = await client.get('/dashboard/sign-in');
  t.equal(form.status, 200);
  t.match(form.headers.get('content-type'), /^text\/html/);
  t.match(form.text, /<input id="token" name="token" type="password"/);
});

t.test('when a wrong admin token is sent, then it is refused, no session is opened, and the next try from that address must wait', async (t) => {
  const time = manualClock();
  const { client } = await dashboardApp(t, time.clock);
  for (const wrong of ['', 'x', `${ADMIN_TOKEN}x`, ADMIN_TOKEN.slice(0, -1)]) {
    const res = await client.signIn(wrong);
    t.equal(res.status, 401, `token ${JSON.stringify(wrong)}`);
    t.match(res.text, /Wrong admin token/);
    t.equal(res.headers.get('set-cookie'), null, 'no cookie');
    const again = await client.signIn(ADMIN_TOKEN);
    t.equal(again.status, 429, 'even the right token waits');
    t.ok(Number(again.headers.get('retry-after')) >= 1, 'Retry-After says how long');
    t.match(again.text, /Too many failed sign-ins: try again in \d+ s/);
    time.advance(10 * 60_000);
  }
  const right = await client.signIn(ADMIN_TOKEN);
  t.equal(right.status, 303);
  t.equal(right.headers.get('location'), '/dashboard');
});

t.test('when 50 sign-ins arrive at once, then one is judged and the other 49 are refused before their forms are read', async (t) => {
  const { app } = await dashboardApp(t, manualClock().clock);
  const body = 'token=wrong';
  const statuses: number[] = [];
  const requests: http.ClientRequest[] = [];
  // Every request's headers arrive first and its form is held back, as a client that sends 50 at once
  // and slowly: each must be counted as it arrives, not once its form has been read.
  for (let i = 0; i < 50; i++) {
    const req = http.request(`${app.url}/dashboard/sign-in`, {
      method: 'POST',
      agent: false,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': body.length },
    });
    req.on('response', (res) => {
      statuses.push(res.statusCode!);
      res.resume();
    });
    req.on('error', () => {}); // a refused one's connection is closed under its unsent form
    req.flushHeaders();
    requests.push(req);
  }
  t.teardown(() => requests.forEach((r) => r.destroy()));
  await until(() => statuses.length >= 49, '49 refusals before any form was sent', 15_000);
  t.same(statuses, new Array(49).fill(429), 'all but one refused at once');
  for (const req of requests) if (!req.destroyed) req.end(body);
  await until(() => statuses.length === 50, 'the one judged');
  t.equal(statuses.filter((s) => s === 401).length, 1, 'one guess was judged');
});

t.test('when failures repeat, then each wait is longer than the last', async (t) => {
  const time = manualClock();
  const { client } = await dashboardApp(t, time.clock);
  const waits: number[] = [];
  for (let i = 0; i < 4; i++) {
    t.equal((await client.signIn('wrong')).status, 401);
    waits.push(Number((await client.signIn('wrong')).headers.get('retry-after')));
    time.advance(waits.at(-1)! * 1000);
  }
  t.same(waits, [1, 2, 4, 8]);
});

t.test('when PDI_TRUST_PROXY names the proxy in front, then clients are told apart by X-Forwarded-For, an IPv6 one by its /64', async (t) => {
  const time = manualClock();
  const app = await startTestApp(t, { env: { PDI_ADMIN_TOKEN: ADMIN_TOKEN, PDI_TRUST_PROXY: '127.0.0.1' }, clock: time.clock });
  const from = (client: string) => new DashboardClient(app.url, { 'X-Forwarded-For': `198.51.100.9, ${client}` });
  t.equal((await from('2001:db8:1:2::1').signIn('wrong')).status, 401);
  t.equal((await from('2001:db8:1:2:ffff:ffff:ffff:fffe').signIn()).status, 429, 'another address of the same /64 waits');
  t.equal((await from('2001:0db8:0001:0002:0000:0000:0000:0001').signIn()).status, 429, 'however it is written');
  t.equal((await from('2001:db8:1:3::1').signIn()).status, 303, 'the next /64 is another client');
  t.equal((await from('203.0.113.5').signIn()).status, 303, 'and so is an IPv4 client');
});

t.test('when a trusted proxy passes on one client whose form is slow to come, then other clients behind it still sign in', async (t) => {
  const app = await startTestApp(t, { env: { PDI_ADMIN_TOKEN: ADMIN_TOKEN, PDI_TRUST_PROXY: '127.0.0.0/8' } });
  // The slow client's headers arrive and its form is held back: its attempt is under way.
  const slow = http.request(`${app.url}/dashboard/sign-in`, {
    method: 'POST',
    agent: false,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': 20, 'X-Forwarded-For': '203.0.113.5' },
  });
  slow.on('error', () => {});
  slow.flushHeaders();
  t.teardown(() => slow.destroy());
  const same = new DashboardClient(app.url, { 'X-Forwarded-For': '203.0.113.5' });
  await until(async () => (await same.signIn()).status === 429, "the slow client's attempt under way");
  t.equal((await new DashboardClient(app.url, { 'X-Forwarded-For': '198.51.100.7' }).signIn()).status, 303, 'another client is not held up');
});

t.test('when PDI_TRUST_PROXY is unset, then X-Forwarded-For is not read: a client cannot leave its wait by writing one', async (t) => {
  const time = manualClock();
  const { app, client } = await dashboardApp(t, time.clock);
  t.equal((await client.signIn('wrong')).status, 401);
  t.equal((await new DashboardClient(app.url, { 'X-Forwarded-For': '203.0.113.99' }).signIn()).status, 429);
});

t.test('when the operator signs in over plain HTTP, then the session cookie is HttpOnly, SameSite=Strict, Path=/dashboard and not Secure', async (t) => {
  const { client } = await dashboardApp(t);
  const res = await client.signIn();
  t.equal(res.status, 303);
  const cookie = res.headers.get('set-cookie')!;
  const attributes = cookie
    .split(';')
    .slice(1)
    .map((a) => a.trim());
  t.ok(attributes.includes('HttpOnly'), cookie);
  t.ok(attributes.includes('SameSite=Strict'), cookie);
  t.ok(attributes.includes('Path=/dashboard'), cookie);
  t.notOk(attributes.includes('Secure'), 'Secure only over TLS');
  t.match(cookie, /^pdi_dashboard=[A-Za-z0-9_-]{43};/, 'a 256-bit random id');
  const page = await client.get('/dashboard');
  t.equal(page.status, 200);
  t.match(page.text, /<h1>API Tokens<\/h1>/);
});

t.test(
  'when PDI_PUBLIC_URL is https (TLS ends at a proxy), then the session cookie is Secure and every answer carries Strict-Transport-Security',
  async (t) => {
    const app = await startTestApp(t, { env: { PDI_ADMIN_TOKEN: ADMIN_TOKEN, PDI_PUBLIC_URL: 'https://pdi.example.org' } });
    const res = await new DashboardClient(app.url).signIn();
    t.equal(res.status, 303);
    t.ok(
      res.headers
        .get('set-cookie')!
        .split(';')
        .map((a) => a.trim())
        .includes('Secure'),
      'Secure behind the proxy',
    );
    for (const path of ['/healthz', '/v1/usage', '/nowhere', '/docs']) {
      t.equal((await app.request(path)).headers.get('strict-transport-security'), 'max-age=31536000', path);
    }
    const plain = await startTestApp(t, { env: { PDI_PUBLIC_URL: 'http://pdi.internal:8000' } });
    t.equal((await plain.request('/healthz')).headers.get('strict-transport-security'), null, 'not over plain http');
  },
);

t.test("when a page is served, then its policy allows no script and only this server's stylesheet, which it serves", async (t) => {
  const { client } = await dashboardApp(t);
  await client.signIn();
  const page = await client.get('/dashboard');
  const csp = page.headers.get('content-security-policy')!;
  t.match(csp, /default-src 'none'/);
  t.notMatch(csp, /script-src|unsafe-inline/);
  t.match(csp, /style-src 'self'/);
  t.match(csp, /form-action 'self'/);
  t.match(csp, /frame-ancestors 'none'/);
  t.equal(page.headers.get('cache-control'), 'no-store');
  t.notMatch(page.text, /<script|style=/i, 'no script and no inline style');
  const refs = [...page.text.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
  t.same(refs, ['/dashboard/style.css']);
  const css = await client.get('/dashboard/style.css');
  t.equal(css.status, 200);
  t.match(css.headers.get('content-type'), /^text\/css/);
});

t.test('when a POST carries no CSRF token or a wrong one, then it is refused with 403 and does nothing', async (t) => {
  const { app, client } = await dashboardApp(t);
  await client.signIn();
  const csrf = await client.csrf();
  const victim = app.app.context.keys.create('Victim', 'free');
  const attempts: Record<string, string>[] = [{}, { csrf: 'x' }, { csrf: `${csrf}x` }, { csrf: csrf.slice(1) }];
  const forms: [string, Record<string, string>][] = [
    ['/dashboard/keys', { org: 'Mallory', tier: 'enterprise' }],
    [`/dashboard/keys/${victim.id}/revoke`, {}],
    ['/dashboard/sign-out', {}],
  ];
  for (const fields of attempts) {
    for (const [path, extra] of forms) {
      const res = await client.post(path, { ...fields, ...extra });
      t.equal(res.status, 403, `${path} with ${JSON.stringify(fields)}`);
      t.match(res.text, /CSRF token is missing or wrong/);
    }
  }
  t.same(
    app.app.context.keys.list().map((k) => [k.org, k.revoked_at]),
    [['Victim', null]],
    'no key created, none revoked',
  );
  t.equal((await client.get('/dashboard')).status, 200, 'still signed in');
  // Another session's token is no better.
  const other = new DashboardClient(app.url);
  await other.signIn();
  t.equal((await client.post('/dashboard/keys', { csrf: await other.csrf(), org: 'Mallory', tier: 'free' })).status, 403);
});

t.test('when a POST comes without a session, then it is refused with 401', async (t) => {
  const { client } = await dashboardApp(t);
  const res = await client.post('/dashboard/keys', { csrf: 'x', org: 'Acme', tier: 'free' });
  t.equal(res.status, 401);
  t.match(res.text, /not signed in/);
});

t.test('when an organization name is hostile HTML, then the page shows it as text', async (t) => {
  const { client } = await dashboardApp(t);
  await client.signIn();
  const hostile = `<script>alert(1)</script><img src=x onerror=alert(2)>"'&amp;`;
  const { page } = await client.createKey(hostile, 'pro');
  t.notMatch(page, /<script|<img/i, 'no markup from the name');
  t.match(
    page,
    '&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;&#39;&amp;amp;',
    'escaped where the key was announced and in the list',
  );
  t.equal(page.split('&lt;script&gt;alert(1)').length - 1, 2, 'in the notice and in the list');
  // Refused names come back in the form's value, escaped as well.
  const refused = await client.post('/dashboard/keys', { csrf: await client.csrf(), org: `${'"><script>x</script>'.repeat(11)}`, tier: 'free' });
  t.equal(refused.status, 422);
  t.match(refused.text, /organization name is longer than 200 characters/);
  t.notMatch(refused.text, /<script/);
});

t.test('when a key is created, then it is shown once, listed without its secret, works, and fails on its next request once revoked', async (t) => {
  const { app, client } = await dashboardApp(t);
  await client.signIn();
  const { key, id, page } = await client.createKey('Acme', 'pro');
  t.match(key, /^pdi_live_[A-Za-z0-9]{32}$/);
  t.match(page, /Copy it now: it will not be shown again/);
  t.match(page, new RegExp(`<tr id="${id}">[\\s\\S]*?<td>Acme</td><td>pro</td>`), 'listed');
  const again = await client.get('/dashboard');
  t.notMatch(again.text, key, 'never shown again');
  t.match(again.text, `<code>${id}</code>`);
  t.same(
    app.app.context.keys.list().map((k) => [k.id, k.org, k.tier]),
    [[id, 'Acme', 'pro']],
    'one store for the CLI and the dashboard',
  );

  t.equal((await app.request('/v1/usage', { key })).status, 200);
  t.equal((await app.request('/v1/usage', { key })).status, 200, 'answered from the key cache');
  const revoked = await client.post(`/dashboard/keys/${id}/revoke`, { csrf: await client.csrf() });
  t.equal(revoked.status, 303);
  const next = await app.request('/v1/usage', { key });
  t.equal(next.status, 401);
  t.same(next.body, { detail: 'Invalid API key' });
  t.match((await client.get('/dashboard')).text, new RegExp(`<tr id="${id}" class="revoked">[\\s\\S]*?Revoked \\d{4}-`));
  const unknown = await client.post('/dashboard/keys/key_nope/revoke', { csrf: await client.csrf() });
  t.equal(unknown.status, 404);
  t.match(unknown.text, /No key has the id key_nope/);
});

t.test("when a key was used, then its row shows today's count, its last day used and 30 days of bars", async (t) => {
  const time = manualClock('2026-11-26T10:00:00Z');
  const { app, client } = await dashboardApp(t, time.clock);
  await client.signIn();
  const { key, id } = await client.createKey('Acme', 'free');
  const idle = await client.createKey('Idle', 'free');
  for (let i = 0; i < 3; i++) t.equal((await app.request('/v1/usage', { key })).status, 200);
  app.db.prepare('INSERT INTO daily_usage (key_id, day, count) VALUES (?, ?, ?), (?, ?, ?)').run(id, '2026-11-20', 4, id, '2026-10-01', 5);
  const page = (await client.get('/dashboard')).text;
  const row = new RegExp(`<tr id="${id}">([\\s\\S]*?)</tr>`).exec(page)![1]!;
  t.match(row, '<td>2026-11-26</td>', 'last used today');
  t.match(row, '<td class="num">3 / 5</td>', 'today, of the quota');
  t.equal(row.match(/<rect /g)?.length, 30, 'a bar per day');
  t.match(row, /<title>2026-11-20: 4<\/title>/);
  t.match(row, /<title>2026-10-28: 0<\/title>/, 'the first day shown');
  t.notMatch(row, /2026-10-01/, 'older days are not');
  t.match(row, /aria-label="7 requests in the last 30 days, at most 4 a day"/);
  const idleRow = new RegExp(`<tr id="${idle.id}">([\\s\\S]*?)</tr>`).exec(page)![1]!;
  t.match(idleRow, '<td>—</td>', 'never used');
  t.match(idleRow, '<td class="num">0 / 5</td>');
});

t.test('when a session is idle 30 minutes, or signed out, then its cookie opens nothing', async (t) => {
  const time = manualClock();
  const { app, client } = await dashboardApp(t, time.clock);
  await client.signIn();
  time.advance(29 * 60_000);
  t.equal((await client.get('/dashboard')).status, 200, 'still open before 30 minutes');
  time.advance(30 * 60_000);
  const expired = await client.get('/dashboard');
  t.equal(expired.status, 303);
  t.equal(expired.headers.get('location'), '/dashboard/sign-in');

  const other = new DashboardClient(app.url);
  await other.signIn();
  const cookie = other.cookie;
  const out = await other.post('/dashboard/sign-out', { csrf: await other.csrf() });
  t.equal(out.status, 303);
  t.match(out.headers.get('set-cookie'), /^pdi_dashboard=; Path=\/dashboard; Max-Age=0/);
  other.cookie = cookie;
  t.equal((await other.get('/dashboard')).status, 303, 'the old cookie no longer opens the page');
});

t.test('when a session is older than 8 hours, then it ends however busy it was', async (t) => {
  const time = manualClock();
  const { client } = await dashboardApp(t, time.clock);
  await client.signIn();
  for (let i = 0; i < 16; i++) {
    time.advance(29 * 60_000);
    t.equal((await client.get('/dashboard')).status, 200, `${(i + 1) * 29} min after sign-in`);
  }
  time.advance(20 * 60_000);
  t.equal((await client.get('/dashboard')).status, 303, '8 h 4 min after sign-in');
});

t.test("when the request that signs in comes over the server's own TLS, then the session cookie is also Secure", async (t) => {
  const dir = tempDir(t);
  await promisify(execFile)(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { cwd: dir },
  );
  const config = loadConfig({
    PDI_DATA_DIR: tempDir(t),
    PDI_DEMO: '0',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    PDI_ADMIN_TOKEN: ADMIN_TOKEN,
    PDI_TLS_CERT: path.join(dir, 'cert.pem'),
    PDI_TLS_KEY: path.join(dir, 'key.pem'),
  });
  const running = await startServer(config, createLogger('silent'));
  t.teardown(() => running.stop());
  t.match(running.url, /^https:/);
  const body = new URLSearchParams({ token: ADMIN_TOKEN }).toString();
  const answer = await new Promise<{ status: number; cookie: string }>((resolve, reject) => {
    const req = https.request(
      `${running.url}/dashboard/sign-in`,
      {
        method: 'POST',
        ca: fs.readFileSync(path.join(dir, 'cert.pem')),
        agent: false,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, cookie: String(res.headers['set-cookie']?.[0]) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  t.equal(answer.status, 303);
  const attributes = answer.cookie
    .split(';')
    .slice(1)
    .map((a) => a.trim());
  t.same(
    attributes.filter((a) => ['HttpOnly', 'SameSite=Strict', 'Path=/dashboard', 'Secure'].includes(a)).sort(),
    ['HttpOnly', 'Path=/dashboard', 'SameSite=Strict', 'Secure'],
    answer.cookie,
  );
});

t.test('when the page after a create is fetched with HEAD first, then the key is still shown by the GET that follows', async (t) => {
  const { client } = await dashboardApp(t);
  await client.signIn();
  t.equal((await client.post('/dashboard/keys', { csrf: await client.csrf(), org: 'Acme', tier: 'free' })).status, 303);
  const head = await fetch(`${client.base}/dashboard`, { method: 'HEAD', headers: { Cookie: client.cookie! } });
  t.equal(head.status, 200);
  t.match((await client.get('/dashboard')).text, /<code id="new-key">pdi_live_/);
  t.notMatch((await client.get('/dashboard')).text, /id="new-key"/, 'and only by it');
});
