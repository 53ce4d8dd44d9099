// Refusals of a key that retries at once are answered after a pause; one that waited is answered at once.
import t from 'tap';
import type { Principal } from '../../api/db/keys.js';
import { RefusalPacer } from '../../api/middleware/refusal-pacing.js';
import { QuotaExceededError, TooManyInFlightError } from '../../lib/errors.js';

const principal = (keyId: string) => ({ keyId, orgId: 'org', tier: 'pro' }) as Principal;
const inFlight = () => new TooManyInFlightError('full', 1);

t.test('when a key is refused again within a second of its last refusal, then the answer is held; after a second without one, it is not', async (t) => {
  const pacer = new RefusalPacer();
  const paced = (keyId: string, at: number, err = inFlight()) => (pacer.pace(principal(keyId), err, at), err.answerAfterMs);
  t.equal(paced('a', 10_000), 0, 'a first refusal is answered at once');
  t.equal(paced('a', 10_300), 500, 'a retry 300 ms later is held');
  t.equal(paced('a', 11_200, new QuotaExceededError('spent', 60)), 500, 'a quota refusal counts the same, 900 ms after the last');
  t.equal(paced('b', 11_250), 0, 'another key is paced on its own');
  t.equal(paced('a', 12_200), 0, 'a key that waited a second is answered at once');
});

t.test('when more than 10,000 keys were refused, then the ones refused over a second ago are forgotten and the others kept', async (t) => {
  const pacer = new RefusalPacer();
  for (let i = 0; i < 10_000; i++) pacer.pace(principal(`old-${i}`), inFlight(), 0);
  pacer.pace(principal('recent'), inFlight(), 5_000);
  pacer.pace(principal('trigger'), inFlight(), 5_100);
  const held = inFlight();
  pacer.pace(principal('recent'), held, 5_200);
  t.equal(held.answerAfterMs, 500, 'a recent refusal is still remembered');
  const forgotten = inFlight();
  pacer.pace(principal('old-1'), forgotten, 5_300);
  t.equal(forgotten.answerAfterMs, 0, 'an old one was forgotten');
});
