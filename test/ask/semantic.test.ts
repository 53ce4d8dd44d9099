// The pieces of ask: the fusion of its rankings, passage choice, the generator's URL and prompt.
import t from 'tap';
import type { Embedder } from '../../lib/embedding/embedder.js';
import { semanticWeight } from '../../lib/semantic/retrieve.js';
import { keepWithin, scoreFusion } from '../../lib/semantic/fusion.js';
import { completionsUrl, groundedMessages } from '../../lib/semantic/generator.js';
import { bestPassage, questionWords } from '../../lib/semantic/passages.js';

type Hit = { id: string; s: number };
const hits = (...pairs: [string, number][]): Hit[] => pairs.map(([id, s]) => ({ id, s }));
const fuse = (a: Hit[], b: Hit[], wa = 0.5) =>
  scoreFusion(
    [
      { hits: a, weight: wa },
      { hits: b, weight: 1 - wa },
    ],
    (h) => h.id,
    (h) => h.s,
  );

t.test('when two rankings are fused, then each is scaled to its own range and the weighted scale values summed', async (t) => {
  // Cosines (0.80..0.90) and BM25 (2..12) on their own scales: a at 1 and 0.2; b at 0.5 and 1.
  const fused = fuse(hits(['a', 0.9], ['b', 0.85], ['c', 0.8]), hits(['b', 12], ['a', 4], ['d', 2]), 0.7);
  t.same(
    fused.map((f) => f.item.id),
    ['a', 'b', 'c', 'd'],
  );
  t.equal(fused[0].score.toFixed(6), (0.7 * 1 + 0.3 * 0.2).toFixed(6));
  t.equal(fused[1].score.toFixed(6), (0.7 * 0.5 + 0.3 * 1).toFixed(6));
  t.same(
    fused.slice(2).map((f) => f.score),
    [0, 0],
    'the last of a ranking scores 0 from it',
  );
  t.equal(fuse(hits(['x', 0.5]), hits(['x', 3]))[0].relevance, 1, 'best in both is relevance 1');
  for (const f of fused) t.ok(f.relevance >= 0 && f.relevance < 1, `${f.item.id}: ${f.relevance}`);
});

t.test('when scores tie, then the order of first appearance decides; empty rankings fuse to nothing', async (t) => {
  t.same(
    fuse(hits(['a', 1]), hits(['c', 1])).map((f) => f.item.id),
    ['a', 'c'],
  );
  t.same(fuse([], []), []);
});

t.test('when an item is kept within a place, then it moves up to it when below, and nothing moves otherwise', async (t) => {
  const fused = fuse(hits(['a', 4], ['b', 3], ['c', 2], ['d', 1], ['e', 0]), [], 1);
  const ids = (f: typeof fused) => f.map((x) => x.item.id);
  t.same(ids(keepWithin(fused, (h) => h.id, 'e', 3)), ['a', 'b', 'e', 'c', 'd']);
  t.same(ids(keepWithin(fused, (h) => h.id, 'b', 3)), ['a', 'b', 'c', 'd', 'e']);
  t.same(ids(keepWithin(fused, (h) => h.id, 'q', 3)), ids(fused), 'an unknown key changes nothing');
  t.same(ids(keepWithin(fused, (h) => h.id, undefined, 3)), ids(fused));
  t.equal(keepWithin(fused, (h) => h.id, 'e', 3)[2].score, 0, 'with its own score');
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

t.test(
  "when the question's words are spread over sentences, then the window holding most of them wins, rarer words weighing more, the earlier of equals",
  async (t) => {
    const words = questionWords('σχολικά γεύματα Πάτρας');
    const near = { title: 'T', summary: 'S.', content: 'Σχολικά γεύματα. Άλλο θέμα εδώ. Προμήθεια γευμάτων. Για σχολεία της Πάτρας.' };
    t.equal(bestPassage(near, words), near.content, 'one window of four sentences holds every word');
    const far = { ...near, content: `Σχολικά γεύματα. ${'Άλλο θέμα. '.repeat(60)}Γεύματα για σχολεία της Πάτρας.` };
    t.match(bestPassage(far, words), /^Σχολικά γεύματα\. Άλλο θέμα\./, 'two words at each end, 600 characters apart: the earlier');
    t.equal(bestPassage(far, words, [1, 1, 3]), 'Γεύματα για σχολεία της Πάτρας.', 'the heavier word decides');
  },
);

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

t.test('when a question is in Latin letters and names no code, then the fusion weighs the semantic ranking 0.2; otherwise as before', async (t) => {
  const model = { fallback: false } as Embedder;
  t.equal(semanticWeight(model, 'Which contracts buy a communication software package?'), 0.2);
  t.equal(semanticWeight(model, 'anathesi katharismou sxoleion'), 0.2, 'Greeklish too');
  t.equal(semanticWeight(model, 'Ποιες συμβάσεις καθαρισμού έχει ο Δήμος;'), 0.7, 'Greek');
  t.equal(semanticWeight(model, 'contracts of the Δήμος Αθηναίων'), 0.7, 'any Greek letter');
  t.equal(semanticWeight(model, 'contracts with CPV 48510000'), 0.7, 'a code');
  t.equal(semanticWeight(model, 'contracts of company 094019245'), 0.7, 'an ΑΦΜ');
  t.equal(semanticWeight(model, '2024 contracts'), 0.2, 'a year is not a code');
  t.equal(semanticWeight({ fallback: true } as Embedder, 'Which contracts?'), 0.5, 'the lexical fallback weighs both alike');
});
