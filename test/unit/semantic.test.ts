// The pieces of ask: reciprocal rank fusion, passage choice, the generator's URL and prompt.
import t from 'tap';
import { RRF_K, reciprocalRankFusion } from '../../lib/semantic/fusion.js';
import { completionsUrl, groundedMessages } from '../../lib/semantic/generator.js';
import { bestPassage, questionWords } from '../../lib/semantic/passages.js';

t.test('when two rankings are fused, then a document high in both beats one first in a single ranking', async (t) => {
  const fused = reciprocalRankFusion([['a', 'b', 'c'], ['b', 'd', 'a']], (x) => x);
  t.same(fused.map((f) => f.item), ['b', 'a', 'd', 'c']);
  t.equal(fused[0].score, 1 / (RRF_K + 2) + 1 / (RRF_K + 1));
  // First in both is relevance 1; the rest below it, all in 0..1.
  t.equal(reciprocalRankFusion([['x'], ['x']], (x) => x)[0].relevance, 1);
  for (const f of fused) t.ok(f.relevance > 0 && f.relevance < 1, `${f.item}: ${f.relevance}`);
});

t.test('when the rankings weigh differently, then the heavier one breaks the tie, and first in both is still 1', async (t) => {
  const fused = reciprocalRankFusion([['a', 'b'], ['b', 'a']], (x) => x, [1, 0.5]);
  t.same(fused.map((f) => f.item), ['a', 'b']);
  t.equal(reciprocalRankFusion([['x'], ['x']], (x) => x, [1, 0.5])[0].relevance, 1);
  t.ok(fused[1].relevance < fused[0].relevance && fused[0].relevance < 1);
});

t.test('when scores tie, then the order of first appearance decides; empty rankings fuse to nothing', async (t) => {
  t.same(reciprocalRankFusion([['a', 'b'], ['c', 'd']], (x) => x).map((f) => f.item), ['a', 'c', 'b', 'd']);
  t.same(reciprocalRankFusion([[], []], (x: string) => x), []);
});

t.test('when a passage is chosen, then it is the window with the question words, not the opening', async (t) => {
  const doc = {
    title: 'Report',
    summary: 'A yearly report.',
    content: 'General remarks. Staff list and duties. Οι συμβάσεις καθαριότητας ανατέθηκαν στην εταιρεία Άλφα. Closing words.',
  };
  const words = questionWords('Ποια σύμβαση καθαριότητας ανατέθηκε;');
  t.same(words, ['συμβαση', 'καθαριοτητασ', 'ανατεθηκε'], 'folded, stop words left out');
  t.match(bestPassage(doc, words), /^Οι συμβάσεις καθαριότητας ανατέθηκαν/);
  t.equal(bestPassage(doc, questionWords('volcano eruption')), 'A yearly report.', 'no match: the summary');
  t.equal(bestPassage({ ...doc, summary: '' }, questionWords('volcano')), 'Report', 'no summary: the title');
});

t.test('when a generator URL is configured, then requests go to its chat-completions path', async (t) => {
  t.equal(completionsUrl('https://openrouter.ai/api/v1'), 'https://openrouter.ai/api/v1/chat/completions');
  t.equal(completionsUrl('http://127.0.0.1:8080/v1/chat/completions/'), 'http://127.0.0.1:8080/v1/chat/completions');
});

t.test('when the prompt is built, then it numbers the passages and says the language', async (t) => {
  const [system, user] = groundedMessages('What was bought?', [{ n: 1, source_id: 'ted:1', title: 'T', text: 'Beds were bought.' }]);
  t.match(system.content, /the language the question is written in/);
  t.equal(user.content, 'Passages:\n\n[1] T (ted:1)\nBeds were bought.\n\nQuestion: What was bought?');
  t.match(groundedMessages('Τι αγοράστηκε;', [])[0].content, /Write the answer in Greek/);
});
