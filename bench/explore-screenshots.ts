// Screenshots of the explore page on the demo corpus, each view at a desktop width in English and at
// a phone's width in Greek, into docs/explore/ (docs/explore.md shows them):
//   node --import tsx bench/explore-screenshots.ts [--data DIR] [--out docs/explore]
// The entity's report is requested first, so its PDF link shows. Needs Chromium (apt-get install chromium).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { demoApi, demoViews, progress, signIn } from './explore-demo.js';

const { values: args } = parseArgs({ options: { data: { type: 'string' }, out: { type: 'string', default: 'docs/explore' } } });
const WIDTHS = [
  { name: 'desktop', lang: 'en', viewport: { width: 1280, height: 900 }, isMobile: false, maxHeight: 1400 },
  { name: 'phone', lang: 'el', viewport: { width: 390, height: 844 }, isMobile: true, maxHeight: 1800 },
] as const;

/** The top of the page, at most `maxHeight` tall: what a view shows first is what a screenshot is for. */
async function shoot(page: Page, file: string, maxHeight: number): Promise<void> {
  const height = Math.min(maxHeight, await page.evaluate(() => document.documentElement.scrollHeight));
  const { width } = page.viewportSize()!;
  await page.screenshot({ path: file, clip: { x: 0, y: 0, width, height }, fullPage: true });
  progress(`${file} ${width}x${height}`);
}

const demo = await demoApi(args.data);
try {
  fs.mkdirSync(args.out!, { recursive: true });
  const views = await demoViews(demo.api, demo.key);
  for (const width of WIDTHS) {
    const context = await demo.browser.newContext({ viewport: width.viewport, isMobile: width.isMobile, locale: width.lang === 'el' ? 'el-GR' : 'en-GB' });
    const page = await context.newPage();
    await page.goto(`${demo.api.url}/explore?lang=${width.lang}`);
    await page.waitForSelector('#sign-in:not([hidden])');
    await shoot(page, path.join(args.out!, `sign-in-${width.name}.png`), width.maxHeight);
    await signIn(page, demo.api.url, demo.key);
    for (const view of views) {
      await page.goto(`${demo.api.url}${view.path}&lang=${width.lang}`);
      await page.waitForSelector('body[data-state="ready"]');
      if (view.name === 'entity') {
        await page.click('#request-report');
        await page.waitForSelector('#report-pdf', { timeout: 120_000 });
      }
      await shoot(page, path.join(args.out!, `${view.name}-${width.name}.png`), width.maxHeight);
    }
    await context.close();
  }
} finally {
  await demo.close();
}
