// The relevance benchmark's judged queries and its metrics (bench/relevance).
import fs from 'node:fs';
import t from 'tap';
import { ndcgAt, recallAt } from '../../bench/relevance/metrics.js';

const fixture = JSON.parse(fs.readFileSync(new URL('../fixtures/relevance/queries.json', import.meta.url), 'utf8')) as {
  queries: { id: string; category: string; query: string; criterion: string; relevant: string[] }[];
};

t.test('when the judged set is read, then it has at least 50 queries of every kind, each with relevant documents', async (t) => {
  const { queries } = fixture;
  t.ok(queries.length >= 50, `${queries.length} queries`);
  t.equal(new Set(queries.map((q) => q.id)).size, queries.length, 'ids are unique');
  const kinds = new Set(queries.map((q) => q.category));
  t.same([...kinds].sort(), ['cross-language', 'english', 'entity', 'greek', 'greeklish', 'paraphrase']);
  for (const q of queries) {
    t.ok(q.relevant.length > 0 && q.query.trim() && q.criterion, q.id);
    t.equal(new Set(q.relevant).size, q.relevant.length, `${q.id}: no document twice`);
    t.ok(q.relevant.every((id) => /^[a-z_]+:./.test(id)), `${q.id}: source ids`);
  }
});

t.test('when a ranking is scored, then nDCG@10 and recall@10 follow their definitions', async (t) => {
  const relevant = new Set(['a', 'b']);
  t.equal(ndcgAt(10, ['a', 'b', 'x'], relevant), 1);
  t.equal(ndcgAt(10, ['x', 'y'], relevant), 0);
  t.equal(ndcgAt(10, ['x', 'a'], relevant), (1 / Math.log2(3)) / (1 + 1 / Math.log2(3)));
  t.equal(recallAt(10, ['x', 'a'], relevant), 0.5);
  // More relevant documents than fit in 10: recall is out of 10.
  const many = new Set(Array.from({ length: 30 }, (_, i) => `d${i}`));
  t.equal(recallAt(10, [...many].slice(0, 10), many), 1);
  t.equal(ndcgAt(10, ['a'], new Set()), 0);
});
