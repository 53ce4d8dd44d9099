// The explore page as HTTP (api/explore/): each view's frame without a key, under its policy; the
// controls filled from the address and escaped; the language chosen; the assets served under their
// digest. What the page does in a browser is test/web/explore-chromium.test.ts.
import t from 'tap';
import { labelsIn } from '../../api/explore/strings.js';
import { startTestApp } from '../helpers/app.js';

const VIEWS = ['/explore', '/explore/entity', '/explore/analysis', '/explore/ask'];

t.test(
  'when each view is fetched without a key, then it is HTML under a policy that runs only its own script, framed nowhere, sending no referrer',
  async (t) => {
    const app = await startTestApp(t);
    for (const path of VIEWS) {
      for (const method of ['GET', 'HEAD']) {
        const res = await app.request(path, { method });
        t.equal(res.status, 200, `${method} ${path}`);
        t.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
        const policy = res.headers.get('content-security-policy') ?? '';
        t.match(policy, /default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'/, 'no inline script or style, no other origin');
        t.match(policy, /frame-ancestors 'none'/);
        t.match(policy, /require-trusted-types-for 'script'/);
        t.equal(res.headers.get('x-frame-options'), 'DENY');
        t.equal(res.headers.get('referrer-policy'), 'no-referrer');
        t.equal(res.headers.get('cache-control'), 'no-store');
        t.equal(res.headers.get('x-ratelimit-limit'), null, 'no key, no quota');
      }
    }
    t.equal((await app.request('/explore/nothing')).status, 404);
  },
);

t.test('when the page is read, then it has no inline script or style, and its labels block is the language’s labels as data', async (t) => {
  const app = await startTestApp(t);
  const page = (await app.request('/explore?lang=el')).text;
  const scripts = [...page.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
  t.same(
    scripts.filter(([, attrs, body]) => !/type="application\/json"/.test(attrs) && (body.trim() !== '' || !/ src="/.test(attrs))),
    [],
    'every script is a file',
  );
  t.notMatch(page, /\sstyle=|<style/, 'no inline style');
  const block = /<script type="application\/json" id="labels">([\s\S]*?)<\/script>/.exec(page)?.[1] ?? '';
  t.same(JSON.parse(block), labelsIn('el'));
});

t.test('when the page is asked for in a language, then it is written in it: lang first, else the browser’s preference, else English', async (t) => {
  const app = await startTestApp(t);
  const lang = async (path: string, accept?: string) => {
    const text = (await app.request(path, { headers: accept ? { 'Accept-Language': accept } : {} })).text;
    return [/<html lang="(\w+)">/.exec(text)?.[1], /<h1 id="view-title"[^>]*>([^<]*)</.exec(text)?.[1]];
  };
  t.same(await lang('/explore'), ['en', 'Search']);
  t.same(await lang('/explore', 'el-GR,el;q=0.9,en;q=0.8'), ['el', 'Αναζήτηση']);
  t.same(await lang('/explore', 'fr-FR,en;q=0.5'), ['en', 'Search']);
  t.same(await lang('/explore/analysis?lang=el', 'en-GB'), ['el', 'Ανάλυση']);
  t.same(await lang('/explore/ask?lang=xx', 'el'), ['el', 'Ερώτηση'], 'an unknown lang is ignored');
  const switchTo = /<p class="lang"><a href="([^"]+)"/.exec((await app.request('/explore?q=a%26b&source=ted')).text)?.[1];
  t.equal(switchTo, '/explore?q=a%26b&amp;source=ted&amp;lang=el', 'the other language keeps the view’s state');
});

t.test('when the address holds values, then the form shows them, escaped', async (t) => {
  const app = await startTestApp(t);
  const hostile = '"><script>alert(1)</script>';
  const page = (await app.request(`/explore?q=${encodeURIComponent(hostile)}&source=ted&buyer=090025537&single_bid=true`)).text;
  t.match(page, `value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"`, 'the words, escaped');
  t.notMatch(page, '<script>alert(1)');
  t.match(page, '<option value="ted" selected>');
  t.match(page, /<details open>/, 'the more filters are open when one of them is set');
  t.match(page, 'id="f-buyer" name="buyer" value="090025537"');
  t.match(page, /id="f-single_bid" name="single_bid" value="true" checked/);
  const ask = (await app.request(`/explore/ask?question=${encodeURIComponent('</textarea><b>x')}`)).text;
  t.match(ask, '&lt;/textarea&gt;&lt;b&gt;x</textarea>');
});

t.test('when the assets the page names are fetched, then each is served with its type under a path of its content, kept for good', async (t) => {
  const app = await startTestApp(t);
  const page = (await app.request('/explore')).text;
  const named = [...page.matchAll(/(?:src|href)="(\/explore\/assets\/[0-9a-f]{12}\/[\w.-]+)"/g)].map((m) => m[1]!);
  const names = named.map((p) => p.replace(/.*\//, ''));
  t.same(names.slice(0, 2), ['explore.css', 'main.js'], 'the stylesheet and the script');
  for (const path of named) {
    const res = await app.request(path);
    t.equal(res.status, 200, path);
    t.match(res.headers.get('content-type'), path.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
    t.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  }
  // Every module the script imports is preloaded, so none waits for the one importing it.
  const base = named[1]!.replace(/\/main\.js$/, '');
  const imported = new Set<string>();
  for (const path of named.filter((p) => p.endsWith('.js'))) {
    for (const [, module] of (await app.request(path)).text.matchAll(/from '\.\/([\w-]+\.js)'/g)) imported.add(module!);
  }
  t.same([...imported].sort(), names.slice(2).sort(), 'the modules imported are those preloaded');
  t.ok(imported.size >= 5, `${imported.size} modules`);
  t.equal((await app.request(`${base}/nothing.js`)).status, 404);
  t.equal((await app.request('/explore/assets/000000000000/main.js')).status, 404, 'another digest is not served');
});
