// The explore page in Debian's headless Chromium (playwright-core), over a small procurement corpus on
// the embedded engine, one browser and one app: sign in with a key; search in Greek and in English and
// see marked snippets; a facet and a date filter give the API's counts; pages to the last; an entity's
// two charts hold the API's numbers, its report's PDF arrives; the analysis table is /v1/aggregate and
// its CSV downloads; ask shows its sources; a wrong key, a spent quota and an engine outage read as
// messages. Throughout: the policy header, nothing it refuses, and no request with the key in its URL.
import fs from 'node:fs';
import { chromium, type Page } from 'playwright-core';
import t from 'tap';
import { afmCheckDigit } from '../../data/generator/afm.js';
import type { IndexedDocument } from '../../index-mappings/document.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { embeddedIndexPath } from '../../lib/search/index.js';
import { startTestApp, tempDir } from '../helpers/app.js';
import { chromiumPath, skipWithoutChromium, watchProblems } from '../helpers/chromium.js';
import { makeDoc } from '../helpers/elasticsearch.js';
import { contractDoc, ingestDocs } from '../helpers/report-docs.js';

const afm = (first8: string) => first8 + String(afmCheckDigit(first8));
const ATHENS = { name: 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', afm: '090025537' };
const LARISA = { name: 'ΔΗΜΟΣ ΛΑΡΙΣΑΙΩΝ', afm: afm('09022563') };
const ALFA = { name: 'ΑΛΦΑ ΤΕΧΝΙΚΗ ΑΕ', afm: '094014201' };
const VITA = { name: 'ΒΗΤΑ ΗΛΕΚΤΡΙΚΗ ΙΚΕ', afm: afm('80123288') };

/** The parties of a document of Athens as buyer and ΑΛΦΑ as supplier, as ingest writes them. */
const ATHENS_BUYS_FROM_ALFA: Partial<IndexedDocument> = {
  parties: [
    { role: 'buyer', ...ATHENS },
    { role: 'supplier', ...ALFA },
  ],
  entities: { afm: [ATHENS.afm, ALFA.afm], ada: [], names: [ATHENS.name, ALFA.name] },
};

/** 24 KIMDIS contracts over four years, 6 TED notices in English, 4 Diavgeia payments. */
function corpus(): IndexedDocument[] {
  const docs: IndexedDocument[] = [];
  for (let i = 0; i < 24; i++) {
    const lighting = i % 2 === 0;
    docs.push(
      contractDoc(`24SYMV0000000${String(i).padStart(2, '0')}`, {
        buyer: i % 3 === 0 ? LARISA : ATHENS,
        supplier: i % 4 === 3 ? VITA : ALFA,
        value: 10_000 + i * 1_250,
        published: `${2022 + (i % 4)}-0${1 + (i % 9)}-1${i % 10}T10:00:00Z`,
        title: lighting ? `Συντήρηση οδοφωτισμού τμήμα ${i}` : `Προμήθεια καυσίμων παρτίδα ${i}`,
      }),
    );
  }
  for (let i = 0; i < 6; i++) {
    docs.push(
      makeDoc('ted', `00${i}4321-2024`, {
        title: `Greece – Street lighting maintenance services, lot ${i}`,
        content: `Street lighting maintenance services for the municipality of Athens, lot ${i}.`,
        language: 'en',
        doc_category: 'award',
        published_at: `2024-0${i + 1}-05T09:00:00Z`,
        ...ATHENS_BUYS_FROM_ALFA,
        amount: { value: 50_000 + i * 1_000, currency: 'EUR' },
      }),
    );
  }
  for (let i = 0; i < 4; i++) {
    docs.push(
      makeDoc('diavgeia', `ΨΞ8Ε46ΜΤΛΡ-Β${'ΑΒΓΔ'[i]}Ο`, {
        title: `Πληρωμή εργασιών οδοφωτισμού ${i}`,
        content: `Εξόφληση τιμολογίου για εργασίες οδοφωτισμού του δήμου, αρ. ${i}.`,
        doc_category: 'payment',
        published_at: `2025-0${i + 2}-20T08:00:00Z`,
        ...ATHENS_BUYS_FROM_ALFA,
      }),
    );
  }
  return docs;
}

t.test(
  'when a person explores the corpus in Chromium, then every view shows what the API answers, under the policy, and the key never leaves the Authorization header',
  { skip: skipWithoutChromium('the explore browser test') },
  async (t) => {
    const dataDir = tempDir(t);
    // Reads on a reader thread, as the server runs it: closing the engine is then an outage (503).
    const search = new EmbeddedProvider({ file: embeddedIndexPath(dataDir), dimension: 384, embeddingModel: 'pdi/hashing-384', readers: 1 });
    let engineClosed = false;
    t.teardown(() => (engineClosed ? undefined : search.close()));
    const app = await startTestApp(t, { dataDir, search });
    await ingestDocs(app.documents, app.search, corpus());
    const key = app.key('enterprise');
    const api = async (path: string) => {
      const res = await app.request(path, { key });
      t.equal(res.status, 200, `GET ${path}`);
      return res.body;
    };

    const browser = await chromium.launch({ executablePath: chromiumPath() });
    t.teardown(() => browser.close());
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    // Refusals the test asks for: a wrong key (401), the spent quota (429), the engine down (503).
    const problems = watchProblems(page, (status) => [401, 429, 503].includes(status));
    const requests: { url: string; authorization: string | undefined }[] = [];
    page.on('request', (r) => requests.push({ url: r.url(), authorization: r.headers().authorization }));

    /** Goes to an explore address and waits until its view has drawn the API's answer. */
    const open = async (path: string) => {
      await page.goto(`${app.url}${path}`);
      await page.waitForSelector('body[data-state="ready"]');
    };
    const ready = (p: Page) => p.waitForSelector('body[data-state="ready"]');
    const resultsTotal = async () => Number(await page.getAttribute('#results', 'data-total'));

    await t.test('when the page is opened without a key, then it asks for one, under its policy, and refuses a wrong one readably', async (t) => {
      const response = await page.goto(`${app.url}/explore`);
      t.match(response!.headers()['content-security-policy'], /script-src 'self'; style-src 'self'/, 'the policy header');
      await page.waitForSelector('#sign-in:not([hidden])');
      t.ok(await page.isHidden('#view'), 'no view before signing in');
      await page.fill('#api-key', `pdi_live_${'x'.repeat(32)}`);
      await page.click('#sign-in-form button');
      await page.waitForSelector('#sign-in-problem:not([hidden])');
      t.match(await page.textContent('#sign-in-problem'), /The key was not accepted\. The API answered 401: Invalid API key/);
    });

    await t.test('when signed in, then the search of a Greek word lists marked snippets, as many as the API finds', async (t) => {
      await page.fill('#api-key', key);
      await page.click('#sign-in-form button');
      await page.waitForSelector('#view:not([hidden])');
      t.match(await page.textContent('#account'), /^enterprise key: 999 of 1,000 requests left today$/);
      await page.fill('#f-q', 'οδοφωτισμού');
      await Promise.all([page.waitForURL(/q=/), page.click('#view-form button[type=submit]')]);
      await ready(page);
      const expected = await api(`/v1/search?q=${encodeURIComponent('οδοφωτισμού')}&limit=20`);
      t.equal(await resultsTotal(), expected.total, `the count is the API's (${expected.total})`);
      t.equal(await page.locator('ol.results > li').count(), Math.min(20, expected.total));
      t.match(await page.locator('ol.results mark').first().textContent(), /οδοφωτισμού/i, 'the matched word is marked');
      t.equal(await page.getAttribute('ol.results h3 a >> nth=0', 'href'), expected.results[0].source_url, 'the title links to the original');
      const curl = await page.textContent('#request-list pre');
      t.match(curl, /Authorization: Bearer \$PDI_KEY/, 'the request as curl, the key left as $PDI_KEY');
      t.match(curl, /--data-urlencode 'q=οδοφωτισμού'/);
      t.notMatch(curl, key);
    });

    await t.test('when a facet and then a date filter are applied, then the count is the API’s for them', async (t) => {
      await Promise.all([page.waitForURL(/source=diavgeia/), page.click('a[data-facet="source"][data-key="diavgeia"]')]);
      await ready(page);
      const bySource = await api(`/v1/search?q=${encodeURIComponent('οδοφωτισμού')}&source=diavgeia`);
      t.equal(await resultsTotal(), bySource.total, `diavgeia: ${bySource.total}`);
      t.ok(bySource.total > 0);

      await page.goto(`${app.url}/explore?q=${encodeURIComponent('οδοφωτισμού')}`);
      await ready(page);
      await page.fill('#f-since', '2024-01-01');
      await Promise.all([page.waitForURL(/since=2024-01-01/), page.click('#view-form button[type=submit]')]);
      await ready(page);
      const since = await api(`/v1/search?q=${encodeURIComponent('οδοφωτισμού')}&since=2024-01-01`);
      t.equal(await resultsTotal(), since.total, `since 2024: ${since.total}`);
      t.ok(since.total > 0 && since.total < (await api(`/v1/search?q=${encodeURIComponent('οδοφωτισμού')}`)).total, 'the date filter narrows');
    });

    await t.test('when the last page is asked for, then it holds what is left after the pages before it', async (t) => {
      await open(`/explore?q=${encodeURIComponent('οδοφωτισμού')}&limit=10`);
      const total = await resultsTotal();
      await Promise.all([page.waitForURL(/offset=/), page.click('.pager a[data-page="last"]')]);
      await ready(page);
      t.equal(await page.locator('ol.results > li').count(), total - Math.floor((total - 1) / 10) * 10);
      t.equal(await page.locator('.pager a[data-page="next"]').count(), 0, 'no page after the last');
    });

    await t.test('when an English query is searched, then English titles are found with the word marked', async (t) => {
      await open('/explore?q=lighting');
      const expected = await api('/v1/search?q=lighting');
      t.ok(expected.total >= 6, `${expected.total} found`);
      t.equal(await resultsTotal(), expected.total);
      t.match(await page.locator('ol.results mark').first().textContent(), /lighting/i);
    });

    await t.test('when the language is switched, then the labels are Greek and the search is kept', async (t) => {
      await Promise.all([page.waitForURL(/lang=el/), page.click('.lang a')]);
      await ready(page);
      t.equal(await page.getAttribute('html', 'lang'), 'el');
      t.equal(await page.textContent('nav a[aria-current="page"]'), 'Αναζήτηση');
      t.equal(await page.inputValue('#f-q'), 'lighting');
      await Promise.all([page.waitForURL(/lang=en/), page.click('.lang a')]);
    });

    await t.test('when the page is used by keyboard alone, then a search and a facet are reached and applied, and every control has a name', async (t) => {
      await open('/explore?q=lighting');
      await page.keyboard.press('Tab');
      t.equal(await page.evaluate(() => document.activeElement?.className), 'skip', 'the first stop skips to the content');
      await page.keyboard.press('Enter');
      /** Tabs on until the focused element matches, at most 60 stops. */
      const tabTo = async (selector: string) => {
        for (let i = 0; i < 60; i++) {
          if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return true;
          await page.keyboard.press('Tab');
        }
        return false;
      };
      t.ok(await tabTo('#f-q'), 'the search words');
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.type('οδοφωτισμού');
      await Promise.all([page.waitForURL(/q=%CE%BF/), page.keyboard.press('Enter')]);
      await ready(page);
      t.ok(await tabTo('a[data-facet="year"]'), 'a facet');
      const year = await page.evaluate(() => document.activeElement!.getAttribute('data-key'));
      await Promise.all([page.waitForURL(new RegExp(`since=${year}-01-01`)), page.keyboard.press('Enter')]);
      await ready(page);
      t.equal(await resultsTotal(), (await api(`/v1/search?q=${encodeURIComponent('οδοφωτισμού')}&since=${year}-01-01&until=${year}-12-31`)).total);
      const unnamed = await page.evaluate(() =>
        [...document.querySelectorAll('a, button, input:not([type=hidden]), select, textarea, summary')]
          .filter((e) => (e as HTMLElement).offsetParent !== null || e.tagName === 'SUMMARY')
          .filter((e) => {
            const labelled = (e as HTMLInputElement).labels?.length || e.getAttribute('aria-label') || e.getAttribute('aria-labelledby');
            return !labelled && (e.textContent ?? '').trim() === '';
          })
          .map((e) => e.outerHTML.slice(0, 80)),
      );
      t.same(unnamed, [], 'every link, button and control has an accessible name');
    });

    await t.test('when an entity is opened, then its charts by year and of counterparties hold the API’s numbers', async (t) => {
      await open(`/explore/entity?id=${ALFA.afm}`);
      const entity = await api(`/v1/entity/${ALFA.afm}?type=afm&limit=50`);
      const years = await api(`/v1/aggregate?party=${ALFA.afm}&group_by=year&limit=100`);
      t.equal(await page.textContent('#entity-name'), ALFA.name);
      const bars = await page.$$eval('#chart-years [data-key]', (els) => els.map((e) => [e.getAttribute('data-key'), Number(e.getAttribute('data-value'))]));
      t.same(
        bars,
        years.buckets.map((b: { key: string; value_sum: number }) => [b.key, b.value_sum]).sort((a: string[], b: string[]) => (a[0] < b[0] ? -1 : 1)),
        'a column per year, its value the aggregate’s',
      );
      const parties = await page.$$eval('#chart-counterparties [data-key]', (els) =>
        els.map((e) => [e.getAttribute('data-key'), Number(e.getAttribute('data-value'))]),
      );
      t.same(
        parties,
        entity.counterparties.map((c: { role: string; afm: string; documents: number }) => [`${c.role}:${c.afm}`, c.documents]),
        'a bar per counterparty, its documents the entity’s',
      );
      t.equal(await page.locator('#timeline circle').count(), entity.matches.length, 'a dot per document listed');
      t.equal(await page.locator('#request-list > li').count(), 2, 'both requests are shown');
    });

    await t.test('when a report is requested, then its PDF is linked once ready and downloads as a PDF', async (t) => {
      await page.click('#request-report');
      await page.waitForSelector('#report-pdf');
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#report-pdf')]);
      t.match(download.suggestedFilename(), /^report-[0-9a-f-]+\.pdf$/);
      t.equal(
        fs
          .readFileSync((await download.path())!)
          .subarray(0, 5)
          .toString(),
        '%PDF-',
      );
    });

    await t.test('when the analysis view groups by supplier, then its table is /v1/aggregate and its CSV downloads', async (t) => {
      await open('/explore/analysis?group_by=supplier');
      const expected = await api('/v1/aggregate?group_by=supplier&order_by=value&limit=20');
      const rows = await page.$$eval('#aggregate-table tbody tr[data-key]', (els) => els.map((e) => e.getAttribute('data-key')));
      t.same(
        rows,
        expected.buckets.map((b: { key: string }) => b.key),
        'the buckets in the API’s order',
      );
      const chart = await page.$$eval('#aggregate-chart [data-key]', (els) => els.map((e) => Number(e.getAttribute('data-value'))));
      t.same(
        chart,
        expected.buckets.map((b: { value_sum: number }) => b.value_sum),
      );
      t.match(await page.textContent('#aggregate-table tfoot'), String(expected.totals.documents));
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
      t.equal(download.suggestedFilename(), 'export.csv');
      const csv = fs.readFileSync((await download.path())!, 'utf8');
      t.equal(csv.split('\r\n').filter(Boolean).length, expected.totals.documents + 1, 'a line per document and the header');
    });

    await t.test('when a question is asked, then its sources are listed with their passages', async (t) => {
      await open(`/explore/ask?question=${encodeURIComponent('Ποιος συντηρεί τον οδοφωτισμό;')}&limit=3`);
      t.equal(await page.locator('ol.sources > li').count(), 3);
      t.ok((await page.locator('ol.sources blockquote').count()) >= 1, 'passages');
      t.match(await page.textContent('#answer'), /Found 3 relevant documents/);
    });

    await t.test('when the quota of the key signing in is spent, then the page says so', async (t) => {
      const spent = app.key('pro');
      for (let i = 0; i < 100; i++) await app.request('/v1/usage', { key: spent });
      await page.click('#sign-out');
      await page.fill('#api-key', spent);
      await page.click('#sign-in-form button');
      await page.waitForSelector('#sign-in-problem:not([hidden])');
      t.match(await page.textContent('#sign-in-problem'), /No requests are left\. The API answered 429: Daily quota exceeded\. Resets at /);
    });

    await t.test('when the engine is down, then the search says so', async (t) => {
      await page.fill('#api-key', key);
      await page.click('#sign-in-form button');
      await ready(page);
      await search.close();
      engineClosed = true;
      await open('/explore?q=lighting');
      t.match(await page.textContent('#problem'), /The service cannot answer right now\. The API answered 503: /);
    });

    t.same(
      requests.filter((r) => r.url.includes(key)),
      [],
      'no request carries the key in its URL',
    );
    const apiRequests = requests.filter((r) => new URL(r.url).pathname.startsWith('/v1/'));
    t.ok(apiRequests.length > 10, `${apiRequests.length} API requests`);
    t.same(
      apiRequests.filter((r) => !/^Bearer pdi_live_/.test(r.authorization ?? '')),
      [],
      'every API request sends a key in its Authorization header',
    );
    t.same(problems, [], 'no console errors: nothing the policy refused');
  },
);
