// The engine read deadline (lib/search/deadline.ts) keeps nothing of a read once it has ended: with
// AbortSignal.any it kept every answer reachable, and the server's heap grew by the size of each
// answer under sustained load (docs/reliability.md "Memory").
import v8 from 'node:v8';
import vm from 'node:vm';
import t from 'tap';
import { withReadDeadline } from '../../lib/search/deadline.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { EngineTimeoutError } from '../../lib/errors.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

async function settledHeap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  return process.memoryUsage().heapUsed;
}

t.test('when 300 reads of about 1 MB each end, each with its caller signal, then the heap keeps none of them', async (t) => {
  // An answer of ~0.8 MB of heap: 100,000 one-letter strings in an array.
  const provider = {
    search: async () => ({ hits: Array.from({ length: 100_000 }, (_, i) => String.fromCharCode(97 + (i % 26))) }),
  } as unknown as SearchProvider;
  const engine = withReadDeadline(provider, 10_000);
  const reads = async (n: number) => {
    for (let i = 0; i < n; i++) await engine.search({ text: 'x', limit: 10, offset: 0 }, { signal: new AbortController().signal });
  };
  await reads(20);
  const before = await settledHeap();
  await reads(300);
  const grownMiB = ((await settledHeap()) - before) / 1048576;
  t.ok(grownMiB < 30, `the heap grew ${grownMiB.toFixed(1)} MiB over 300 reads (kept, it would be ~230 MiB)`);
});

t.test('when the caller goes away or the deadline passes, then the read is refused with that reason', async (t) => {
  const never = {
    search: (_q: unknown, opts: { signal: AbortSignal }) =>
      new Promise((_r, reject) => opts.signal.addEventListener('abort', () => reject(new Error('engine saw the abort')))),
  } as unknown as SearchProvider;
  const gone = new AbortController();
  const read = withReadDeadline(never, 10_000).search({ text: 'x', limit: 10, offset: 0 }, { signal: gone.signal });
  gone.abort(new Error('client gone'));
  await t.rejects(read, { message: 'client gone' });
  await t.rejects(withReadDeadline(never, 20).search({ text: 'x', limit: 10, offset: 0 }), EngineTimeoutError);
  const already = new AbortController();
  already.abort(new Error('gone before'));
  await t.rejects(withReadDeadline(never, 10_000).search({ text: 'x', limit: 10, offset: 0 }, { signal: already.signal }), { message: 'gone before' });
});
