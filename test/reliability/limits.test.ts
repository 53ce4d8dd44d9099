// Inputs at and past every limit, on every route of docs/openapi.json and on both engines: each
// parameter (query and path) takes every hostile value below; each body route every hostile body.
// Every answer must be clear (clearAnswer: no hang, no 5xx, a 4xx with {"detail"}); some must be a
// given status. A route added to the OpenAPI document is covered without touching this file.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { clearAnswer, ENGINES, quotaFreeClock, seedCorpus, timedRequest } from '../helpers/reliability.js';

interface Parameter {
  name: string;
  in: 'query' | 'path';
  required?: boolean;
}
interface Operation {
  method: string;
  path: string;
  params: Parameter[];
  body: boolean;
}

const openapi = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'docs', 'openapi.json'), 'utf8'));

function operations(): Operation[] {
  const resolve = (p: { $ref?: string } & Parameter): Parameter => (p.$ref ? openapi.components.parameters[p.$ref.split('/').pop()!] : p);
  const ops: Operation[] = [];
  for (const [route, item] of Object.entries<Record<string, any>>(openapi.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!op?.responses) continue;
      ops.push({ method: method.toUpperCase(), path: route, params: (op.parameters ?? []).map(resolve), body: op.requestBody !== undefined });
    }
  }
  return ops;
}

/** A valid value for each parameter the fuzzed one is not: the request reaches the handler. */
const ORDINARY: Record<string, string> = { source: 'diavgeia', source_id: 'diavgeia:ΑΔΑ-1', identifier: '090252840', id: randomUUID(), q: 'σύμβαση' };

/** Hostile values, already in URL form (what a client puts between the = and the &). */
const HOSTILE: Record<string, string> = {
  empty: '',
  'zero-width space': encodeURIComponent('σύμ\u200bβαση'),
  'only zero-width': encodeURIComponent('\u200b\u200c\u200d\u2060\ufeff'),
  'right-to-left mark': encodeURIComponent('\u200fσύμβαση\u202e'),
  'NFD accents': encodeURIComponent('σύμβαση'.normalize('NFD')),
  'combining marks alone': encodeURIComponent('\u0301'.repeat(500)),
  'lone high surrogate (CESU bytes)': '%ED%A0%80',
  'lone low surrogate (CESU bytes)': '%ED%B0%80',
  'lone surrogate (%u form)': '%uD800',
  'overlong slash': '%C0%AF',
  'overlong 3-byte': '%E0%80%AF',
  'invalid byte': '%FF%FE',
  'truncated sequence': '%E2%82',
  'bare percent': '%',
  'bad hex': '%zz',
  NUL: '%00',
  'control characters': '%01%1B%7F',
  newline: 'a%0D%0Ab',
  'astral (emoji)': encodeURIComponent('😀'.repeat(50)),
  noncharacters: encodeURIComponent('\ufffe\uffff'),
  'private use': encodeURIComponent('\ue000'),
  '1,001 characters': 'a'.repeat(1001),
  '1,000 Greek letters': encodeURIComponent('α'.repeat(1000)),
  negative: '-1',
  zero: '0',
  'past a maximum': '1001',
  'huge integer': '99999999999999999999999',
  'past MAX_SAFE_INTEGER': '9007199254740993',
  fraction: '1.5',
  exponent: '1e3',
  hex: '0x10',
  NaN: 'NaN',
  Infinity: 'Infinity',
  padded: '%201%20',
  'full-width digit': encodeURIComponent('１'),
  'Arabic-Indic digit': encodeURIComponent('٣'),
  'array syntax': '%5B1%5D',
  SQL: encodeURIComponent("' OR 1=1 --"),
  'FTS syntax': encodeURIComponent('"a" NEAR(b c) OR * AND -x:y^2'),
  'Lucene syntax': encodeURIComponent('title:(a OR b) AND /.*/ AND a~2 AND {* TO *]'),
  'path traversal': encodeURIComponent('../../etc/passwd'),
  'date past its range': '0000-00-00',
  'date 30 February': '2026-02-30',
  'date-time without zone': '2026-01-01T00:00:00',
  'date year 99999': '99999-01-01',
};

function pathWith(op: Operation, fuzzed: string | null, value: string): string {
  let p = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === fuzzed ? value : encodeURIComponent(ORDINARY[name] ?? 'x')));
  const query = op.params.filter((x) => x.in === 'query' && (x.name === fuzzed || x.required));
  if (query.length > 0) p += '?' + query.map((x) => `${x.name}=${x.name === fuzzed ? value : encodeURIComponent(ORDINARY[x.name] ?? 'x')}`).join('&');
  return p;
}

/** Hostile bodies of the routes that take one: [label, raw body, content type]. */
const BODIES: [string, string | Buffer, string][] = [
  ['malformed JSON', '{"name": ', 'application/json'],
  ['JSON null', 'null', 'application/json'],
  ['JSON array', '[]', 'application/json'],
  ['JSON string', '"x"', 'application/json'],
  ['empty object', '{}', 'application/json'],
  ['wrong field types', '{"name": 1, "channels": "email", "question": [], "identifier": {}, "entity_type": true}', 'application/json'],
  [
    'lone surrogate escapes',
    '{"name": "\\ud800", "question": "\\udc00x", "identifier": "\\ud800", "entity_type": "afm", "entity_identifier": "\\ud800", "channels": ["email"], "notify_email": "a\\ud800@example.org"}',
    'application/json',
  ],
  [
    'zero-width everywhere',
    JSON.stringify({
      name: '\u200b',
      question: '\u200b\u200c',
      identifier: '\u2060',
      entity_type: 'name',
      entity_identifier: '\ufeff',
      channels: ['email'],
      notify_email: '\u200b@example.org',
    }),
    'application/json',
  ],
  ['nested 100,000 deep', '['.repeat(100_000) + ']'.repeat(100_000), 'application/json'],
  ['invalid UTF-8 bytes', Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xc0, 0xaf, 0x22, 0x7d]), 'application/json'],
  ['a UTF-8 byte order mark', '\ufeff{"name":"x"}', 'application/json'],
  ['text/plain', '{"name":"x"}', 'text/plain'],
  ['form encoded', 'name=x', 'application/x-www-form-urlencoded'],
  ['multipart', '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b--\r\n', 'multipart/form-data; boundary=b'],
  ['JSON in UTF-16', Buffer.from('{"name":"x"}', 'utf16le'), 'application/json; charset=utf-16'],
  ['1 MiB of JSON string', JSON.stringify({ name: 'a'.repeat(1024 * 1024 - 20), question: 'a' }), 'application/json'],
  ['just past 1 MiB', JSON.stringify({ name: 'a'.repeat(1024 * 1024) }), 'application/json'],
  ['a 100,000-element array', JSON.stringify({ name: 'x', channels: Array(100_000).fill('email'), keywords: Array(100_000).fill('a') }), 'application/json'],
];

interface Tally {
  requests: number;
  byStatus: Map<number, number>;
  failures: string[];
}

async function probe(
  app: TestApp,
  key: string,
  tally: Tally,
  label: string,
  p: string,
  opts: { method: string; rawBody?: string | Buffer; headers?: Record<string, string> },
) {
  const res = await timedRequest(app.url, p, { key, ...opts });
  tally.requests++;
  if (res !== 'timeout') tally.byStatus.set(res.status, (tally.byStatus.get(res.status) ?? 0) + 1);
  const failure = clearAnswer(res);
  if (failure) tally.failures.push(`${opts.method} ${p.slice(0, 120)} (${label}): ${failure}`);
  return res;
}

for (const engine of ENGINES) {
  t.test(`${engine.name}: when every parameter and body of every route is given a hostile value, then every answer is clear`, async (t) => {
    const app = await startTestApp(t, { search: await engine.open(t), clock: quotaFreeClock() });
    const key = app.key('enterprise');
    const tally: Tally = { requests: 0, byStatus: new Map(), failures: [] };
    const ops = operations();
    for (const op of ops) {
      for (const param of op.params) {
        for (const [label, value] of Object.entries(HOSTILE)) {
          await probe(app, key, tally, `${param.name}: ${label}`, pathWith(op, param.name, value), { method: op.method });
        }
        // The same parameter twice.
        if (param.in === 'query')
          await probe(app, key, tally, `${param.name} repeated`, `${pathWith(op, param.name, '1')}&${param.name}=2`, { method: op.method });
      }
      if (op.body) {
        for (const [label, body, type] of BODIES) {
          await probe(app, key, tally, `body: ${label}`, pathWith(op, null, ''), { method: op.method, rawBody: body, headers: { 'Content-Type': type } });
        }
      }
    }
    t.comment(`${engine.name}: ${ops.length} operations, ${tally.requests} requests; statuses ${JSON.stringify(Object.fromEntries(tally.byStatus))}`);
    t.same(tally.failures, [], `${tally.requests} requests, none unclear`);
  });

  t.test(`${engine.name}: when a query string is 1 MiB, then the answer is a 414 with a detail`, async (t) => {
    const app = await startTestApp(t, { search: await engine.open(t) });
    const key = app.key('enterprise');
    for (const op of operations().filter((o) => o.method === 'GET')) {
      const p = pathWith(op, null, '');
      const res = await timedRequest(app.url, `${p}${p.includes('?') ? '&' : '?'}q=${'a'.repeat(1024 * 1024)}`, { key });
      t.equal(clearAnswer(res), null, `${op.path}: clear`);
      if (res !== 'timeout') t.equal(res.status, 414, `${op.path}: 414`);
    }
  });

  t.test(`${engine.name}: when a body is past 1 MiB, then every body route answers 413; malformed JSON 400; another media type 400`, async (t) => {
    const app = await startTestApp(t, { search: await engine.open(t) });
    const key = app.key('enterprise');
    for (const op of operations().filter((o) => o.body)) {
      const p = pathWith(op, null, '');
      const big = await timedRequest(app.url, p, {
        key,
        method: op.method,
        rawBody: JSON.stringify({ name: 'a'.repeat(1024 * 1024) }),
        headers: { 'Content-Type': 'application/json' },
      });
      t.equal(big !== 'timeout' && big.status, 413, `${op.method} ${op.path}: 413`);
      const bad = await timedRequest(app.url, p, { key, method: op.method, rawBody: '{"name": ', headers: { 'Content-Type': 'application/json' } });
      t.equal(bad !== 'timeout' && bad.status, 400, `${op.method} ${op.path}: malformed JSON 400`);
      const plain = await timedRequest(app.url, p, { key, method: op.method, rawBody: '{}', headers: { 'Content-Type': 'text/plain' } });
      t.equal(plain !== 'timeout' && plain.status, 400, `${op.method} ${op.path}: text/plain 400`);
    }
  });

  t.test(`${engine.name}: when a query is written in NFD instead of NFC, then search and entity find the same documents`, async (t) => {
    const app = await startTestApp(t, { search: await engine.open(t) });
    await seedCorpus(app);
    const key = app.key('enterprise');
    const ids = (body: any) => (body.results ?? body.matches ?? []).map((r: { source_id: string }) => r.source_id);
    for (const q of ['σύμβαση καθαριότητας', 'Δήμος Αθηναίων', 'ΑΘΗΝΑΊΩΝ', 'προμήθειας']) {
      const [nfc, nfd] = await Promise.all(
        [q.normalize('NFC'), q.normalize('NFD')].map((form) => app.request(`/v1/search?q=${encodeURIComponent(form)}`, { key })),
      );
      t.equal(nfc.status, 200, q);
      t.ok(nfc.body.total > 0, `${q}: found something`);
      t.same(ids(nfd.body), ids(nfc.body), `search ${q}: the same hits in NFD`);
      const [en, ed] = await Promise.all(
        [q.normalize('NFC'), q.normalize('NFD')].map((form) => app.request(`/v1/entity/${encodeURIComponent(form)}?type=name`, { key })),
      );
      t.same([ed.status, ed.body.total, ids(ed.body)], [en.status, en.body.total, ids(en.body)], `entity ${q}: the same matches in NFD`);
    }
  });
}
