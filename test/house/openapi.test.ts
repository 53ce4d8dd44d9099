// Keeps docs/openapi.json true to the code and to the API contract:
// structure, the route table (CONTRACT_ROUTES + the public route), tiers, limits, error bodies, and — against the
// app running in-process — the tier gates and the response shapes of the routes that are built.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { TIERS, type Tier } from '../../api/db/keys.js';
import { UPGRADE_HINT } from '../../api/presenters/document.js';
import { CONTRACT_ROUTES } from '../../api/routes/contract-routes.js';
import { CHANNEL_SCHEMAS, withChannelSchemas } from '../../api/alerts/openapi.js';
import { FULL_CONTENT_FIELDS, METADATA_FIELDS, type IndexedDocument } from '../../index-mappings/document.js';
import { resolveSource, SOURCE_NAMES } from '../../index-mappings/sources.js';
import { SEARCH_SORTS } from '../../lib/search/provider.js';
import { FILTER_NAMES, filterParameterName, filterParameters, filtersObjectSchema } from '../../lib/search/filters.js';
import { startTestApp, type TestResponse } from '../helpers/app.js';
import { REPO_ROOT } from '../helpers/paths.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const DOC_FILE = path.join(REPO_ROOT, 'docs/openapi.json');
// The alert-profile schemas follow from the channel registry (api/alerts/openapi.ts): as a mapping
// snapshot is, `npx tap --snapshot test/house/openapi.test.ts` writes them into the file before it is read.
if (t.writeSnapshot) fs.writeFileSync(DOC_FILE, `${JSON.stringify(withChannelSchemas(JSON.parse(fs.readFileSync(DOC_FILE, 'utf8'))), null, 2)}\n`);
const DOC: Json = JSON.parse(fs.readFileSync(DOC_FILE, 'utf8'));

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

interface Operation {
  key: string; // "GET /v1/search"
  method: string;
  path: string;
  op: Json;
}

function operationsOf(pathItems: Json): Operation[] {
  const out: Operation[] = [];
  for (const [p, item] of Object.entries<Json>(pathItems ?? {})) {
    for (const m of METHODS) {
      if (item[m]) out.push({ key: `${m.toUpperCase()} ${p}`, method: m, path: p, op: item[m] });
    }
  }
  return out;
}

const OPS = operationsOf(DOC.paths);
const opByKey = new Map(OPS.map((o) => [o.key, o]));

function op(key: string): Json {
  const o = opByKey.get(key);
  if (!o) throw new Error(`not documented: ${key}`);
  return o.op;
}

/** Resolves a local JSON pointer (`#/components/...`); undefined when it points nowhere. */
function pointer(ref: string): Json {
  if (!ref.startsWith('#/')) return undefined;
  let node: Json = DOC;
  for (const raw of ref.slice(2).split('/')) {
    const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(part in node)) return undefined;
    node = node[part];
  }
  return node;
}

/** Follows $ref chains. */
function deref(node: Json): Json {
  let n = node;
  for (let i = 0; n && typeof n === 'object' && typeof n.$ref === 'string'; i++) {
    if (i > 20) throw new Error(`$ref cycle at ${node.$ref}`);
    const next = pointer(n.$ref);
    if (next === undefined) throw new Error(`unresolved $ref ${n.$ref}`);
    n = next;
  }
  return n;
}

function allRefs(node: Json, at = '#', out: { at: string; ref: string }[] = []): { at: string; ref: string }[] {
  if (Array.isArray(node)) node.forEach((v, i) => allRefs(v, `${at}/${i}`, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries<Json>(node)) {
      if (k === '$ref' && typeof v === 'string') out.push({ at, ref: v });
      else allRefs(v, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
    }
  }
  return out;
}

function paramsOf(o: Json): Json[] {
  return (o.parameters ?? []).map(deref);
}

function param(o: Json, name: string, where = 'query'): Json {
  return paramsOf(o).find((p) => p.name === name && p.in === where);
}

// ---------------------------------------------------------------------------------------------------
// A small JSON Schema (2020-12 subset) validator: enough for the keywords the document uses in responses.

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function validate(schemaIn: Json, value: unknown, at = '$'): string[] {
  const schema = deref(schemaIn);
  if (schema === true || schema === undefined) return [];
  if (schema === false) return [`${at}: not allowed`];
  const errs: string[] = [];
  if (schema.type !== undefined) {
    const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    const actual = typeOf(value);
    if (!types.includes(actual) && !(actual === 'integer' && types.includes('number'))) {
      return [`${at}: expected ${types.join('|')}, got ${actual}`];
    }
  }
  if (schema.const !== undefined && value !== schema.const) errs.push(`${at}: expected ${JSON.stringify(schema.const)}`);
  if (schema.enum && !schema.enum.includes(value)) errs.push(`${at}: ${JSON.stringify(value)} not in ${schema.enum.join(', ')}`);
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) errs.push(`${at}: below ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) errs.push(`${at}: above ${schema.maximum}`);
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) errs.push(`${at}: shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength) errs.push(`${at}: longer than ${schema.maxLength}`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) errs.push(`${at}: does not match ${schema.pattern}`);
    if (schema.format === 'date-time' && !DATE_TIME.test(value)) errs.push(`${at}: not a date-time`);
    if (schema.format === 'uuid' && !UUID.test(value)) errs.push(`${at}: not a uuid`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) errs.push(`${at}: fewer than ${schema.minItems} items`);
    if (schema.items) value.forEach((v, i) => errs.push(...validate(schema.items, v, `${at}[${i}]`)));
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const r of schema.required ?? []) if (!(r in obj)) errs.push(`${at}: missing ${r}`);
    const props = schema.properties ?? {};
    for (const [k, v] of Object.entries(obj)) {
      if (schema.propertyNames) errs.push(...validate(schema.propertyNames, k, `${at}{${k}}`));
      if (k in props) errs.push(...validate(props[k], v, `${at}.${k}`));
      else if (schema.additionalProperties === false) errs.push(`${at}: unexpected ${k}`);
      else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        errs.push(...validate(schema.additionalProperties, v, `${at}.${k}`));
      }
    }
  }
  for (const s of schema.allOf ?? []) errs.push(...validate(s, value, at));
  if (schema.anyOf && !schema.anyOf.some((s: Json) => validate(s, value, at).length === 0)) errs.push(`${at}: matches none of anyOf`);
  if (schema.oneOf && schema.oneOf.filter((s: Json) => validate(s, value, at).length === 0).length !== 1) {
    errs.push(`${at}: does not match exactly one of oneOf`);
  }
  return errs;
}

/** The schema the document gives for `status` of an operation, for a content type. */
function responseSchema(o: Json, status: number | string, type = 'application/json'): Json {
  const r = deref(o.responses[String(status)]);
  if (!r) throw new Error(`no ${status} response documented`);
  return r.content?.[type]?.schema;
}

// ---------------------------------------------------------------------------------------------------
// What the code and the contract say, for comparison.

const toOpenApi = (p: string) => p.replace(/:(\w+)/g, '{$1}');
const HTTP: Record<string, string> = { get: 'GET', post: 'POST', put: 'PUT', del: 'DELETE' };

/** The code's route table: CONTRACT_ROUTES (every gated route and its tier) plus the public one. */
const CODE_ROUTES = new Map<string, Tier | 'none'>([
  ...CONTRACT_ROUTES.map(([m, p, tier]) => [`${HTTP[m]} ${toOpenApi(p)}`, tier] as [string, Tier]),
  ['GET /v1/models', 'none'],
]);

/** Contract section 4, transcribed: every endpoint and its lowest tier. */
const CONTRACT_TIERS: Record<string, Tier | 'none'> = {
  'GET /v1/sources': 'free',
  'GET /v1/search': 'pro',
  // Beyond the contract's section 4: analysis across the corpus, with the tier of search.
  'GET /v1/aggregate': 'pro',
  'GET /v1/export': 'pro',
  'GET /v1/{source}/documents': 'free',
  'GET /v1/documents/{source_id}/content': 'enterprise',
  'GET /v1/stats': 'free',
  'GET /v1/usage': 'free',
  'POST /v1/ask': 'enterprise',
  'GET /v1/entity/{identifier}': 'enterprise',
  'GET /v1/similar/{source_id}': 'enterprise',
  'GET /v1/models': 'none',
  'POST /v1/reports': 'pro',
  'GET /v1/reports': 'pro',
  'GET /v1/reports/{id}': 'pro',
  'GET /v1/reports/{id}/pdf': 'pro',
  'POST /v1/alerts/profiles': 'pro',
  'GET /v1/alerts/profiles': 'pro',
  'PUT /v1/alerts/profiles/{id}': 'pro',
  'DELETE /v1/alerts/profiles/{id}': 'pro',
  'GET /v1/alerts/deliveries': 'pro',
  'POST /v1/monitor/entities': 'enterprise',
  'GET /v1/monitor/entities': 'enterprise',
  'DELETE /v1/monitor/entities/{id}': 'enterprise',
  'GET /v1/monitor/events': 'enterprise',
  'POST /v1/monitor/events/{id}/acknowledge': 'enterprise',
  'GET /v1/monitor/entities/{id}/report': 'enterprise',
};

/** Contract section 8 (and 4): the `limit` of each operation that has one. */
const CONTRACT_LIMITS: Record<string, { min: number; max: number; default: number }> = {
  'GET /v1/search': { min: 1, max: 1000, default: 100 },
  'GET /v1/{source}/documents': { min: 1, max: 1000, default: 100 },
  'GET /v1/similar/{source_id}': { min: 1, max: 100, default: 10 },
  'GET /v1/reports': { min: 1, max: 100, default: 20 },
  'GET /v1/alerts/profiles': { min: 1, max: 100, default: 20 },
  'GET /v1/alerts/deliveries': { min: 1, max: 100, default: 20 },
  'GET /v1/monitor/entities': { min: 1, max: 100, default: 20 },
  'GET /v1/monitor/events': { min: 1, max: 100, default: 20 },
  // Not in the contract's table: the entity's matches are paged like the other lists of section 8.
  'GET /v1/entity/{identifier}': { min: 1, max: 100, default: 20 },
  // Buckets at each level, not a page: no offset.
  'GET /v1/aggregate': { min: 1, max: 100, default: 10 },
};
/** Operations whose `limit` is no page size: no offset beside it. */
const UNPAGED = ['GET /v1/similar/{source_id}', 'GET /v1/aggregate'];

const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Tier'];

// ---------------------------------------------------------------------------------------------------
// (a) Structure.

t.test('when the document is read, then it is OpenAPI 3.1 version 1.0.0 with a relative server and bearer security', async (t) => {
  t.match(DOC.openapi, /^3\.1\.\d+$/);
  t.equal(DOC.info.version, '1.0.0');
  t.type(DOC.info.title, 'string');
  t.match(DOC.info.description, /free.*5/s, 'the description summarises the Free quota');
  t.match(DOC.info.description, /pro.*100/s);
  t.match(DOC.info.description, /enterprise.*1,000/s);
  // Relative: Swagger UI's "Try it out" and generated clients call where the document came from, on any port.
  t.same(
    DOC.servers.map((s: Json) => s.url),
    ['/'],
  );
  t.equal(new URL(DOC.servers[0].url, 'http://127.0.0.1:8131/openapi.json').origin, 'http://127.0.0.1:8131');
  const bearer = DOC.components.securitySchemes.bearer;
  t.equal(bearer.type, 'http');
  t.equal(bearer.scheme, 'bearer');
  t.match(bearer.bearerFormat, /^pdi_live_/);
  t.same(DOC.security, [{ bearer: [] }]);
});

t.test('when a linter reads the info object, then it states a licence with a name and an SPDX identifier', async (t) => {
  // Redocly's recommended rules warn on a missing licence (info-license) and on one with neither url nor identifier.
  t.type(DOC.info.license?.name, 'string');
  t.match(DOC.info.license?.identifier, /^(LicenseRef-[\w.-]+|[\w.+-]+)$/);
  t.notOk('url' in (DOC.info.license ?? {}), 'identifier and url exclude each other in OpenAPI 3.1');
});

t.test('when every $ref is followed, then each one resolves inside the document', async (t) => {
  const refs = allRefs(DOC);
  t.ok(refs.length > 50, `the document uses $ref (${refs.length})`);
  const broken = refs.filter((r) => pointer(r.ref) === undefined).map((r) => `${r.at} -> ${r.ref}`);
  t.same(broken, [], 'no dangling $ref');
});

t.test('when operations, parameters, bodies, responses and media types are read, then each holds only the fields OpenAPI 3.1 allows it', async (t) => {
  // OpenAPI 3.1 section 4.8: these objects are closed (plus x- extensions); a viewer refuses a stray
  // field, as one did a `description` inside a media type.
  const ALLOWED: Record<string, string[]> = {
    operation: [
      'tags',
      'summary',
      'description',
      'externalDocs',
      'operationId',
      'parameters',
      'requestBody',
      'responses',
      'callbacks',
      'deprecated',
      'security',
      'servers',
    ],
    parameter: [
      'name',
      'in',
      'description',
      'required',
      'deprecated',
      'allowEmptyValue',
      'style',
      'explode',
      'allowReserved',
      'schema',
      'example',
      'examples',
      'content',
    ],
    requestBody: ['description', 'content', 'required'],
    response: ['description', 'headers', 'content', 'links'],
    header: ['description', 'required', 'deprecated', 'style', 'explode', 'schema', 'example', 'examples', 'content'],
    mediaType: ['schema', 'example', 'examples', 'encoding'],
  };
  const stray: string[] = [];
  const check = (kind: string, obj: Json, at: string) => {
    for (const key of Object.keys(obj)) if (!ALLOWED[kind]!.includes(key) && !key.startsWith('x-')) stray.push(`${at}: ${key}`);
  };
  const media = (content: Json, at: string) => {
    for (const [type, m] of Object.entries(content ?? {})) check('mediaType', m, `${at} ${type}`);
  };
  for (const o of [...OPS, ...operationsOf(DOC.webhooks)]) {
    check('operation', o.op, o.key);
    for (const p of o.op.parameters ?? []) check('parameter', deref(p), `${o.key} parameter`);
    if (o.op.requestBody) {
      const body = deref(o.op.requestBody);
      check('requestBody', body, `${o.key} requestBody`);
      media(body.content, `${o.key} requestBody`);
    }
    for (const [status, r] of Object.entries(o.op.responses)) {
      const res = deref(r);
      check('response', res, `${o.key} ${status}`);
      media(res.content, `${o.key} ${status}`);
      for (const [name, h] of Object.entries(res.headers ?? {})) check('header', deref(h), `${o.key} ${status} header ${name}`);
    }
  }
  t.same(stray, [], "no field outside the object's kind");
});

t.test('when every operation is inspected, then it has a unique operationId, a summary, responses and an x-tier', async (t) => {
  const all = [...OPS, ...operationsOf(DOC.webhooks)];
  t.ok(OPS.length >= 25, `operations documented: ${OPS.length}`);
  const ids = all.map((o) => o.op.operationId);
  for (const o of all) {
    t.match(o.op.operationId, /^[a-z][A-Za-z]+$/, `${o.key} operationId`);
    t.type(o.op.summary, 'string', `${o.key} summary`);
    t.ok(o.op.responses && Object.keys(o.op.responses).length > 0, `${o.key} responses`);
    t.ok(['none', ...TIERS].includes(o.op['x-tier']), `${o.key} x-tier is ${o.op['x-tier']}`);
    t.ok(
      Object.keys(o.op.responses).some((s) => /^2(\d\d|XX)$/.test(s)),
      `${o.key} has a success response`,
    );
  }
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique');
});

t.test('when a path has {parameters}, then each is declared once as a required path parameter, and no other', async (t) => {
  for (const o of OPS) {
    const inTemplate = [...o.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    const declared = paramsOf(o.op).filter((p) => p.in === 'path');
    t.same(declared.map((p) => p.name).sort(), inTemplate, `${o.key} path parameters`);
    for (const p of declared) t.equal(p.required, true, `${o.key} {${p.name}} is required`);
    for (const p of paramsOf(o.op)) t.ok(p.schema?.type || p.schema?.$ref, `${o.key} ${p.name} has a typed schema`);
  }
});

// ---------------------------------------------------------------------------------------------------
// (b) The document matches the code's route table.

t.test('when the documented operations are compared with the code routes, then both sets are equal and tiers agree', async (t) => {
  t.equal(CODE_ROUTES.size, CONTRACT_ROUTES.length + 1, 'CONTRACT_ROUTES has no duplicate routes');
  const documented = new Set(OPS.map((o) => o.key));
  const missing = [...CODE_ROUTES.keys()].filter((k) => !documented.has(k));
  const extra = [...documented].filter((k) => !CODE_ROUTES.has(k));
  t.same(missing, [], 'every code route is documented');
  t.same(extra, [], 'the document has no operation the code lacks');
  for (const [key, tier] of CODE_ROUTES) {
    if (opByKey.has(key)) t.equal(op(key)['x-tier'], tier, `${key} x-tier equals the code`);
  }
});

t.test('when GET /v1/models is documented, then it overrides security to none and the rest keep the global bearer', async (t) => {
  t.same(op('GET /v1/models').security, []);
  t.notOk(op('GET /v1/models').responses['401'], 'no 401 for the public route');
  for (const o of OPS.filter((x) => x.key !== 'GET /v1/models')) {
    t.equal(o.op.security, undefined, `${o.key} inherits the global security`);
    t.ok(o.op.responses['401'], `${o.key} documents 401`);
    t.ok(o.op.responses['429'], `${o.key} documents 429`);
  }
});

t.test("when the document names sources, document fields and tiers, then they are the code's", async (t) => {
  const s = DOC.components.schemas;
  t.same(s.SourceName.enum, [...SOURCE_NAMES], 'canonical source names');
  const aliases = s.SourceNameOrAlias.enum.filter((n: string) => !(SOURCE_NAMES as readonly string[]).includes(n));
  t.same(aliases, ['e_procurement'], 'the only alias');
  t.equal(resolveSource('e_procurement'), 'kimdis', 'the alias means kimdis in the code');
  t.same(
    s.SourceNameOrAlias.enum.filter((n: string) => n !== 'e_procurement'),
    [...SOURCE_NAMES],
  );
  t.same(s.DocumentMetadata.required, [...METADATA_FIELDS], 'metadata fields');
  t.same(Object.keys(s.DocumentMetadata.properties), [...METADATA_FIELDS, '_upgrade_hint']);
  t.notOk(s.DocumentMetadata.required.includes('_upgrade_hint'), '_upgrade_hint is optional');
  const full = s.DocumentFull.allOf.map(deref).find((x: Json) => !x.allOf && x.properties?.content);
  t.same(full.required, [...FULL_CONTENT_FIELDS], 'full-content fields');
  t.same(s.Tier.enum, [...TIERS]);
});

// ---------------------------------------------------------------------------------------------------
// (c) Tiers per the contract.

t.test("when every operation's x-tier is compared with the contract tier table, then they agree and cover it", async (t) => {
  t.same(OPS.map((o) => o.key).sort(), Object.keys(CONTRACT_TIERS).sort(), 'exactly the endpoints of contract section 4');
  for (const o of OPS) t.equal(o.op['x-tier'], CONTRACT_TIERS[o.key], `${o.key} tier`);
  t.equal(op('GET /v1/search')['x-tier'], 'pro');
  t.equal(op('POST /v1/ask')['x-tier'], 'enterprise');
  t.equal(op('GET /v1/{source}/documents')['x-tier'], 'free');
  t.equal(op('GET /v1/documents/{source_id}/content')['x-tier'], 'enterprise');
  t.equal(op('POST /v1/reports')['x-tier'], 'pro');
  t.equal(op('GET /v1/reports/{id}/pdf')['x-tier'], 'pro');
  t.equal(op('POST /v1/monitor/entities')['x-tier'], 'enterprise');
  t.equal(op('GET /v1/monitor/events')['x-tier'], 'enterprise');
  t.equal(op('GET /v1/models')['x-tier'], 'none');
});

t.test('when an operation is above Free, then it documents 403; Free and public operations do not', async (t) => {
  for (const o of OPS) {
    const gated = o.op['x-tier'] === 'pro' || o.op['x-tier'] === 'enterprise';
    t.equal(Boolean(o.op.responses['403']), gated, `${o.key} 403 ${gated ? 'documented' : 'absent'}`);
  }
});

// ---------------------------------------------------------------------------------------------------
// (d) Limits per the contract.

t.test('when limit parameters are read, then min, max and default equal the contract', async (t) => {
  for (const [key, want] of Object.entries(CONTRACT_LIMITS)) {
    const p = param(op(key), 'limit');
    t.ok(p, `${key} has limit`);
    t.same(
      { type: p?.schema?.type, min: p?.schema?.minimum, max: p?.schema?.maximum, default: p?.schema?.default },
      { type: 'integer', ...want },
      `${key} limit`,
    );
    if (UNPAGED.includes(key)) {
      t.equal(param(op(key), 'offset'), undefined, `${key} is not paged: no offset`);
      continue;
    }
    const off = param(op(key), 'offset');
    t.same({ type: off?.schema?.type, min: off?.schema?.minimum, default: off?.schema?.default }, { type: 'integer', min: 0, default: 0 }, `${key} offset`);
  }
  const withLimit = OPS.filter((o) => param(o.op, 'limit'))
    .map((o) => o.key)
    .sort();
  t.same(withLimit, Object.keys(CONTRACT_LIMITS).sort(), 'no other operation takes a limit parameter');
});

t.test('when the filters are read, then each is the parameter lib/search/filters.ts declares, and every route that takes filters names them all', async (t) => {
  const declared = filterParameters();
  for (const [name, parameter] of Object.entries(declared)) t.same(DOC.components.parameters[name], parameter, `${name} as declared`);
  const { description: _description, ...filters } = DOC.components.schemas.Filters;
  t.same(filters, filtersObjectSchema(), 'the Filters object of a body as declared');
  const refs = (key: string) => (op(key).parameters as Json[]).map((p) => p.$ref).filter((r: unknown) => typeof r === 'string' && r.includes('/Filter_'));
  const all = FILTER_NAMES.map((name) => `#/components/parameters/${filterParameterName(name)}`);
  t.same(refs('GET /v1/search'), all, 'search takes every filter');
  t.same(refs('GET /v1/aggregate'), all, 'aggregate takes every filter');
  t.same(refs('GET /v1/export'), all, 'export takes every filter');
  t.same(
    refs('GET /v1/{source}/documents'),
    all.filter((r) => !r.endsWith('Filter_source')),
    'a listing every filter but source, which its path gives',
  );
  t.equal(deref(op('POST /v1/ask').requestBody).content['application/json'].schema.$ref, '#/components/schemas/AskRequest');
  t.equal(DOC.components.schemas.AskRequest.properties.filters.$ref, '#/components/schemas/Filters', 'ask takes the filters as an object');
});

t.test('when the ask body is read, then question is required and limit is 1..20 default 5', async (t) => {
  const body = deref(op('POST /v1/ask').requestBody);
  t.equal(body.required, true);
  const schema = deref(body.content['application/json'].schema);
  t.same(schema.required, ['question']);
  const limit = schema.properties.limit;
  t.same({ type: limit.type, min: limit.minimum, max: limit.maximum, default: limit.default }, { type: 'integer', min: 1, max: 20, default: 5 });
  t.equal(schema.properties.model.type, 'string', 'model is accepted');
});

t.test("when other parameters with contract rules are read, then enums and defaults are the contract's", async (t) => {
  const type = param(op('GET /v1/entity/{identifier}'), 'type');
  t.same(type.schema.enum, ['afm', 'name', 'ada']);
  t.equal(type.schema.default, 'afm');
  t.same(deref(param(op('GET /v1/monitor/events'), 'event_type').schema).enum, [
    'new_decision',
    'contract_award',
    'regulatory_action',
    'permit_change',
    'other',
  ]);
  t.equal(param(op('GET /v1/monitor/events'), 'entity_id').schema.format, 'uuid');
  for (const [operation, name] of [
    ['GET /v1/monitor/events', 'since'],
    ['GET /v1/{source}/documents', 'since'],
    ['GET /v1/search', 'since'],
    ['GET /v1/search', 'until'],
  ]) {
    const pattern = new RegExp(deref(param(op(operation), name).schema).pattern, 'u');
    t.ok(
      ['2026-03-01', '2026-03-01T00:00:00Z', '2026-03-01T02:00+02:00', '2026-03-01T00:00:00.5'].every((v) => pattern.test(v)),
      `${operation} ${name}: a date or a date-time`,
    );
    t.notOk(pattern.test('yesterday'), `${operation} ${name}: nothing else`);
  }
  t.equal(param(op('GET /v1/alerts/deliveries'), 'profile_id').schema.format, 'uuid');
  t.equal(param(op('GET /v1/search'), 'q').required, true);
  const sort = deref(param(op('GET /v1/search'), 'sort').schema);
  t.same([sort.enum, sort.default], [[...SEARCH_SORTS], 'relevance'], 'search orders: the ones the route and MCP accept, relevance first');
  t.ok(deref(param(op('GET /v1/{source}/documents'), 'source', 'path').schema).enum.includes('e_procurement'));
});

t.test(
  "when the alert-profile schemas are compared with the channel registry, then docs/openapi.json holds each channel's name and address member as /openapi.json serves them",
  async (t) => {
    const served = withChannelSchemas(DOC);
    for (const name of CHANNEL_SCHEMAS) t.same(DOC.components.schemas[name], served.components.schemas[name], `${name}, as the registry makes it`);
  },
);

t.test('when request bodies are read, then required fields follow decisions.md', async (t) => {
  const bodySchema = (key: string) => deref(deref(op(key).requestBody).content['application/json'].schema);
  const create = bodySchema('POST /v1/alerts/profiles');
  t.same(create.required, ['name', 'channels']);
  t.equal(create.properties.channels.minItems, 1, 'channels non-empty');
  t.same(deref(create.properties.channels.items).enum, ['email', 'webhook']);
  const conditional = create.allOf.map((c: Json) => [c.if.properties.channels.contains.const, c.then.required]);
  t.same(conditional, [
    ['email', ['notify_email']],
    ['webhook', ['webhook_url']],
  ]);
  const update = bodySchema('PUT /v1/alerts/profiles/{id}');
  t.equal(update.required, undefined, 'partial update: nothing required');
  t.equal(update.properties.is_active.type, 'boolean');
  t.same(bodySchema('POST /v1/reports').required, ['entity_identifier', 'identifier_type']);
  t.same(bodySchema('POST /v1/monitor/entities').required, ['entity_identifier', 'identifier_type']);
  t.equal(op('POST /v1/monitor/events/{id}/acknowledge').requestBody, undefined, 'acknowledge takes no body');
  for (const o of OPS.filter((x) => x.op.requestBody)) {
    t.ok(o.op.responses['413'], `${o.key} documents 413`);
    t.ok(o.op.responses['422'], `${o.key} documents 422`);
  }
  t.equal(
    Object.keys(op('POST /v1/alerts/profiles').responses).find((s) => s.startsWith('2')),
    '201',
    'profile create is 201',
  );
  const created = deref(responseSchema(op('POST /v1/alerts/profiles'), 201));
  t.ok(
    created.allOf.some((s: Json) => s.required?.includes('webhook_secret')),
    'webhook_secret returned on create',
  );
  t.notOk(JSON.stringify(deref(DOC.components.schemas.AlertProfile)).includes('webhook_secret'), 'and only there');
});

t.test('when delivery and report states are read, then they include the decided values', async (t) => {
  const s = DOC.components.schemas;
  t.same(s.AlertDelivery.properties.delivery_status.enum, ['pending', 'sent', 'failed']);
  t.ok(s.AlertDelivery.required.includes('attempts') && s.AlertDelivery.required.includes('last_error'));
  t.same(s.ReportStatus.enum, ['pending', 'completed', 'failed']);
  t.same(Object.keys(s.AlertFilters.properties).sort(), ['keywords', 'max_value', 'min_value', 'regions', 'sectors', 'sources']);
  t.same(s.AlertFilters.required.slice().sort(), Object.keys(s.AlertFilters.properties).sort(), 'all six filters shown');
  const pdf = deref(op('GET /v1/reports/{id}/pdf').responses['200']);
  t.same(Object.keys(pdf.content), ['application/pdf']);
  t.ok(deref(pdf.headers['Content-Disposition']), 'Content-Disposition documented');
  const content = deref(op('GET /v1/documents/{source_id}/content').responses['200']);
  t.same(
    Object.keys(content.content).sort(),
    ['application/geo+json', 'application/json', 'application/pdf', 'application/xml'],
    "the contract's PDF, XML and JSON, plus GeoJSON, which the RAE ingest stores",
  );
});

// ---------------------------------------------------------------------------------------------------
// Errors and headers.

t.test('when the Error schema is read, then it is {detail: string}, required, nothing else', async (t) => {
  t.same(DOC.components.schemas.Error, {
    type: 'object',
    required: ['detail'],
    additionalProperties: false,
    description: DOC.components.schemas.Error.description,
    properties: { detail: { type: 'string' } },
  });
});

t.test('when any 4xx or 5xx response is read, then its only body is the shared Error schema', async (t) => {
  let count = 0;
  for (const o of OPS) {
    for (const [status, raw] of Object.entries<Json>(o.op.responses)) {
      if (!/^[45]/.test(status)) continue;
      count++;
      const r = deref(raw);
      t.same(Object.keys(r.content ?? {}), ['application/json'], `${o.key} ${status} is JSON`);
      t.equal(r.content?.['application/json']?.schema?.$ref, '#/components/schemas/Error', `${o.key} ${status} uses Error`);
    }
    t.ok(o.op.responses['500'], `${o.key} documents 500`);
  }
  t.ok(count > 100, `error responses checked: ${count}`);
});

t.test('when an authenticated operation succeeds or fails after auth, then the rate-limit headers are documented', async (t) => {
  for (const o of OPS.filter((x) => x.op['x-tier'] !== 'none')) {
    for (const [status, raw] of Object.entries<Json>(o.op.responses)) {
      if (status === '401') continue;
      const headers = deref(raw).headers ?? {};
      for (const h of RATE_LIMIT_HEADERS) {
        t.equal(headers[h]?.$ref, `#/components/headers/${h}`, `${o.key} ${status} ${h}`);
      }
    }
    t.equal(deref(o.op.responses['429']).headers['Retry-After']?.$ref, '#/components/headers/Retry-After', `${o.key} 429 Retry-After`);
  }
  t.same(deref(op('GET /v1/models').responses['200']).headers, undefined, 'the public route sends no quota headers');
});

t.test('when engine-backed operations are read, then they document 503; the others do not', async (t) => {
  const engine = [
    'GET /v1/search',
    'GET /v1/aggregate',
    'GET /v1/export',
    'GET /v1/{source}/documents',
    'GET /v1/documents/{source_id}/content',
    'GET /v1/stats',
    'POST /v1/ask',
    'GET /v1/similar/{source_id}',
    'GET /v1/entity/{identifier}',
  ];
  for (const o of OPS) t.equal(Boolean(o.op.responses['503']), engine.includes(o.key), `${o.key} 503`);
});

// ---------------------------------------------------------------------------------------------------
// Against the running app: tier gates, error bodies and the shapes of built routes.

t.test('when the schema validator is given a wrong body, then it reports the fault', async (t) => {
  const usage = DOC.components.schemas.Usage;
  t.same(validate(usage, { tier: 'pro', daily_quota: 100, daily_used: 1, daily_remaining: 99, reset_at: '2026-03-23T00:00:00Z' }), []);
  t.match(validate(usage, { tier: 'gold', daily_quota: 100, daily_used: 1, daily_remaining: 99, reset_at: '2026-03-23T00:00:00Z' }).join(), /not in/);
  t.match(validate(usage, { tier: 'pro', daily_quota: 100, daily_used: 1, reset_at: 'tomorrow' }).join(), /missing daily_remaining.*not a date-time/);
  t.match(validate(DOC.components.schemas.Error, { detail: 'x', stack: 'y' }).join(), /unexpected stack/);
  t.match(validate(DOC.components.schemas.DocumentFull, { source_id: 'x' }).join(), /missing content/);
});

const TIER_BELOW: Record<string, Tier> = { pro: 'free', enterprise: 'pro' };
const SAMPLE_PATH: Record<string, string> = {
  source: 'ted',
  source_id: 'ted:000001-2024',
  identifier: '090252840',
  id: '00000000-0000-4000-8000-000000000000',
};

t.test('when each documented operation is called on the app, then the route exists and its tier gate is the documented one', async (t) => {
  const app = await startTestApp(t);
  const forbidden = deref(DOC.components.responses.Forbidden).content['application/json'].examples;
  const unauthorized = deref(DOC.components.responses.Unauthorized).content['application/json'].examples;
  const routeMissing = (r: TestResponse) => r.status === 405 || (r.status === 404 && /^Not found: /.test(r.body?.detail ?? ''));
  for (const o of OPS) {
    const url = o.path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(SAMPLE_PATH[n]));
    const method = o.method.toUpperCase();
    const body = o.op.requestBody ? {} : undefined;
    const tier = o.op['x-tier'];
    if (tier === 'none') {
      const res = await app.request(url, { method });
      t.equal(res.status, 200, `${o.key} answers without a key`);
      continue;
    }
    const anon = await app.request(url, { method, body });
    t.equal(anon.status, 401, `${o.key} without a key`);
    t.ok(
      Object.values<Json>(unauthorized).some((e) => e.value.detail === anon.body?.detail),
      `${o.key} 401 body is documented`,
    );
    if (TIER_BELOW[tier]) {
      const below = await app.request(url, { method, body, key: app.key(TIER_BELOW[tier]) });
      t.equal(below.status, 403, `${o.key} refuses ${TIER_BELOW[tier]}`);
      t.ok(
        Object.values<Json>(forbidden).some((e) => e.value.detail === below.body?.detail),
        `${o.key} 403 body is documented: ${below.body?.detail}`,
      );
    }
    const at = await app.request(url, { method, body, key: app.key(tier) });
    t.notOk(routeMissing(at) || at.status === 401 || at.status === 403, `${o.key} is routed for a ${tier} key (got ${at.status})`);
    t.equal(Boolean(o.op.responses['501']), at.status === 501, `${o.key} documents 501 exactly when it is not built yet`);
    if (at.status >= 400) t.same(validate(DOC.components.schemas.Error, at.body), [], `${o.key} ${at.status} body is an Error`);
  }
});

function sampleDoc(overrides: Partial<IndexedDocument> = {}): IndexedDocument {
  return {
    source_id: 'ted:000001-2024',
    source: 'ted',
    country: 'EU',
    title: 'Προμήθεια υπολογιστών για τον δήμο',
    doc_type: 'contract_award_notice',
    doc_category: 'award',
    published_at: '2024-05-01T10:00:00Z',
    source_url: 'https://ted.europa.eu/en/notice/-/detail/000001-2024',
    language: 'el',
    quality_score: 0.8,
    content: 'Σύμβαση προμήθειας υπολογιστών',
    summary: 'Προμήθεια υπολογιστών',
    entities: { afm: ['090252840'], ada: [], names: ['ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ'] },
    parties: [],
    procedure_type: null,
    tenders_received: null,
    act_date: null,
    amount: { value: 12500, currency: 'EUR' },
    cpv: ['30213000'],
    region: 'EL30',
    sector: 'it',
    indexed_at: '2024-05-02T00:00:00Z',
    content_hash: '0'.repeat(64),
    original: null,
    embedding: null,
    ...overrides,
  };
}

t.test('when the built routes answer, then their bodies and headers match the documented schemas', async (t) => {
  const app = await startTestApp(t);
  const pdf = Buffer.from('%PDF-1.4\n%test\n');
  const [sha256] = await app.blobs.put([pdf]);
  await app.search.upsert([sampleDoc({ original: { sha256, content_type: 'application/pdf' } })]);
  await app.search.refresh();

  const check = async (key: string, url: string, tier: Tier | null, status = 200): Promise<TestResponse> => {
    const res = await app.request(url, tier ? { key: app.key(tier) } : {});
    t.equal(res.status, status, `${key} ${url} status`);
    const documented = deref(op(key).responses[String(status)]);
    t.ok(documented, `${key} documents ${status}`);
    if (res.headers.get('content-type')?.startsWith('application/json')) {
      t.same(validate(responseSchema(op(key), status), res.body), [], `${key} ${url} body matches the schema`);
    }
    for (const h of Object.keys(documented?.headers ?? {})) {
      const raw = res.headers.get(h);
      t.ok(raw !== null, `${key} ${url} sends documented header ${h}`);
      const schema = deref(deref(documented.headers[h]).schema);
      if (raw !== null) t.same(validate(schema, schema.type === 'integer' ? Number(raw) : raw), [], `${key} ${h} value ${raw}`);
    }
    return res;
  };

  const models = await check('GET /v1/models', '/v1/models', null);
  t.equal(models.body.models.filter((m: Json) => m.default).length, 1);
  const sources = await check('GET /v1/sources', '/v1/sources', 'free');
  t.same(
    sources.body.map((s: Json) => s.name),
    [...SOURCE_NAMES],
  );
  await check('GET /v1/usage', '/v1/usage', 'pro');
  await check('GET /v1/stats', '/v1/stats', 'free');
  const search = await check('GET /v1/search', '/v1/search?q=%CF%85%CF%80%CE%BF%CE%BB%CE%BF%CE%B3%CE%B9%CF%83%CF%84%CF%8E%CE%BD', 'pro');
  t.equal(search.body.total, 1, 'the sample document is found');
  for (const query of [
    'group_by=supplier&then_by=year',
    'group_by=cpv_division&q=%CF%85%CF%80%CE%BF%CE%BB%CE%BF%CE%B3%CE%B9%CF%83%CF%84%CF%8E%CE%BD',
    'group_by=year&buyer=090252840&order_by=documents',
  ]) {
    const agg = await check('GET /v1/aggregate', `/v1/aggregate?${query}`, 'pro');
    t.equal(agg.body.totals.documents, agg.body.filters.buyer ? 0 : 1, `${query}: the sample document is aggregated`);
  }
  await check('GET /v1/aggregate', '/v1/aggregate?group_by=nothing', 'pro', 422);
  for (const format of ['csv', 'ndjson']) {
    const exported = await check('GET /v1/export', `/v1/export?format=${format}`, 'pro');
    t.ok(
      Object.keys(deref(op('GET /v1/export').responses['200']).content).includes(exported.headers.get('content-type')!.split(';')[0]!),
      `${format}: a documented type`,
    );
  }
  const faceted = await check(
    'GET /v1/search',
    '/v1/search?q=%CF%85%CF%80%CE%BF%CE%BB%CE%BF%CE%B3%CE%B9%CF%83%CF%84%CF%8E%CE%BD&facets=source,cpv_division',
    'pro',
  );
  t.same(faceted.body.facets.source, [{ key: 'ted', label: 'TED — Tenders Electronic Daily', label_el: null, documents: 1 }], 'a facet of the sample document');
  await check('GET /v1/aggregate', '/v1/aggregate?group_by=year', 'free', 403);
  const free = await check('GET /v1/{source}/documents', '/v1/ted/documents', 'free');
  t.equal(free.body.documents[0]._upgrade_hint, UPGRADE_HINT);
  t.same(validate(DOC.components.schemas.DocumentMetadata, free.body.documents[0]), [], 'Free record is metadata');
  const pro = await check('GET /v1/{source}/documents', '/v1/e_procurement/documents?since=2024-01-01', 'pro');
  t.equal(pro.body.source, 'kimdis', 'the alias answers with the canonical name');
  const full = await check('GET /v1/{source}/documents', '/v1/ted/documents?limit=1000&offset=0', 'enterprise');
  t.same(validate(DOC.components.schemas.DocumentFull, full.body.documents[0]), [], 'Pro record is full content');
  const content = await check('GET /v1/documents/{source_id}/content', '/v1/documents/ted%3A000001-2024/content', 'enterprise');
  t.equal(content.headers.get('content-type'), 'application/pdf');
  t.ok(Object.keys(deref(op('GET /v1/documents/{source_id}/content').responses['200']).content).includes('application/pdf'));
  t.equal(content.text, pdf.toString());
  // The entity index is written with the document store (ingest), not with the engine.
  const { indexed_at: _i, content_hash: _h, original: _o, embedding: _e, ...stored } = sampleDoc();
  app.documents.save([{ doc: stored, content_hash: 'h', original: null, indexed_at: '2024-05-02T00:00:00Z' }]);
  const entity = await check('GET /v1/entity/{identifier}', '/v1/entity/090252840', 'enterprise');
  t.equal(entity.body.total, 1, 'the sample document is resolved');
  await check('GET /v1/entity/{identifier}', `/v1/entity/${encodeURIComponent('dimos athinaion')}?type=name`, 'enterprise');
  await check('GET /v1/entity/{identifier}', '/v1/entity/123456789?limit=100&offset=3', 'enterprise');
  await check('GET /v1/entity/{identifier}', '/v1/entity/12345?type=afm', 'enterprise', 422);

  const examples = (name: string) => Object.values<Json>(DOC.components.responses[name].content['application/json'].examples).map((e) => e.value.detail);
  t.ok(
    examples('NotFound').includes((await check('GET /v1/{source}/documents', '/v1/foo/documents', 'free', 404)).body.detail),
    'the unknown-source example is what the server sends',
  );
  const tooBig = await check('GET /v1/search', '/v1/search?q=x&limit=1001', 'pro', 422);
  t.ok(examples('ValidationFailed').includes(tooBig.body.detail), `the limit example is what the server sends: ${tooBig.body.detail}`);
  const noQ = await check('GET /v1/search', '/v1/search', 'pro', 422);
  t.ok(examples('ValidationFailed').includes(noQ.body.detail), `the q example is what the server sends: ${noQ.body.detail}`);
  const broken = await app.request('/v1/alerts/profiles', {
    key: app.key('pro'),
    method: 'POST',
    rawBody: '{"name": broken',
    headers: { 'Content-Type': 'application/json' },
  });
  t.equal(broken.status, 400);
  t.ok(examples('BadRequest').includes(broken.body?.detail), `the 400 example is what the server sends: ${broken.body?.detail}`);
  const huge = await app.request('/v1/alerts/profiles', {
    key: app.key('pro'),
    method: 'POST',
    rawBody: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }),
    headers: { 'Content-Type': 'application/json' },
  });
  t.equal(huge.status, 413);
  t.ok(examples('PayloadTooLarge').includes(huge.body?.detail), `the 413 example is what the server sends: ${huge.body?.detail}`);
  await check('GET /v1/search', '/v1/search?q=x', 'free', 403);
  await check('GET /v1/documents/{source_id}/content', '/v1/documents/nope/content', 'enterprise', 404);
  await check('GET /v1/sources', '/v1/sources', null, 401);
  const key = app.key('free');
  for (let i = 0; i < 5; i++) await app.request('/v1/usage', { key });
  const over = await app.request('/v1/usage', { key });
  t.equal(over.status, 429);
  t.same(validate(responseSchema(op('GET /v1/usage'), 429), over.body), []);
  t.match(over.body.detail, /^Daily quota exceeded\. Resets at \d{4}-\d{2}-\d{2}T00:00:00Z$/);
  t.match(examples('QuotaExceeded')[0], /^Daily quota exceeded\. Resets at \d{4}-\d{2}-\d{2}T00:00:00Z$/, 'the 429 example has the same form');
  t.match(over.headers.get('retry-after'), /^\d+$/, 'Retry-After sent on 429');
});

t.test('when the alert and monitoring routes answer, then their bodies match the documented schemas', async (t) => {
  const app = await startTestApp(t);
  const pro = app.key('pro');
  const ent = app.key('enterprise');
  const shape = (key: string, status: number, res: TestResponse) => {
    t.equal(res.status, status, `${key}: ${res.text}`);
    t.same(validate(responseSchema(op(key), status), res.body), [], `${key} body matches the schema`);
  };
  const created = await app.request('/v1/alerts/profiles', {
    key: pro,
    method: 'POST',
    body: { name: 'n', channels: ['email'], notify_email: 'a@example.com' },
  });
  shape('POST /v1/alerts/profiles', 201, created);
  shape('GET /v1/alerts/profiles', 200, await app.request('/v1/alerts/profiles', { key: pro }));
  shape('PUT /v1/alerts/profiles/{id}', 200, await app.request(`/v1/alerts/profiles/${created.body.id}`, { key: pro, method: 'PUT', body: { name: 'm' } }));
  shape('DELETE /v1/alerts/profiles/{id}', 200, await app.request(`/v1/alerts/profiles/${created.body.id}`, { key: pro, method: 'DELETE' }));
  shape('GET /v1/alerts/deliveries', 200, await app.request('/v1/alerts/deliveries', { key: pro }));
  const entity = await app.request('/v1/monitor/entities', { key: ent, method: 'POST', body: { entity_identifier: '090252840', identifier_type: 'afm' } });
  shape('POST /v1/monitor/entities', 201, entity);
  shape(
    'POST /v1/monitor/entities',
    409,
    await app.request('/v1/monitor/entities', { key: ent, method: 'POST', body: { entity_identifier: '090252840', identifier_type: 'afm' } }),
  );
  shape('GET /v1/monitor/entities', 200, await app.request('/v1/monitor/entities', { key: ent }));
  shape('GET /v1/monitor/events', 200, await app.request('/v1/monitor/events', { key: ent }));
  shape('GET /v1/monitor/entities/{id}/report', 200, await app.request(`/v1/monitor/entities/${entity.body.id}/report`, { key: ent }));
  shape('DELETE /v1/monitor/entities/{id}', 200, await app.request(`/v1/monitor/entities/${entity.body.id}`, { key: ent, method: 'DELETE' }));
});

t.test('when generated clients read the document, then nothing in it is unused, unbounded or mistyped', async (t) => {
  const text = JSON.stringify(DOC);
  for (const name of Object.keys(DOC.components.responses)) {
    t.ok(text.includes(`"#/components/responses/${name}"`), `response ${name} is used`);
  }
  t.equal(DOC.components.parameters.Offset.schema.maximum, Number.MAX_SAFE_INTEGER, 'offset states the maximum the API enforces');
  const content = DOC.paths['/v1/documents/{source_id}/content'].get.responses['200'].content;
  for (const [type, media] of Object.entries(content) as [string, Json][]) {
    if (type.includes('json')) t.not(media.schema?.format, 'binary', `${type}: a JSON original is JSON, not a binary string`);
  }
});

t.test('when a create answers, then its links name real operations and parameters', async (t) => {
  const ops = new Map<string, Json>();
  for (const item of Object.values(DOC.paths) as Json[]) {
    for (const op of Object.values(item) as Json[]) if (op?.operationId) ops.set(op.operationId, op);
  }
  let links = 0;
  for (const key of ['POST /v1/reports', 'POST /v1/alerts/profiles', 'POST /v1/monitor/entities', 'GET /v1/monitor/entities/{id}/report']) {
    const response = op(key).responses[key.startsWith('POST') ? '201' : '200'];
    t.ok(response.links, `${key} has links`);
    for (const [name, link] of Object.entries(response.links ?? {}) as [string, Json][]) {
      links++;
      const target = ops.get(link.operationId);
      t.ok(target, `${key} → ${name}: ${link.operationId} exists`);
      const params = (target?.parameters ?? []).map((p: Json) => deref(p).name);
      for (const param of Object.keys(link.parameters)) t.ok(params.includes(param), `${link.operationId} takes ${param}`);
    }
  }
  t.ok(links >= 8);
});
