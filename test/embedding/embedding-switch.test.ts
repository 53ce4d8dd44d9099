// A rebuild for another embedder (the switch to the model fetched at the first start), on both engines:
// the new generation records the model, its vectors are searched, writes go on, and a process opened
// with the old embedder is refused while one opened with the new is not.
import path from 'node:path';
import t, { type Test } from 'tap';
import type { IndexedDocument } from '../../index-mappings/document.js';
import { EmbeddedIndexMismatchError, EmbeddedProvider } from '../../lib/search/embedded.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import { tempDir } from '../helpers/app.js';
import { deleteIndices, elasticsearchUrl, makeDoc, randomPrefix } from '../helpers/elasticsearch.js';

const DIM = 4;
const BEFORE = 'pdi/hashing-4';
const AFTER = 'test/model-4';

function unit(v: number[]): number[] {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/** Three documents: under the old embedder each points along its own axis; under the new, all along the last but `b`. */
function docs(embedder: 'before' | 'after'): IndexedDocument[] {
  return ['a', 'b', 'c'].map((id, i) =>
    makeDoc('kimdis', id, {
      content_hash: String(i).repeat(64),
      embedding: embedder === 'before' ? unit([i === 0 ? 1 : 0, i === 1 ? 1 : 0, i === 2 ? 1 : 0, 0.1]) : unit(id === 'b' ? [0, 0, 0, 1] : [1, 1, 0, 0]),
    }),
  );
}

async function* once(batch: IndexedDocument[]): AsyncIterable<IndexedDocument[]> {
  yield batch;
}

async function switches(t: Test, open: (model: string) => SearchProvider, what: string): Promise<void> {
  const before = open(BEFORE);
  await before.init();
  await before.upsert(docs('before'));
  await before.refresh();
  t.same(await before.recordedEmbedding(), { model: BEFORE, dimension: DIM }, `${what}: the index records the first embedder`);

  if (what === 'embedded') {
    await t.rejects(before.rebuild('kimdis', once(docs('after')), { model: AFTER, dimension: DIM }), /a change of model rebuilds every source/);
  }

  const result = await before.rebuild('all', once(docs('after')), { model: AFTER, dimension: DIM });
  t.equal(result.documents, 3);
  await before.refresh();
  t.same(await before.recordedEmbedding(), { model: AFTER, dimension: DIM }, `${what}: the new generation records the new embedder`);
  const near = await before.knn({ vector: [0, 0, 0, 1], limit: 1 });
  t.equal(near[0]?.doc.source_id, 'kimdis:b', `${what}: the new vectors are searched`);
  const written = await before.upsert([makeDoc('kimdis', 'd', { content_hash: '9'.repeat(64), embedding: unit([1, 0, 0, 0]) })]);
  t.same(written.failed, [], `${what}: writes go on after the switch`);

  const again = open(AFTER);
  await again.init();
  t.same(await again.recordedEmbedding(), { model: AFTER, dimension: DIM });
  if (what === 'embedded') {
    const stale = open(BEFORE);
    await t.rejects(stale.init(), EmbeddedIndexMismatchError, 'a process of the old embedder is refused');
  }
}

t.test('when the embedded engine is rebuilt for another embedder, then it records and serves that embedder', async (t) => {
  const file = path.join(tempDir(t), 'index.db');
  await switches(
    t,
    (model) => {
      const p = new EmbeddedProvider({ file, dimension: DIM, embeddingModel: model });
      t.teardown(() => p.close());
      return p;
    },
    'embedded',
  );
});

t.test('when an Elasticsearch index is rebuilt for another embedder, then the new index records and serves that embedder', async (t) => {
  const url = await elasticsearchUrl(t);
  const prefix = randomPrefix();
  t.teardown(() => deleteIndices(url, prefix));
  await switches(
    t,
    (model) => {
      const p = new ElasticsearchProvider({ url, prefix, dimension: DIM, embeddingModel: model });
      t.teardown(() => p.close());
      return p;
    },
    'elasticsearch',
  );
});
