// A one-source rebuild of Elasticsearch in place (lib/search/elasticsearch/source-rebuild.ts) against a
// real node: readers during it see the old generation of the source or the new one, whole, never both,
// never neither; afterwards gets by id, similar-document exclusion and deep pages read the new one.
import t from 'tap';
import type { IndexedDocument } from '../../index-mappings/document.js';
import { readAlias } from '../../index-mappings/index-names.js';
import type { SourceName } from '../../index-mappings/sources.js';
import { ElasticsearchProvider } from '../../lib/search/elasticsearch.js';
import { aliasTargets, deleteIndices, elasticsearchUrl, es, indicesOf, makeDoc, randomPrefix } from '../helpers/elasticsearch.js';

t.setTimeout(300_000);

const DIM = 4;
const MODEL = 'test/model-4';
const url = await elasticsearchUrl(t);
const OLD = 40;
const NEW = 60;

function docs(source: SourceName, n: number, title: string, vector: number[] | null = null): IndexedDocument[] {
  return Array.from({ length: n }, (_, i) =>
    makeDoc(source, `d${String(i).padStart(3, '0')}`, { title: `${title} ${i}`, content: 'Στατιστική', embedding: vector }),
  );
}

/** Documents of `source` the physical index holds, of every generation (what the alias filter hides included). */
async function held(index: string, source?: SourceName): Promise<number> {
  await es(url, 'POST', `/${index}/_refresh`);
  return (await es(url, 'POST', `/${index}/_count`, source ? { query: { term: { source } } } : {})).body.count;
}

/** Which generation a read of elstat saw by its count, and whether the titles it listed are all of that one. */
function generationOf(count: number, titles: string[]): string {
  const generation = count === OLD ? 'old' : count === NEW ? 'new' : `a count of ${count}`;
  const expected = count === OLD ? 'Παλιό' : 'Νέο';
  const mixed = titles.filter((x) => !x.startsWith(expected));
  return mixed.length > 0 ? `${generation} with ${mixed.length} titles of the other` : generation;
}

t.test('when a source is rebuilt while clients read, then each read sees one whole generation of it, and afterwards every read path the new one', async (t) => {
  const prefix = randomPrefix();
  // pageWindow 8: pages past offset 8 are walked in a point in time on the filtered alias.
  const p = new ElasticsearchProvider({ url, prefix, dimension: DIM, embeddingModel: MODEL, pageWindow: 8 });
  t.teardown(async () => {
    await p.close();
    await deleteIndices(url, prefix);
  });
  await p.init();
  await p.upsert([...docs('elstat', OLD, 'Παλιό', [1, 0, 0, 0]), ...docs('ted', 10, 'Προκήρυξη', [0, 1, 0, 0])]);
  await p.refresh();
  const [index] = await aliasTargets(url, readAlias(prefix));

  const seen: string[] = [];
  const wrong: string[] = [];
  let reads = 0;
  let rebuilding = true;
  /**
   * One read of each path, each judged alone (the swap may fall between two of them): the count names
   * the generation, and what the read listed must all be of that one, each document once.
   */
  async function readOnce(): Promise<void> {
    const page = await p.list({ source: 'elstat', limit: 100, offset: 0 });
    const ids = page.hits.map((h) => h.doc.source_id);
    const verdicts = {
      count: generationOf((await p.list({ source: 'elstat', limit: 0, offset: 0 })).total, []),
      page:
        generationOf(
          page.total,
          page.hits.map((h) => h.doc.title),
        ) + (new Set(ids).size !== ids.length || ids.length !== page.total ? ' with doubles or gaps' : ''),
      deep: await p.list({ source: 'elstat', limit: 10, offset: 20 }).then((d) =>
        generationOf(
          d.total,
          d.hits.map((h) => h.doc.title),
        ),
      ),
      stats: generationOf((await p.stats()).sources.elstat?.documents ?? 0, []),
      text: await p.search({ text: 'Στατιστική', filters: { source: 'elstat' }, limit: 100, offset: 0 }).then((r) =>
        generationOf(
          r.total,
          r.hits.map((h) => h.doc.title),
        ),
      ),
      knn: await p.knn({ vector: [1, 0, 0, 0], limit: 100, filters: { source: 'elstat' } }).then((hits) =>
        generationOf(
          hits.length,
          hits.map((h) => h.doc.title),
        ),
      ),
    };
    for (const [path, verdict] of Object.entries(verdicts)) {
      if (verdict !== 'old' && verdict !== 'new') wrong.push(`${path}: ${verdict}`);
      seen.push(verdict);
    }
    reads++;
  }
  const readers = (async () => {
    while (rebuilding) await readOnce();
    await readOnce();
  })();
  async function* slowly(): AsyncGenerator<IndexedDocument[]> {
    for (let i = 0; i < 6; i++) {
      // Each batch waits for a whole read, so reads interleave with the load.
      const at = reads;
      while (reads === at) await new Promise((resolve) => setTimeout(resolve, 5));
      yield docs('elstat', NEW, 'Νέο', [1, 0, 0, 0]).slice(i * 10, i * 10 + 10);
    }
  }
  const r = await p.rebuild('elstat', slowly());
  rebuilding = false;
  await readers;

  t.same(wrong, [], 'no read saw a gap, a mix or doubles');
  t.ok(seen.includes('old') && seen.at(-1) === 'new', `reads saw the old generation during the rebuild and the new one after (${seen.length} reads)`);
  t.same({ documents: r.documents, index: r.index }, { documents: NEW, index }, 'written in place');
  t.same(await indicesOf(url, prefix), [index]);
  t.equal(await held(index, 'elstat'), NEW, 'the replaced generation is deleted');
  t.equal((await p.list({ source: 'ted', limit: 0, offset: 0 })).total, 10, 'another source is untouched');

  const got = await p.get('elstat:d005');
  t.equal(got?.title, 'Νέο 5', 'a get by id reads the new generation');
  t.same(got?.embedding, [1, 0, 0, 0]);
  t.equal(await p.get('elstat:d059').then((d) => d?.title), 'Νέο 59', 'including a document only it holds');
  t.equal((await p.get('ted:d001'))?.title, 'Προκήρυξη 1', 'and the other source');
  const excluded = await p.knn({ vector: [1, 0, 0, 0], limit: 100, filters: { source: 'elstat' }, excludeId: 'elstat:d005' });
  t.equal(excluded.length, NEW - 1, 'similar documents leave out the document itself by its source_id');
  t.notOk(excluded.some((h) => h.doc.source_id === 'elstat:d005'));

  t.same(await p.upsert(docs('elstat', 1, 'Ενημέρωση')), { written: 1, failed: [] }, 'an ingest after the swap writes into the new generation');
  await p.refresh();
  t.equal((await p.get('elstat:d000'))?.title, 'Ενημέρωση 0');
  t.equal((await p.list({ source: 'elstat', limit: 0, offset: 0 })).total, NEW, 'overwriting, not doubling');
});

t.test('when a source is rebuilt again, then the previous generation is replaced as the first was', async (t) => {
  const prefix = randomPrefix();
  const p = new ElasticsearchProvider({ url, prefix, dimension: DIM, embeddingModel: MODEL });
  t.teardown(async () => {
    await p.close();
    await deleteIndices(url, prefix);
  });
  await p.init();
  await p.upsert(docs('rae', 5, 'Α'));
  for (const [n, title] of [
    [3, 'Β'],
    [4, 'Γ'],
  ] as const) {
    const r = await p.rebuild(
      'rae',
      (async function* () {
        yield docs('rae', n, title);
      })(),
    );
    t.equal(r.documents, n);
  }
  const [index] = await aliasTargets(url, readAlias(prefix));
  t.equal(await held(index), 4, 'nothing of earlier generations is left');
  t.equal((await p.get('rae:d003'))?.title, 'Γ 3');
  t.equal(await p.get('rae:d004'), null, 'a document the store no longer holds is gone');
});

t.test('when the URL lists several nodes, then the provider reads and writes through them', async (t) => {
  const prefix = randomPrefix();
  // The same node twice: what matters here is that the list is split into nodes, not taken as one URL.
  const p = new ElasticsearchProvider({ url: `${url},${url}`, prefix, dimension: DIM, embeddingModel: MODEL });
  t.teardown(async () => {
    await p.close();
    await deleteIndices(url, prefix);
  });
  await p.init();
  t.same(await p.upsert(docs('rae', 2, 'Α')), { written: 2, failed: [] });
  t.equal((await p.get('rae:d001'))?.title, 'Α 1');
});
