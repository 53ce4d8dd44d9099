// POST /v1/ask with an answer generator (PDI_LLM_URL, PDI_LLM_KEY): a loopback peer speaking the
// chat-completions protocol stands in for the model endpoint. An English question is first translated
// by the same endpoint (ask-translation.test.ts): here the peer answers the answer calls, and a
// translation call as it answers any.
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startUpstream, type Responder } from '../helpers/loopback-upstream.js';
import { corpus } from './semantic-contract.js';

const KEY = 'sk-test-123';

async function appWith(t: Test, respond: Responder, timeout = '20s') {
  const peer = await startUpstream(respond);
  t.teardown(() => peer.close());
  const logs: Record<string, any>[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const app: TestApp = await startTestApp(t, {
    env: { PDI_LLM_URL: `${peer.url}/v1`, PDI_LLM_KEY: KEY, PDI_LLM_TIMEOUT: timeout },
    logger,
  });
  await app.search.upsert(corpus());
  await app.search.refresh();
  return { app, peer, logs, key: app.key('enterprise') };
}

/** The requests that ask for an answer, not for a question's translation. */
const answerCalls = <R extends { json?: any }>(peer: { requests: R[] }) =>
  peer.requests.filter((r) => !String(r.json?.messages?.[0]?.content ?? '').startsWith('You translate'));

const completion = (content: string) => ({
  status: 200,
  body: { id: 'cmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] },
});

t.test('when a generator is configured, then the answer is its grounded answer, from a prompt with the passages and the question', async (t) => {
  const { app, peer, key } = await appWith(t, (req) => {
    const prompt = (req.json?.messages ?? []).map((m: { content: string }) => m.content).join('\n');
    if (prompt.startsWith('You translate')) return completion('Ποιος ανέλαβε τις εργασίες βυθοκόρησης του λιμανιού;');
    // The peer answers only a prompt that carries the question and the passage that answers it.
    if (!prompt.includes('Who got the harbour dredging works?')) return { status: 400, body: { error: 'no question' } };
    if (!prompt.includes('The harbour dredging works were awarded to Marine Works SA')) return { status: 400, body: { error: 'no passage' } };
    return completion('Marine Works SA was awarded the harbour dredging works [2].');
  });
  const res = await app.request('/v1/ask', {
    key,
    method: 'POST',
    body: { question: 'Who got the harbour dredging works?', limit: 5, model: 'openai/gpt-4.1-mini' },
  });
  t.equal(res.status, 200);
  t.equal(res.body.answer, 'Marine Works SA was awarded the harbour dredging works [2].');
  t.equal(res.body.sources.length, 5);
  t.equal(answerCalls(peer).length, 1);
  const sent = answerCalls(peer)[0]!;
  t.equal(sent.method, 'POST');
  t.equal(sent.path, '/v1/chat/completions');
  t.equal(sent.json.model, 'openai/gpt-4.1-mini', 'the request model passed through');
  const [system, user] = sent.json.messages;
  t.equal(system.role, 'system');
  t.match(system.content, /only the numbered passages/);
  t.match(system.content, /\[1\]/);
  // Passages numbered as the sources are, each with its title.
  res.body.sources.forEach((s: { title: string; source_id: string }, i: number) => {
    t.ok(user.content.includes(`[${i + 1}] ${s.title} (${s.source_id})`), `passage ${i + 1} is sources[${i}]`);
  });
});

t.test('when the question is Greek, then the model is told to answer in Greek, and the default model is sent', async (t) => {
  const { app, peer, key } = await appWith(t, () => completion('Ανατέθηκαν υπηρεσίες καθαριότητας [1].'));
  const res = await app.request('/v1/ask', { key, method: 'POST', body: { question: 'Ποιες συμβάσεις καθαριότητας ανατέθηκαν;' } });
  t.equal(res.status, 200);
  t.equal(res.body.answer, 'Ανατέθηκαν υπηρεσίες καθαριότητας [1].');
  t.match(peer.requests[0].json.messages[0].content, /Write the answer in Greek/);
  const models = (await app.request('/v1/models')).body;
  t.equal(peer.requests[0].json.model, models.default);
});

t.test('when the endpoint answers 500, then the placeholder answer and a warning, not an error', async (t) => {
  const { app, peer, logs, key } = await appWith(t, () => ({ status: 500, body: { error: 'overloaded' } }));
  const res = await app.request('/v1/ask', { key, method: 'POST', body: { question: 'road construction', limit: 2 } });
  t.equal(res.status, 200);
  t.equal(res.body.answer, 'Found 2 relevant documents. Generated answers are not yet available.');
  t.equal(answerCalls(peer).length, 1);
  const warning = logs.find((l) => l.msg.includes('answer generator failed'));
  t.ok(warning, 'a warning is logged');
  t.equal(warning?.reason, 'HTTP 500');
  t.notOk(JSON.stringify(logs).includes(KEY), 'the key is never logged');
});

t.test('when the endpoint answers out of shape, then the placeholder', async (t) => {
  const { app, key } = await appWith(t, () => ({ status: 200, body: { choices: [] } }));
  const res = await app.request('/v1/ask', { key, method: 'POST', body: { question: 'road construction', limit: 1 } });
  t.equal(res.status, 200);
  t.equal(res.body.answer, 'Found 1 relevant documents. Generated answers are not yet available.');
});

t.test('when the endpoint never answers, then the placeholder once the timeout passes', async (t) => {
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  const { app, logs, key } = await appWith(
    t,
    () => {
      arrived();
      return null; // holds the connection open; close() ends it
    },
    '1s',
  );
  const pending = app.request('/v1/ask', { key, method: 'POST', body: { question: 'road construction', limit: 2 } });
  await reached;
  const res = await pending;
  t.equal(res.status, 200);
  t.equal(res.body.answer, 'Found 2 relevant documents. Generated answers are not yet available.');
  t.equal(logs.find((l) => l.msg.includes('answer generator failed'))?.reason, 'no answer within 1000 ms');
});

t.test('when the endpoint sends 2 MiB and holds on, then reading stops at 1 MiB, the connection is closed and ask answers the placeholder', async (t) => {
  let closed!: () => void;
  const gone = new Promise<void>((resolve) => (closed = resolve));
  const { app, logs, key } = await appWith(t, (_req, _i, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.on('close', closed);
    // 2 MiB of an answer that never ends: read whole first, it held the request until the timeout.
    res.write(`{"choices":[{"message":{"content":"${'x'.repeat(2 * 1024 * 1024)}`);
    return null;
  });
  const res = await app.request('/v1/ask', { key, method: 'POST', body: { question: 'road construction', limit: 2 } });
  t.equal(res.status, 200);
  t.equal(res.body.answer, 'Found 2 relevant documents. Generated answers are not yet available.');
  t.equal(logs.find((l) => l.msg.includes('answer generator failed'))?.reason, 'answer over 1 MiB');
  await gone;
  t.pass('the client closed the connection');
});

t.test('when the endpoint redirects, then the key is not sent on and ask answers the placeholder', async (t) => {
  const target = await startUpstream(() => completion('from elsewhere'));
  t.teardown(() => target.close());
  const { app, key } = await appWith(t, () => ({ status: 307, headers: { location: `${target.url}/v1/chat/completions` } }));
  const res = await app.request('/v1/ask', { key, method: 'POST', body: { question: 'road construction', limit: 2 } });
  t.equal(res.body.answer, 'Found 2 relevant documents. Generated answers are not yet available.');
  t.equal(target.requests.length, 0);
});

t.test('when only one of PDI_LLM_URL and PDI_LLM_KEY is set, then the configuration is refused', async (t) => {
  const { loadConfig } = await import('../../lib/config.js');
  t.throws(() => loadConfig({ PDI_LLM_URL: 'http://127.0.0.1:1/v1' }), /PDI_LLM_KEY must be set/);
  t.throws(() => loadConfig({ PDI_LLM_KEY: 'k' }), /PDI_LLM_URL must be set/);
  t.throws(() => loadConfig({ PDI_LLM_URL: 'ftp://x', PDI_LLM_KEY: 'k' }), /PDI_LLM_URL must use/);
  t.throws(() => loadConfig({ PDI_LLM_URL: 'http://x', PDI_LLM_KEY: 'k', PDI_LLM_TIMEOUT: 'soon' }), /PDI_LLM_TIMEOUT/);
  t.throws(() => loadConfig({ PDI_LLM_URL: 'http://x', PDI_LLM_KEY: 'k', PDI_LLM_TRANSLATE_TIMEOUT: '1m' }), /PDI_LLM_TRANSLATE_TIMEOUT/);
  t.same(loadConfig({ PDI_LLM_URL: 'http://x/v1/', PDI_LLM_KEY: 'k' }).llm, { url: 'http://x/v1', key: 'k', timeoutMs: 20_000, translateTimeoutMs: 2_000 });
  t.equal(loadConfig({}).llm, null);
});
