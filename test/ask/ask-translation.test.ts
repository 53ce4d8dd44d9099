// POST /v1/ask with PDI_LLM_URL: the configured model translates an English question into Greek, under
// its own deadline, its answer kept by question text; a model slower than the deadline, or failing,
// leaves the translation to the vocabulary. A loopback peer speaks the chat-completions protocol.
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { startTestApp } from '../helpers/app.js';
import { startUpstream, type Responder } from '../helpers/loopback-upstream.js';
import { corpus, LIFTS, translatedCorpus } from './semantic-contract.js';

const completion = (content: string) => ({
  status: 200,
  body: { choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] },
});
const isTranslation = (json: any) => String(json?.messages?.[0]?.content ?? '').startsWith('You translate');

/** An app whose model endpoint translates with `translate` and answers every other call at once. */
async function appWith(t: Test, translate: Responder) {
  const peer = await startUpstream((req, i, res) => (isTranslation(req.json) ? translate(req, i, res) : completion('An answer [1].')));
  t.teardown(() => peer.close());
  const logs: Record<string, any>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const app = await startTestApp(t, { env: { PDI_LLM_URL: `${peer.url}/v1`, PDI_LLM_KEY: 'sk-test', PDI_LLM_TRANSLATE_TIMEOUT: '1s' }, logger });
  await app.search.upsert([...corpus(), ...translatedCorpus()]);
  await app.search.refresh();
  const key = app.key('enterprise');
  const ask = async (question: string) => {
    const res = await app.request('/v1/ask', { key, method: 'POST', body: { question, limit: 5 } });
    t.equal(res.status, 200);
    return res.body.sources.map((s: { source_id: string }) => s.source_id) as string[];
  };
  const translatedBy = () => logs.filter((l) => l.msg === 'ask answered').map((l) => l.translation);
  return { peer, ask, translatedBy };
}

t.test('when the model translates, then ask searches its Greek, logs that the model translated, and asks it once per question', async (t) => {
  // Words no vocabulary maps to lifts: only the model's Greek finds the contract.
  const question = "Who keeps the town hall's vertical transport running?";
  const { peer, ask, translatedBy } = await appWith(t, () => completion('Ποιος συντηρεί τους ανελκυστήρες του δημαρχείου;'));
  t.ok((await ask(question)).includes(LIFTS), 'found by the Greek of the model');
  t.ok((await ask(question)).includes(LIFTS), 'and again');
  t.equal(peer.requests.filter((r) => isTranslation(r.json)).length, 1, 'the translation is kept by question text');
  t.same(translatedBy(), ['model', 'model']);
  const sent = peer.requests.find((r) => isTranslation(r.json))!.json;
  t.equal(sent.messages[1].content, question, 'the question as asked');
  t.same(await ask('Ποιος συντηρεί τους ανελκυστήρες;').then(() => translatedBy().at(-1)), 'none', 'a Greek question is not translated');
});

t.test('when the model is slower than the translation deadline, then the vocabulary translates and ask answers', async (t) => {
  const { ask, translatedBy } = await appWith(t, () => null /* never answers; the peer closes at teardown */);
  t.ok((await ask('Which contracts cover lift maintenance?')).includes(LIFTS), 'found by the Greek CPV label');
  t.same(translatedBy(), ['vocabulary']);
});

t.test('when the model fails or answers no Greek, then the vocabulary translates', async (t) => {
  let calls = 0;
  const { ask, translatedBy } = await appWith(t, () => (calls++ === 0 ? { status: 500, body: { error: 'overloaded' } } : completion('lift maintenance')));
  t.ok((await ask('Which contracts cover lift maintenance?')).includes(LIFTS));
  t.ok((await ask('lift maintenance contracts')).includes(LIFTS));
  t.same(translatedBy(), ['vocabulary', 'vocabulary']);
});
