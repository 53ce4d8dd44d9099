// The served OpenAPI document checked by maintained validators, not only by our own reading of it
// (test/house/openapi.test.ts): the document against the official OpenAPI 3.1 schema
// (@seriousme/openapi-schema-validator), and real responses of the built endpoints against the
// schemas it gives them, by Ajv's JSON Schema 2020-12 dialect (the dialect of OpenAPI 3.1).
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import t from 'tap';
import { startTestApp, type TestApp } from '../helpers/app.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** A JSON pointer token (RFC 6901) inside a URI fragment. */
const token = (s: string) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'));

function responseValidator(doc: any) {
  // OpenAPI keywords (example, x-tier…) are not JSON Schema: not strict. The document is one schema
  // resource, so its #/components/... references resolve inside it.
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
  return (method: string, path: string, status: number, body: unknown): string[] => {
    // A response may be a $ref to components/responses: a pointer cannot pass through it.
    const response = doc.paths[path][method].responses[String(status)];
    const at = response.$ref ?? `#/paths/${token(path)}/${method}/responses/${status}`;
    const ref = `openapi.json${at}/content/${token('application/json')}/schema`;
    const check = ajv.compile({ $ref: ref });
    return check(body) ? [] : (check.errors ?? []).map((e) => `${e.instancePath || '$'} ${e.message} (${e.schemaPath})`);
  };
}

t.test('when the served document is checked against the OpenAPI 3.1 schema, then it is valid', async (t) => {
  const app = await startTestApp(t);
  const doc = (await app.request('/openapi.json')).body;
  const validator = new Validator();
  const res = await validator.validate(doc);
  t.equal(validator.version, '3.1');
  t.same(res.errors ?? [], [], 'no schema errors');
  t.equal(res.valid, true);
});

t.test('when the built endpoints answer, then each body validates against the served document', async (t) => {
  const app: TestApp = await startTestApp(t);
  const validate = responseValidator((await app.request('/openapi.json')).body);
  const free = app.key('free', 'org-a');
  const pro = app.key('pro', 'org-b');
  const ent = app.key('enterprise', 'org-c');
  const cases: { method?: string; url: string; path: string; key?: string; body?: unknown; status: number }[] = [
    { url: '/v1/models', path: '/v1/models', status: 200 },
    { url: '/v1/sources', path: '/v1/sources', key: free, status: 200 },
    { url: '/v1/stats', path: '/v1/stats', key: free, status: 200 },
    { url: '/v1/usage', path: '/v1/usage', key: ent, status: 200 },
    { url: '/v1/ted/documents', path: '/v1/{source}/documents', key: ent, status: 200 },
    { url: '/v1/nope/documents', path: '/v1/{source}/documents', key: ent, status: 404 },
    { url: '/v1/search?q=%CF%83%CF%8D%CE%BC%CE%B2%CE%B1%CF%83%CE%B7', path: '/v1/search', key: ent, status: 200 },
    { url: '/v1/search?q=%CF%83%CF%8D%CE%BC%CE%B2%CE%B1%CF%83%CE%B7&facets=source,year,supplier', path: '/v1/search', key: ent, status: 200 },
    { url: '/v1/search', path: '/v1/search', key: ent, status: 422 },
    { url: '/v1/search?q=x', path: '/v1/search', key: free, status: 403 },
    { url: '/v1/aggregate?group_by=supplier&then_by=month&limit=3', path: '/v1/aggregate', key: pro, status: 200 },
    { url: '/v1/aggregate?group_by=cpv&q=x&since=2024-01-01', path: '/v1/aggregate', key: pro, status: 200 },
    { url: '/v1/aggregate', path: '/v1/aggregate', key: pro, status: 422 },
    { url: '/v1/export?format=pdf', path: '/v1/export', key: pro, status: 422 },
    { url: '/v1/sources', path: '/v1/sources', status: 401 },
    { url: '/v1/entity/090252840', path: '/v1/entity/{identifier}', key: ent, status: 200 },
    { url: '/v1/reports', path: '/v1/reports', key: pro, status: 200 },
    {
      method: 'post',
      url: '/v1/alerts/profiles',
      path: '/v1/alerts/profiles',
      key: pro,
      body: { name: 'n', channels: ['email'], notify_email: 'a@example.com' },
      status: 201,
    },
    { url: '/v1/alerts/profiles', path: '/v1/alerts/profiles', key: pro, status: 200 },
    { url: '/v1/alerts/deliveries', path: '/v1/alerts/deliveries', key: pro, status: 200 },
    { url: '/v1/monitor/entities', path: '/v1/monitor/entities', key: ent, status: 200 },
    { url: '/v1/monitor/events', path: '/v1/monitor/events', key: ent, status: 200 },
  ];
  for (const c of cases) {
    const method = c.method ?? 'get';
    const res = await app.request(c.url, { method: method.toUpperCase(), key: c.key, body: c.body });
    t.equal(res.status, c.status, `${method.toUpperCase()} ${c.url}: ${res.text.slice(0, 200)}`);
    t.same(validate(method, c.path, c.status, res.body), [], `${method.toUpperCase()} ${c.url} ${c.status} matches the document`);
  }
});

t.test('when a body differs from the document, then the validator says so', async (t) => {
  const app = await startTestApp(t);
  const validate = responseValidator((await app.request('/openapi.json')).body);
  t.not(validate('get', '/v1/models', 200, { models: 'none' }).length, 0, 'a wrong type is refused');
  t.not(validate('get', '/v1/sources', 401, {}).length, 0, 'an error without detail is refused');
});
