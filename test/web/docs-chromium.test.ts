// The API reference at /docs in a real browser, under its Content-Security-Policy: Swagger UI (served
// from node_modules) renders the document with nothing refused by the policy. Skipped with a warning
// without Chromium, except under CI=true, as the dashboard's browser test is.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import t from 'tap';
import { startTestApp } from '../helpers/app.js';
import { chromiumPath, skipWithoutChromium, watchProblems } from '../helpers/chromium.js';
import { REPO_ROOT } from '../helpers/paths.js';

t.test(
  'when /docs is opened in Chromium, then Swagger UI renders every path of the document and the policy refuses nothing',
  { skip: skipWithoutChromium('the /docs browser test') },
  async (t) => {
    const app = await startTestApp(t);
    const browser: Browser = await chromium.launch({ executablePath: chromiumPath() });
    t.teardown(() => browser.close());
    const page = await browser.newPage();
    const problems = watchProblems(page);

    const response = await page.goto(`${app.url}/docs`);
    t.match(response!.headers()['content-security-policy'], /script-src 'self'/, 'served under its policy');
    await page.waitForSelector('.swagger-ui .info .title');
    t.match(await page.textContent('.swagger-ui .info .title'), /Greek|API/i, "the document's title is rendered");
    const documented = Object.keys((JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'docs/openapi.json'), 'utf8')) as { paths: object }).paths).length;
    await page.waitForSelector('.opblock');
    t.ok((await page.locator('.opblock').count()) >= documented, 'an operation block per documented path at least');
    t.same(problems, [], 'no console errors: nothing the policy refused');
  },
);
