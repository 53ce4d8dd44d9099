import t from 'tap';
import { RankingCache, rankingDepth, type Ranking } from '../../lib/search/embedded/rankings.js';

function ranking(n: number, total = n): Ranking {
  return { set: new Uint8Array(n), rid: BigInt64Array.from({ length: n }, (_, i) => BigInt(i)), score: new Float64Array(n), total };
}

t.test('when a page ends at k, then ranking goes at least ten pages on, and twice as deep up to 100,000 more', async (t) => {
  t.equal(rankingDepth(200, 100), 1_200);
  t.equal(rankingDepth(50_000, 100), 100_000);
  t.equal(rankingDepth(500_000, 100), 600_000);
});

t.test('when a ranking is asked for, then only at its version and within its depth (or when complete)', async (t) => {
  const cache = new RankingCache({ maxEntries: 1_000, maxRankings: 8, idleMs: 60_000 });
  cache.set('q', 'v1', ranking(100, 500));
  t.ok(cache.get('q', 'v1', 100), 'within its depth');
  t.notOk(cache.get('q', 'v1', 101), 'past its depth');
  t.notOk(cache.get('q', 'v2', 50), 'another version of the index');
  t.notOk(cache.get('q', 'v1', 50), 'and a stale one is dropped');
  t.equal(cache.size, 0);
  cache.set('all', 'v1', ranking(30, 30));
  t.ok(cache.get('all', 'v1', 1_000), 'a complete ranking serves any page');
});

t.test('when the budget is exceeded, then the least recently used rankings go; one over the budget is not kept', async (t) => {
  const cache = new RankingCache({ maxEntries: 250, maxRankings: 8, idleMs: 60_000 });
  cache.set('a', 'v', ranking(100));
  cache.set('b', 'v', ranking(100));
  cache.get('a', 'v', 1);
  cache.set('c', 'v', ranking(100));
  t.ok(cache.get('a', 'v', 1), 'recently used: kept');
  t.notOk(cache.get('b', 'v', 1), 'least recently used: dropped');
  t.equal(cache.size, 200);
  cache.set('huge', 'v', ranking(251));
  t.notOk(cache.get('huge', 'v', 1));
  t.equal(cache.size, 200, 'nothing was dropped for it');
  const few = new RankingCache({ maxEntries: 1_000, maxRankings: 2, idleMs: 60_000 });
  for (const key of ['x', 'y', 'z']) few.set(key, 'v', ranking(1));
  t.notOk(few.get('x', 'v', 1), 'at most maxRankings');
});

t.test('when a ranking goes unused for idleMs, then it is dropped', async (t) => {
  let now = 0;
  const cache = new RankingCache({ maxEntries: 1_000, maxRankings: 8, idleMs: 60_000 }, () => now);
  cache.set('q', 'v', ranking(10));
  now = 59_999;
  t.ok(cache.get('q', 'v', 1));
  now = 119_998;
  t.ok(cache.get('q', 'v', 1), 'each use restarts the clock');
  now = 179_998;
  t.notOk(cache.get('q', 'v', 1));
  t.equal(cache.size, 0);
});
