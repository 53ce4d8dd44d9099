// The relevance benchmark's judged queries and its metrics (bench/relevance).
import t from 'tap';
import { ndcgAt, recallAt } from '../../bench/relevance/metrics.js';
import { isGreekDocument, judgedQueries } from '../../bench/relevance/queries.js';

const queries = judgedQueries();

t.test('when the judged set is read, then it has at least 100 queries of every kind, each with relevant documents but those on absent topics', async (t) => {
  t.ok(queries.length >= 100, `${queries.length} queries`);
  t.equal(new Set(queries.map((q) => q.id)).size, queries.length, 'ids are unique');
  const kinds = new Set(queries.map((q) => q.category));
  t.same([...kinds].sort(), ['absent', 'cross-language', 'english', 'entity', 'greek', 'greeklish', 'identifier', 'paraphrase']);
  for (const q of queries) {
    t.ok((q.category === 'absent') === (q.relevant.length === 0) && q.query.trim() && q.criterion, q.id);
    t.equal(new Set(q.relevant).size, q.relevant.length, `${q.id}: no document twice`);
    t.ok(
      q.relevant.every((id) => /^[a-z_]+:./.test(id)),
      `${q.id}: source ids`,
    );
  }
});

t.test('when the judged set is read, then every query is in one half and each kind splits evenly', async (t) => {
  for (const q of queries) t.ok(q.split === 'tune' || q.split === 'held-out', `${q.id}: ${q.split}`);
  for (const kind of new Set(queries.map((q) => q.category))) {
    const of = queries.filter((q) => q.category === kind);
    const tune = of.filter((q) => q.split === 'tune').length;
    t.ok(tune - (of.length - tune) === 0 || tune - (of.length - tune) === 1, `${kind}: ${tune} tune of ${of.length}`);
  }
});

t.test('when the judged set is read, then at least ten questions are on absent topics and ten name an identifier', async (t) => {
  t.ok(queries.filter((q) => q.category === 'absent').length >= 10);
  const named = queries.filter((q) => q.category === 'identifier');
  t.ok(named.length >= 10);
  t.ok(named.some((q) => /[α-ω]/i.test(q.query)) && named.some((q) => !/[α-ω]/i.test(q.query)), 'in Greek and English sentences');
});

t.test('when the judged set is read, then at least 38 English questions have Greek documents to find', async (t) => {
  const english = queries.filter((q) => q.category === 'cross-language');
  t.ok(english.length >= 38, `${english.length} English questions for Greek documents`);
  for (const q of english) {
    t.notMatch(q.query, /[α-ωά-ώ]/i, `${q.id}: the question is English`);
    t.ok(q.relevant.some(isGreekDocument), `${q.id}: a Greek relevant document`);
  }
  t.ok(isGreekDocument('kimdis:23SYMV012197322') && isGreekDocument('diavgeia:00ΞΑΝΦΝΠ-Θ4Φ'));
  t.notOk(isGreekDocument('ted:101948-2025') || isGreekDocument('elstat:une_rt_m:M.SA.TOTAL.PC_ACT.T.EL'));
});

t.test('when a ranking is scored, then nDCG@10 and recall@10 follow their definitions', async (t) => {
  const relevant = new Set(['a', 'b']);
  t.equal(ndcgAt(10, ['a', 'b', 'x'], relevant), 1);
  t.equal(ndcgAt(10, ['x', 'y'], relevant), 0);
  t.equal(ndcgAt(10, ['x', 'a'], relevant), 1 / Math.log2(3) / (1 + 1 / Math.log2(3)));
  t.equal(recallAt(10, ['x', 'a'], relevant), 0.5);
  // More relevant documents than fit in 10: recall is out of 10.
  const many = new Set(Array.from({ length: 30 }, (_, i) => `d${i}`));
  t.equal(recallAt(10, [...many].slice(0, 10), many), 1);
  t.equal(ndcgAt(10, ['a'], new Set()), 0);
});
