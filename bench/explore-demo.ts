// The demo corpus behind a running API with an enterprise key, and Chromium signed in on /explore: what
// bench/explore.ts measures and bench/explore-screenshots.ts photographs. `--data DIR` reuses a folder
// this loaded before (or the grown corpus, loaded with `pdi reindex`); without it the demo is loaded
// through the real pipeline into a fresh folder, removed at the end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadDemo } from '../ingest/demo.js';
import { DocumentStore } from '../ingest/state/documents.js';
import { openRuntime } from '../ingest/runtime.js';
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { CHROMIUM } from '../test/helpers/chromium.js';
import { type BenchApi, createBenchKeys, startBenchApi } from './api-server.js';

export const progress = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

export interface DemoApi {
  api: BenchApi;
  key: string;
  browser: Browser;
  /** Removes what this made (the API, the browser, a fresh data folder). */
  close(): Promise<void>;
}

export async function demoApi(data: string | undefined): Promise<DemoApi> {
  if (CHROMIUM === null) throw new Error('chromium is not installed (apt-get install chromium), or set PDI_CHROMIUM');
  const dataDir = data ? path.resolve(data) : fs.mkdtempSync(path.join(os.tmpdir(), 'pdi-bench-explore-'));
  const loaded = fs.existsSync(DocumentStore.pathIn(dataDir));
  if (!loaded) {
    const runtime = await openRuntime(loadConfig({ PDI_DATA_DIR: dataDir, LOG_LEVEL: 'silent', PDI_MODEL_DIR: '' }), createLogger('silent'));
    progress(`loading the demo corpus into ${dataDir}`);
    await loadDemo(runtime);
    await runtime.close();
  }
  const [key] = createBenchKeys(dataDir, 1);
  const api = await startBenchApi(dataDir, {});
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  return {
    api,
    key: key!,
    browser,
    async close() {
      await browser.close();
      api.stop();
      if (!data) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Opens /explore in `page` and signs in: the key then stays in the tab for every view opened after. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(`${url}/explore`);
  await page.fill('#api-key', key);
  await page.click('#sign-in-form button');
  await page.waitForSelector('body[data-state="ready"]');
}

export interface DemoView {
  name: 'search' | 'entity' | 'analysis' | 'ask';
  /** Its address, without the language. */
  path: string;
}

/** Each view opened on the demo: a search with its facets, the supplier of most contract value, the buyers, a question. */
export async function demoViews(api: BenchApi, key: string): Promise<DemoView[]> {
  const res = await fetch(`${api.url}/v1/aggregate?group_by=supplier&limit=1`, { headers: { Authorization: `Bearer ${key}` } });
  const supplier = ((await res.json()) as { buckets: { key: string }[] }).buckets[0]!.key;
  return [
    { name: 'search', path: `/explore?q=${encodeURIComponent('οδοφωτισμού')}` },
    { name: 'entity', path: `/explore/entity?id=${supplier}` },
    { name: 'analysis', path: '/explore/analysis?group_by=buyer' },
    { name: 'ask', path: `/explore/ask?question=${encodeURIComponent('Ποιος προμήθευσε φωτιστικά σώματα LED οδοφωτισμού;')}` },
  ];
}
