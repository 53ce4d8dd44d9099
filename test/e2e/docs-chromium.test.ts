// The API reference at /docs in a real browser, under its Content-Security-Policy: Swagger UI (served
// from node_modules) renders the document with nothing refused by the policy. Skipped with a warning
// without Chromium, except under CI=true, as the dashboard's browser test is.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import t from 'tap';
import { startTestApp } from '../helpers/app.js';
import { REPO_ROOT } from '../helpers/paths.js';

function findChromium(): string | null {
  if (process.env.PDI_CHROMIUM) return process.env.PDI_CHROMIUM;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir, 'chromium');
    if (dir && fs.existsSync(file)) return file;
  }
  return null;
}

const executablePath = findChromium();
if (executablePath === null && process.env.CI !== 'true') {
  process.stderr.write('WARNING: chromium is not installed (apt-get install chromium); the /docs browser test is skipped\n');
}

t.test(
  'when /docs is opened in Chromium, then Swagger UI renders every path of the document and the policy refuses nothing',
  { skip: executablePath === null && process.env.CI !== 'true' },
  async (t) => {
    if (executablePath === null) throw new Error('CI=true but chromium is not installed (apt-get install chromium, as .ci/run does)');
    const app = await startTestApp(t);
    const browser: Browser = await chromium.launch({ executablePath });
    t.teardown(() => browser.close());
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('response', (r) => r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico' && problems.push(`${r.status()} ${r.url()}`));

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
