// The dashboard in a real browser: Debian's headless Chromium driven by playwright-core. Sign in →
// create a key → see it listed and shown once → use it (200) → revoke it → its next request is 401.
// Without Chromium the test is skipped with a warning, except under CI=true, where it must run.
import { chromium, type Browser } from 'playwright-core';
import t from 'tap';
import { request, startTestApp } from '../helpers/app.js';
import { chromiumPath, skipWithoutChromium, watchProblems } from '../helpers/chromium.js';
import { ADMIN_TOKEN } from '../helpers/dashboard.js';

t.test(
  'when the operator uses the dashboard in Chromium, then a key is created, listed, shown once, works, and fails on its next request once revoked',
  { skip: skipWithoutChromium('the dashboard browser test') },
  async (t) => {
    const app = await startTestApp(t, { env: { PDI_ADMIN_TOKEN: ADMIN_TOKEN } });
    const browser: Browser = await chromium.launch({ executablePath: chromiumPath() });
    t.teardown(() => browser.close());
    const page = await browser.newPage();
    // A policy violation (an inline script or style, anything loaded from elsewhere) is a console error.
    const problems = watchProblems(page);

    await page.goto(`${app.url}/dashboard`);
    t.equal(new URL(page.url()).pathname, '/dashboard/sign-in', 'sent to sign in');
    await page.fill('#token', ADMIN_TOKEN);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/dashboard$/);
    t.equal(await page.textContent('h1'), 'API Tokens');
    const [cookie] = await page.context().cookies();
    t.match(cookie, { name: 'pdi_dashboard', path: '/dashboard', httpOnly: true, sameSite: 'Strict', secure: false });

    const org = 'Acme & <Sons> "Ltd"';
    await page.fill('#org', org);
    await page.selectOption('#tier', 'enterprise');
    await Promise.all([page.waitForURL(/\/dashboard$/), page.click('text=Create key')]);
    const key = (await page.textContent('#new-key'))!;
    t.match(key, /^pdi_live_[A-Za-z0-9]{32}$/, 'the key is shown');
    const [record] = app.app.context.keys.list();
    const row = page.locator(`tr[id="${record!.id}"]`);
    t.equal(await row.locator('td').nth(1).textContent(), org, 'listed under its organization, as typed');
    t.equal(await row.locator('td').nth(2).textContent(), 'enterprise');

    t.equal((await request(app.url, '/v1/usage', { key })).status, 200, 'the key works');
    await page.reload();
    t.equal(await page.locator('#new-key').count(), 0, 'the key is not shown again');
    t.equal(await row.locator('td.num').textContent(), '1 / 1000', 'its request is counted today');
    t.equal(await row.locator('svg.chart rect').count(), 30, 'and charted');

    await Promise.all([page.waitForURL(/\/dashboard$/), row.locator('button', { hasText: 'Revoke' }).click()]);
    t.match(await row.locator('td').last().textContent(), /^Revoked \d{4}-/);
    const refused = await request(app.url, '/v1/usage', { key });
    t.equal(refused.status, 401, 'the revoked key fails on its next request');
    t.same(refused.body, { detail: 'Invalid API key' });

    await Promise.all([page.waitForURL(/\/dashboard\/sign-in$/), page.click('text=Sign out')]);
    t.same(await page.context().cookies(), [], 'the cookie is gone');
    t.same(problems, [], 'no console errors: nothing the policy refused');
  },
);
