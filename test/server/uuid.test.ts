// Time-ordered ids (lib/uuid.ts): version 7 UUIDs whose order follows their time.
import t from 'tap';
import { timeOrderedUuid } from '../../lib/uuid.js';

t.test('when ids are made, then they are version 7 UUIDs, distinct, and those of a later millisecond sort after', async (t) => {
  const ids = Array.from({ length: 1000 }, (_, i) => timeOrderedUuid(1_764_000_000_000 + i));
  for (const id of ids) t.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.equal(new Set(ids).size, ids.length);
  t.same([...ids].sort(), ids, 'sorted as made');
  t.equal(timeOrderedUuid(0x0123_4567_89ab).slice(0, 13), '01234567-89ab', 'the time is the first 48 bits');
  const sameMs = Array.from({ length: 1000 }, () => timeOrderedUuid(1_764_000_000_000));
  t.equal(new Set(sameMs).size, sameMs.length, 'distinct within one millisecond');
});
