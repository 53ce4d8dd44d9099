// Deep walks: which end and which mark a deep page starts from, and how long walks are kept.
import t from 'tap';
import { markWalk, newWalk, planWalk, WalkCache, type Walk } from '../../lib/search/deep-walks.js';

t.test('when a walk has no marks, then a page is reached from the nearer end', async (t) => {
  const walk = newWalk('pit', 1_000);
  t.same(planWalk(walk, 100, 50), { forward: true, from: 0, skip: 100, take: 50 });
  t.same(planWalk(walk, 800, 50), { forward: false, from: 0, skip: 150, take: 50 }, 'skips the 150 after the page, from the end');
  t.same(planWalk(walk, 980, 50), { forward: false, from: 0, skip: 0, take: 20 }, 'a short last page');
  t.equal(planWalk(walk, 1_000, 10), null, 'at the total: nothing to read');
});

t.test('when earlier pages left marks, then the page starts from the closest one before it, from either end', async (t) => {
  const walk = newWalk('pit', 1_000);
  markWalk(walk, true, 300, ['a']);
  markWalk(walk, true, 600, ['b']);
  markWalk(walk, false, 100, ['z']);
  t.same(planWalk(walk, 600, 50), { forward: true, from: 600, after: ['b'], skip: 0, take: 50 }, 'the next page of a client paging on');
  t.same(planWalk(walk, 450, 50), { forward: true, from: 300, after: ['a'], skip: 150, take: 50 });
  t.same(planWalk(walk, 850, 50), { forward: false, from: 100, after: ['z'], skip: 0, take: 50 }, 'from the end when closer');
  t.same(planWalk(walk, 250, 100), { forward: true, from: 0, skip: 250, take: 100 }, 'a mark past the page is no use');
});

t.test('when more marks are made than are kept, then the oldest are forgotten', async (t) => {
  const walk = newWalk('pit', 1_000_000);
  for (let i = 1; i <= 200; i++) markWalk(walk, true, i * 10, [i]);
  t.equal(walk.marks[0].size, 128);
  t.notOk(walk.marks[0].has(10));
  t.same(walk.marks[0].get(2_000), [200]);
});

t.test('when walks are kept, then they expire when idle or old, and the least recently used goes first', async (t) => {
  let now = 0;
  const cache = new WalkCache({ maxWalks: 2, idleMs: 100, maxAgeMs: 1_000 }, () => now);
  const a = newWalk('a', 1, now);
  t.same(cache.add('k1', a), []);
  now = 50;
  t.equal(cache.get('k1'), a);
  t.equal(a.usedAt, 50, 'use keeps it alive');
  now = 149;
  t.equal(cache.get('k1'), a, 'idle 99 ms: kept');
  now = 249;
  t.equal(cache.get('k1'), undefined, 'idle 100 ms: expired');
  t.same(cache.sweep(), [a], 'handed back once swept, to close its point in time');
  t.same(cache.sweep(), []);

  const b = newWalk('b', 1, now);
  const c = newWalk('c', 1, now);
  const d = newWalk('d', 1, now);
  cache.add('k1', b);
  cache.add('k2', c);
  cache.get('k1');
  t.same(cache.add('k3', d), [c], 'k2 was used least recently');
  t.same(
    cache.add('k3', newWalk('e', 1, now)).map((w: Walk) => w.pitId),
    ['e'],
    'a live walk is not replaced: the newcomer is handed back',
  );

  for (now = 249; now < 1_300; now += 90) cache.get('k1');
  t.equal(cache.get('k1'), undefined, 'in use all along, but older than maxAgeMs');
  t.same(
    cache
      .clear()
      .map((w: Walk) => w.pitId)
      .sort(),
    ['b', 'd'],
  );
});
