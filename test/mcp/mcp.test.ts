// The MCP server, driven by the SDK's own client: over Streamable HTTP at /mcp and over stdio through
// `pdi mcp --key KEY` (a bridge to the running API, spawned as a real child process).
import { createHash } from 'node:crypto';
import { Ajv, type ValidateFunction } from 'ajv';
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { utcDay } from '../../lib/clock.js';
import { documentText } from '../../lib/embedding/index.js';
import { DAILY_QUOTA } from '../../api/tiers.js';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.js';
import { cliEnv, pdi } from '../helpers/cli.js';
import { makeDoc } from '../helpers/elasticsearch.js';
import { REPO_ROOT } from '../helpers/paths.js';

const AFM = '094019245';

async function seeded(t: Test): Promise<TestApp> {
  const app = await startTestApp(t);
  const docs = await Promise.all(
    [0, 1, 2].map(async (i) => {
      const d = makeDoc('diavgeia', `ΑΔΑ${i}ΜΤΛ-ΒΓΔ`, {
        title: `Ανάθεση σύμβασης καθαριότητας σχολείων ${i}`,
        // One day, an hour apart: sort=date orders them 2, 1, 0.
        published_at: `2024-05-01T1${i}:00:00Z`,
        summary: 'Απόφαση ανάθεσης υπηρεσιών καθαριότητας σχολικών μονάδων.',
        content: `Η απόφαση αφορά την ανάθεση υπηρεσιών καθαριότητας στην εταιρεία με ΑΦΜ ${AFM}. `.repeat(i === 0 ? 2000 : 1),
        entities: { afm: [AFM], ada: [], names: ['ΚΑΘΑΡΙΟΤΗΤΑ ΑΕ'] },
        content_hash: createHash('sha256').update(String(i)).digest('hex'),
      });
      d.embedding = (await app.embedder.embed([documentText(d)]))[0]!;
      return d;
    }),
  );
  await app.search.upsert(docs);
  app.documents.save(docs.map(({ embedding: _e, ...doc }) => ({ doc, content_hash: doc.content_hash, original: null, indexed_at: doc.indexed_at })));
  return app;
}

function httpTransport(app: TestApp, key: string): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
}

function stdioTransport(app: TestApp, key: string): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    // The key in the environment, as docs/mcp.md advises: argv shows in the process list.
    args: ['bin/pdi.js', 'mcp', '--url', app.url],
    cwd: REPO_ROOT,
    env: cliEnv({ PDI_DATA_DIR: app.dataDir, PDI_API_KEY: key }) as Record<string, string>,
    stderr: 'pipe',
  });
}

async function connect(t: Test, transport: Transport): Promise<Client> {
  const client = new Client({ name: 'pdi-test', version: '1.0.0' });
  await client.connect(transport);
  t.teardown(() => client.close());
  return client;
}

/** Each client's tools' outputSchema, compiled once it has listed them (everyTool). */
const outputChecks = new WeakMap<Client, Map<string, ValidateFunction>>();

/**
 * The tool's JSON result, failing the test when the call is a tool error; its structuredContent is the
 * text's JSON (list_sources: the list as `sources`) and, once the tools are listed, valid by outputSchema.
 */
async function call(t: Test, client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = res.content[0]?.type === 'text' ? res.content[0].text : '';
  t.notOk(res.isError, `${name} answers: ${text.slice(0, 200)}`);
  const value = JSON.parse(text);
  t.same(res.structuredContent, name === 'list_sources' ? { sources: value } : value, `${name}: structuredContent is the text's JSON`);
  const check = outputChecks.get(client)?.get(name);
  if (check) t.ok(check(res.structuredContent), `${name}: structuredContent valid by its outputSchema ${JSON.stringify(check.errors?.slice(0, 3))}`);
  return value;
}

const TOOLS = ['aggregate', 'ask_question', 'get_document', 'list_sources', 'resolve_entity', 'search_documents', 'similar_documents'];

async function everyTool(t: Test, client: Client): Promise<void> {
  const { tools } = await client.listTools();
  t.same(tools.map((tool) => tool.name).sort(), TOOLS);
  // The SDK writes the schemas in draft-07.
  const ajv = new Ajv({ strict: false, allErrors: true });
  const checks = new Map<string, ValidateFunction>();
  for (const tool of tools) {
    t.ok((tool.description ?? '').length > 60, `${tool.name} says what it does`);
    t.equal(tool.inputSchema.type, 'object', `${tool.name} has a JSON input schema`);
    t.equal(tool.outputSchema?.type, 'object', `${tool.name} has a JSON output schema`);
    t.equal(tool.outputSchema?.additionalProperties, false, `${tool.name}: its output schema names every member`);
    checks.set(tool.name, ajv.compile(tool.outputSchema!));
  }
  outputChecks.set(client, checks);
  t.notOk(checks.get('resolve_entity')!({ identifier: 'x' }), 'an output schema can refuse');

  const sources = await call(t, client, 'list_sources');
  t.ok(sources.some((s: { name: string }) => s.name === 'diavgeia'));

  const found = await call(t, client, 'search_documents', { query: 'καθαριότητας', limit: 2 });
  t.equal(found.total, 3);
  t.equal(found.results.length, 2);
  const first = found.results[0];
  t.match(first, { source_id: /^diavgeia:/, source_url: /^https:\/\/example\.org\//, snippet: /υπηρεσιών <mark>καθαριότητας<\/mark> στην/ });
  const dated = await call(t, client, 'search_documents', { query: 'καθαριότητας', sort: 'date', since: '2024-05-01', until: '2024-05-01' });
  t.equal(dated.total, 3, 'published within the day');
  const ids = (body: { results: { source_id: string }[] }) => body.results.map((r) => r.source_id);
  t.same(ids(dated), ['diavgeia:ΑΔΑ2ΜΤΛ-ΒΓΔ', 'diavgeia:ΑΔΑ1ΜΤΛ-ΒΓΔ', 'diavgeia:ΑΔΑ0ΜΤΛ-ΒΓΔ'], 'sort=date: newest first');
  t.notSame(ids(await call(t, client, 'search_documents', { query: 'καθαριότητας' })), ids(dated), 'relevance, the default, orders otherwise');
  t.same(ids(await call(t, client, 'search_documents', { query: 'καθαριότητας', since: '2024-05-01T10:30:00Z', until: '2024-05-01T11:30:00Z' })), [
    'diavgeia:ΑΔΑ1ΜΤΛ-ΒΓΔ',
  ]);
  t.equal((await call(t, client, 'search_documents', { query: 'καθαριότητας', since: '2024-05-02' })).total, 0, 'none after it');

  const filtered = await call(t, client, 'search_documents', {
    query: 'καθαριότητας',
    source: 'diavgeia',
    doc_category: 'award',
    until: '2024-05-01T10:30:00Z',
  });
  t.same(ids(filtered), ['diavgeia:ΑΔΑ0ΜΤΛ-ΒΓΔ'], 'filters as search_documents members');

  const agg = await call(t, client, 'aggregate', { query: 'καθαριότητας', since: '2024-01-01', group_by: 'source', then_by: 'year' });
  t.match(agg, { query: 'καθαριότητας', filters: { since: '2024-01-01' }, group_by: 'source', then_by: 'year', order_by: 'value', limit: 10 });
  t.equal(agg.totals.documents, 3);
  t.match(agg.buckets, [{ key: 'diavgeia', label: /Diavgeia/, documents: 3, buckets: [{ key: '2024', documents: 3 }] }]);
  t.same(agg.other.documents, 0, 'the one bucket leaves nothing');

  const doc = await call(t, client, 'get_document', { source_id: 'diavgeia:ΑΔΑ0ΜΤΛ-ΒΓΔ', max_chars: 1000 });
  t.match(doc, { source_id: 'diavgeia:ΑΔΑ0ΜΤΛ-ΒΓΔ', source_url: 'https://example.org/diavgeia/ΑΔΑ0ΜΤΛ-ΒΓΔ', content_truncated: true });
  t.equal(doc.content.length, 1000);

  const asked = await call(t, client, 'ask_question', { question: 'Ποιος ανέλαβε την καθαριότητα των σχολείων;', limit: 2 });
  t.equal(asked.sources.length, 2);
  t.match(asked.sources[0], { source_id: /^diavgeia:/, source_url: /^https:\/\/example\.org\// });

  const none = await call(t, client, 'ask_question', { question: 'Ποιος ανέλαβε την καθαριότητα των σχολείων;', filters: { source: 'ted' } });
  t.same(none.sources, [], 'ask among the documents that pass its filters: none of TED');

  const entity = await call(t, client, 'resolve_entity', { identifier: AFM });
  t.equal(entity.total, 3);
  t.match(entity.matches[0], { source_id: /^diavgeia:/, source_url: /^https:\/\/example\.org\// });

  const similar = await call(t, client, 'similar_documents', { source_id: 'diavgeia:ΑΔΑ1ΜΤΛ-ΒΓΔ', limit: 5 });
  t.ok(similar.results.length >= 1);
  t.notOk(similar.results.some((r: { source_id: string }) => r.source_id === 'diavgeia:ΑΔΑ1ΜΤΛ-ΒΓΔ'));
  t.match(similar.results[0], { source_id: /^diavgeia:/, source_url: /^https:\/\/example\.org\// });

  // Bad input is a tool error naming the problem, not a crash or a protocol failure.
  const bad = (await client.callTool({ name: 'resolve_entity', arguments: { identifier: '12', type: 'afm' } })) as CallToolResult;
  t.equal(bad.isError, true);
  t.match(bad.content[0], { type: 'text', text: /identifier|afm|9 digits/i });
  const outOfRange = (await client.callTool({ name: 'search_documents', arguments: { query: 'x', limit: 5000 } })) as CallToolResult;
  t.equal(outOfRange.isError, true);
  t.match(outOfRange.content[0], { type: 'text', text: /limit/ });
  const badDay = (await client.callTool({ name: 'search_documents', arguments: { query: 'x', since: '2024-02-30' } })) as CallToolResult;
  t.equal(badDay.isError, true);
  t.match(badDay.content[0], { type: 'text', text: 'since must be a date YYYY-MM-DD' });
  const sameTwice = (await client.callTool({ name: 'aggregate', arguments: { group_by: 'year', then_by: 'year' } })) as CallToolResult;
  t.same([sameTwice.isError, sameTwice.content[0]], [true, { type: 'text', text: 'then_by must differ from group_by' }]);
  const badFilter = (await client.callTool({ name: 'aggregate', arguments: { group_by: 'year', supplier: '12' } })) as CallToolResult;
  t.same([badFilter.isError, badFilter.content[0]], [true, { type: 'text', text: 'supplier must be an AFM of 9 digits' }]);
  const missing = (await client.callTool({ name: 'get_document', arguments: { source_id: 'diavgeia:NOPE' } })) as CallToolResult;
  t.equal(missing.isError, true);
  t.match(missing.content[0], { type: 'text', text: 'Document not found: diavgeia:NOPE' });
}

t.test('when an Enterprise key connects over HTTP, then the SDK client lists the seven tools and calls each', async (t) => {
  const app = await seeded(t);
  const key = app.key('enterprise');
  await everyTool(t, await connect(t, httpTransport(app, key)));
  // Nineteen tool calls, each counted once (listing the tools and initializing count nothing).
  const usage = await app.request('/v1/usage', { key });
  t.equal(usage.body.daily_used, 19 + 1);
});

t.test('when an Enterprise key connects over stdio (pdi mcp, the key in PDI_API_KEY), then the same seven tools answer', async (t) => {
  const app = await seeded(t);
  await everyTool(t, await connect(t, stdioTransport(app, app.key('enterprise'))));
});

t.test('when pdi mcp is pointed at plain http on another machine, then it refuses before sending the key', async (t) => {
  const dataDir = tempDir(t);
  for (const url of ['http://93.184.215.14:8000', 'http://api.example.org', 'http://[2606:4700::1111]:8000', 'ftp://127.0.0.1']) {
    const res = await pdi(dataDir, ['mcp', '--url', url], { PDI_API_KEY: `pdi_live_${'x'.repeat(32)}` });
    t.equal(res.code, 2, url);
    t.match(res.stderr, /--url must use https unless it is on this machine/, url);
  }
});

t.test('when a Pro key or a bad key connects, then it is refused with 403 or 401 in JSON-RPC form', async (t) => {
  const app = await startTestApp(t);
  const pro = new Client({ name: 'pdi-test', version: '1.0.0' });
  await t.rejects(pro.connect(httpTransport(app, app.key('pro'))), /403|Enterprise subscription/);
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  };
  const headers = { Accept: 'application/json, text/event-stream' };
  const refused = await app.request('/mcp', { method: 'POST', key: app.key('pro'), body: init, headers });
  t.equal(refused.status, 403);
  t.match(refused.body, {
    jsonrpc: '2.0',
    id: null,
    error: { message: 'This feature requires an Enterprise subscription' },
    detail: 'This feature requires an Enterprise subscription',
  });
  const invalid = await app.request('/mcp', { method: 'POST', key: `pdi_live_${'x'.repeat(32)}`, body: init, headers });
  t.equal(invalid.status, 401);
  t.match(invalid.body, { error: { message: 'Invalid API key' } });
  const none = await app.request('/mcp', { method: 'POST', body: init, headers });
  t.equal(none.status, 401);
  t.match(none.body, { error: { message: 'Missing API key' } });

  // The docs' curl line: one POST, no initialize (stateless), answered as plain JSON.
  const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_sources', arguments: {} } };
  const direct = await app.request('/mcp', { method: 'POST', key: app.key('enterprise', 'org-direct'), body: call, headers });
  t.equal(direct.status, 200);
  t.match(direct.body, { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: /"name": "diavgeia"/ }] } });
  t.equal((await app.request('/mcp', { key: app.key('enterprise', 'org-get') })).status, 405);
  // A body over the API's 1 MiB limit is refused before the MCP server reads it.
  const huge = await app.request('/mcp', {
    method: 'POST',
    key: app.key('enterprise', 'org-huge'),
    body: { ...call, params: { name: 'search_documents', arguments: { query: 'x'.repeat(2 * 1024 * 1024) } } },
    headers,
  });
  t.equal(huge.status, 413);

  const stdio = new Client({ name: 'pdi-test', version: '1.0.0' });
  await t.rejects(stdio.connect(stdioTransport(app, app.key('pro'))), /Enterprise subscription/);
  await stdio.close();
});

t.test('when a plain JSON client posts without text/event-stream in Accept, then it is served in JSON', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('enterprise');
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  };
  for (const accept of ['application/json', '*/*', undefined]) {
    const res = await app.request('/mcp', { method: 'POST', key, body: init, headers: accept ? { Accept: accept } : {} });
    t.equal(res.status, 200, `Accept ${accept}: ${res.text}`);
    t.match(res.headers.get('content-type'), /^application\/json/);
    t.match(res.body, { jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'public-data-intelligence' } } });
  }
});

t.test('when an AFM is sent to resolve_entity as a JSON number, then it is read as its digits', async (t) => {
  const app = await seeded(t);
  const client = await connect(t, httpTransport(app, app.key('enterprise')));
  const asText = await call(t, client, 'resolve_entity', { identifier: AFM, type: 'afm' });
  const asNumber = await call(t, client, 'resolve_entity', { identifier: Number(AFM), type: 'afm' });
  t.ok(asText.total > 0, 'the AFM has documents');
  t.same(asNumber, asText, 'the leading zero is restored');
});

t.test('when a key is refused or an OAuth client looks for an authorization server, then the answers say keys are static', async (t) => {
  const app = await startTestApp(t);
  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  };
  const bad = await app.request('/mcp', { method: 'POST', key: `pdi_live_${'x'.repeat(32)}`, body: init });
  t.equal(bad.status, 401);
  t.equal(bad.headers.get('www-authenticate'), 'Bearer realm="mcp", error="invalid_token"');
  t.equal((await app.request('/mcp', { method: 'POST', body: init })).headers.get('www-authenticate'), 'Bearer realm="mcp"');
  for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server']) {
    const res = await app.request(path);
    t.equal(res.status, 404, path);
    t.match(res.body, { detail: /static API keys, not OAuth/ }, path);
  }
});

t.test('when the daily quota is spent, then a tool call is a tool error saying when it resets', async (t) => {
  const app = await startTestApp(t);
  const key = app.key('enterprise');
  const client = await connect(t, httpTransport(app, key));
  const keyId = app.app.context.keys.list().find((k) => k.tier === 'enterprise')!.id;
  const day = utcDay(app.app.context.clock());
  for (let i = 0; i < DAILY_QUOTA.enterprise - 1; i++) app.app.context.usage.consume(keyId, day, DAILY_QUOTA.enterprise);
  await call(t, client, 'list_sources');
  const spent = (await client.callTool({ name: 'list_sources', arguments: {} })) as CallToolResult;
  t.equal(spent.isError, true);
  t.match(spent.content[0], { type: 'text', text: /^Daily quota exceeded\. Resets at \d{4}-\d\d-\d\dT00:00:00Z$/ });
  // The REST routes read the same counter.
  t.equal((await app.request('/v1/sources', { key })).status, 429);
});
