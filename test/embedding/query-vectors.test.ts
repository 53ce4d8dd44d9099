// The cache of question vectors (lib/embedding/query-vectors.ts) over a real embedder whose calls are counted.
import t from 'tap';
import type { EmbedKind, Embedder } from '../../lib/embedding/embedder.js';
import { HashingEmbedder } from '../../lib/embedding/hashing-embedder.js';
import { QueryVectors } from '../../lib/embedding/query-vectors.js';

/** The hashing embedder under another id, counting the texts it embeds. */
class Counted implements Embedder {
  readonly fallback = true;
  readonly texts: string[] = [];
  failNext = false;
  private readonly inner: HashingEmbedder;
  constructor(
    readonly id = 'test/counted',
    dimension = 384,
  ) {
    this.inner = new HashingEmbedder(dimension);
  }
  get dimension(): number {
    return this.inner.dimension;
  }
  readonly calls: string[][] = [];
  async embed(texts: string[], _kind?: EmbedKind): Promise<number[][]> {
    this.calls.push(texts);
    this.texts.push(...texts);
    if (this.failNext) {
      this.failNext = false;
      throw new Error('down');
    }
    return this.inner.embed(texts);
  }
}

t.test('when the same question is asked again, then its vector is reused without calling the embedder', async (t) => {
  const embedder = new Counted();
  const vectors = new QueryVectors();
  const first = await vectors.vector(embedder, 'σχολικά γεύματα');
  const again = await vectors.vector(embedder, 'σχολικά γεύματα');
  t.same(again, first);
  t.same(first, (await embedder.embed(['σχολικά γεύματα']))[0], "the vector is the embedder's");
  t.same(embedder.texts, ['σχολικά γεύματα', 'σχολικά γεύματα'], 'one call by the cache, one by the test');
  again[0] = 42;
  t.not((await vectors.vector(embedder, 'σχολικά γεύματα'))[0], 42, 'a caller changing its copy changes nothing kept');
});

t.test('when questions arrive at once, then each distinct text is embedded once', async (t) => {
  const embedder = new Counted();
  const vectors = new QueryVectors();
  await Promise.all(['a b', 'a b', 'c d', 'a b'].map((q) => vectors.vector(embedder, q)));
  t.same(embedder.texts, ['a b', 'c d']);
});

t.test('when another model (or another kind of text) asks the same text, then it misses and gets its own vector', async (t) => {
  const small = new Counted('test/small', 64);
  const other = new Counted('test/other', 384);
  const vectors = new QueryVectors();
  const a = await vectors.vector(new Counted('test/a'), 'δρόμοι');
  const b = await vectors.vector(small, 'δρόμοι');
  await vectors.vector(other, 'δρόμοι');
  await vectors.vector(other, 'δρόμοι', 'passage');
  t.equal(a.length, 384);
  t.equal(b.length, 64, "the other model's vector, not the first one's");
  t.same(other.texts, ['δρόμοι', 'δρόμοι'], 'a query and a passage are kept apart');
  t.equal(vectors.size, 4);
});

t.test('when the bound of entries is reached, then the least recently used question goes first', async (t) => {
  const embedder = new Counted();
  const vectors = new QueryVectors({ entries: 2 });
  await vectors.vector(embedder, 'one');
  await vectors.vector(embedder, 'two');
  await vectors.vector(embedder, 'one'); // now 'two' is the least recently used
  await vectors.vector(embedder, 'three');
  t.equal(vectors.size, 2);
  embedder.texts.length = 0;
  await vectors.vector(embedder, 'one');
  await vectors.vector(embedder, 'three');
  t.same(embedder.texts, [], 'the two recent ones are kept');
  await vectors.vector(embedder, 'two');
  t.same(embedder.texts, ['two'], 'the least recent one was evicted');
});

t.test('when the bound of bytes is reached, then old questions are evicted until the rest fit', async (t) => {
  const embedder = new Counted('test/counted', 100);
  // An entry of a 100-dimension vector costs about 1 KB: room for two.
  const vectors = new QueryVectors({ bytes: 2_500 });
  for (const q of ['one', 'two', 'three']) await vectors.vector(embedder, q);
  t.equal(vectors.size, 2);
  embedder.texts.length = 0;
  await vectors.vector(embedder, 'three');
  await vectors.vector(embedder, 'one');
  t.same(embedder.texts, ['one'], 'the oldest went');
});

t.test('when the embedder fails, then the failure is not kept and the next ask embeds again', async (t) => {
  const embedder = new Counted();
  const vectors = new QueryVectors();
  embedder.failNext = true;
  await t.rejects(vectors.vector(embedder, 'q'), /down/);
  t.equal(vectors.size, 0);
  t.equal((await vectors.vector(embedder, 'q')).length, 384);
  t.same(embedder.texts, ['q', 'q']);
});

t.test('when a question and its translation are asked together, then those not kept are embedded in one call, each kept', async (t) => {
  const embedder = new Counted();
  const vectors = new QueryVectors();
  await vectors.vector(embedder, 'lift maintenance');
  const [question, greek] = await vectors.vectors(embedder, ['lift maintenance', 'συντήρηση ανελκυστήρων']);
  t.same(embedder.calls, [['lift maintenance'], ['συντήρηση ανελκυστήρων']], 'the kept one is not embedded again');
  t.same(question, (await new HashingEmbedder().embed(['lift maintenance']))[0]);
  t.same(greek, (await new HashingEmbedder().embed(['συντήρηση ανελκυστήρων']))[0]);
  await vectors.vectors(embedder, ['school meals', 'σχολικά γεύματα']);
  t.same(embedder.calls.at(-1), ['school meals', 'σχολικά γεύματα'], 'two new texts, one call');
  t.equal(vectors.size, 4);
});
