import t from 'tap';
import { duration, rate } from '../../cli/progress.js';

t.test('when a run has done documents, then its rate is documents a second, with the time left when the total is known', async (t) => {
  t.equal(rate(0, 5_000), '', 'nothing done yet: no rate');
  t.equal(rate(50, 0), '');
  t.equal(rate(25, 10_000), '2.5 documents/s');
  t.equal(rate(1200, 10_000), '120 documents/s');
  t.equal(rate(100, 10_000, 1_000), '10 documents/s, about 2 min left');
  t.equal(rate(3_000, 60_000, 1_000_000), '50 documents/s, about 5 h 32 min left');
  t.equal(rate(1_000, 60_000, 1_000), '17 documents/s', 'done: no estimate');
});

t.test('when a duration is shown, then seconds below 90, minutes below 90, then hours and minutes', async (t) => {
  t.equal(duration(0.2), '1 s');
  t.equal(duration(45), '45 s');
  t.equal(duration(600), '10 min');
  t.equal(duration(12_000), '3 h 20 min');
});
