// GET /openapi.json and GET /docs: the document as it is in docs/, and a reference page that loads
// only what this server serves (no CDN, nothing from outside).
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startTestApp } from '../helpers/app.js';
import { REPO_ROOT } from '../helpers/paths.js';

t.test('when /openapi.json is fetched without a key, then it is docs/openapi.json byte for byte, with no quota', async (t) => {
  const app = await startTestApp(t);
  const res = await app.request('/openapi.json');
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^application\/json/);
  t.equal(res.text, fs.readFileSync(path.join(REPO_ROOT, 'docs/openapi.json'), 'utf8'));
  t.match(res.body.openapi, /^3\.1\./);
  t.equal(res.headers.get('x-ratelimit-limit'), null, 'no quota headers');
});

t.test('when /docs is fetched, then every script and stylesheet it loads is a local path that the server serves', async (t) => {
  const app = await startTestApp(t);
  const page = await app.request('/docs');
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  const refs = [...page.text.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
  t.same(refs.sort(), ['/docs/init.js', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css']);
  t.notMatch(page.text, /<script>|<script [^>]*>[^<]/, 'no inline script');
  for (const ref of refs) {
    const res = await app.request(ref);
    t.equal(res.status, 200, `${ref} is served`);
    t.ok(res.text.length > 0, `${ref} has a body`);
    t.notMatch(res.headers.get('content-type'), /json/, `${ref} is served as a page asset`);
  }
  const css = await app.request('/docs/swagger-ui.css');
  const urls = [...css.text.matchAll(/url\(\s*["']?([^)"']*)/g)].map((m) => m[1]!);
  t.ok(urls.length > 0, 'the stylesheet has url()s');
  t.same(
    urls.filter((u) => !u.startsWith('data:')),
    [],
    'each is inline data: the stylesheet loads no file',
  );
  const init = await app.request('/docs/init.js');
  t.match(init.text, /url: '\/openapi\.json'/, 'the page renders the served document');
  t.match(init.text, /validatorUrl: null/, 'the document is not sent to validator.swagger.io');
});

t.test("when /docs is fetched, then its policy runs only this server's scripts, fetches only this server and forbids framing", async (t) => {
  const app = await startTestApp(t);
  const page = await app.request('/docs');
  const csp = page.headers.get('content-security-policy') ?? '';
  const directives = new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name!, values.join(' ')]),
  );
  t.equal(directives.get('default-src'), "'none'");
  t.equal(directives.get('script-src'), "'self'");
  t.equal(directives.get('connect-src'), "'self'");
  t.equal(directives.get('frame-ancestors'), "'none'");
  t.equal(page.headers.get('x-frame-options'), 'DENY');
});

t.test('when the renderer is served, then it is the pinned swagger-ui-dist of package.json', async (t) => {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
  const pinned: string = pkg.dependencies['swagger-ui-dist'];
  t.match(pinned, /^\d+\.\d+\.\d+$/, 'an exact version');
  const installed = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'node_modules/swagger-ui-dist/package.json'), 'utf8'));
  t.equal(installed.version, pinned);
  const app = await startTestApp(t);
  const bundle = await app.request('/docs/swagger-ui-bundle.js');
  t.equal(bundle.text, fs.readFileSync(path.join(REPO_ROOT, 'node_modules/swagger-ui-dist/swagger-ui-bundle.js'), 'utf8'));
});
