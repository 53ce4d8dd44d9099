// Generations of the embedded index: a rebuild writes a source's new generation beside the serving one
// and swaps at the end, so readers see the old one until then, a killed rebuild leaves it serving, and
// a rebuild given a rejected document fails with the old one in place.
import t from 'tap';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { Database } from '../../lib/sqlite.js';
import { doc, ids, indexFiles } from '../helpers/embedded-index.js';
import { killRebuildMidway } from '../helpers/rebuild-midway.js';

const newFile = indexFiles(t);

t.test('when another connection reads during a rebuild, then it sees the old generation until the swap', async (t) => {
  const file = newFile();
  const writer = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm' });
  const reader = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm' });
  t.teardown(async () => {
    await writer.close();
    await reader.close();
  });
  await writer.upsert([doc('rae:old1', '2024-01-01T00:00:00Z', 'παλιά άδεια', 'x'), doc('rae:old2', '2024-01-02T00:00:00Z', 'παλιά άδεια', 'y')]);
  const seen: string[][] = [];
  const look = async () => ids((await reader.list({ source: 'rae', limit: 10, offset: 0 })).hits);
  seen.push(await look());
  await writer.rebuild(
    'rae',
    (async function* () {
      yield [doc('rae:new1', '2024-02-01T00:00:00Z', 'νέα άδεια', 'z')];
      seen.push(await look());
      yield [doc('rae:new2', '2024-02-02T00:00:00Z', 'νέα άδεια', 'w')];
      seen.push(await look());
    })(),
  );
  seen.push(await look());
  t.same(seen, [
    ['rae:old2', 'rae:old1'],
    ['rae:old2', 'rae:old1'],
    ['rae:old2', 'rae:old1'],
    ['rae:new2', 'rae:new1'],
  ]);
  t.equal((await reader.search({ text: 'παλιά', limit: 10, offset: 0 })).total, 0);
  t.equal((await reader.stats()).sources.rae?.documents, 2);
});

t.test(
  'when a rebuild of every source is killed midway, then the old generation keeps serving and taking writes, and the next one succeeds and drops what the killed one left',
  async (t) => {
    const file = newFile();
    const p = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm' });
    t.teardown(() => p.close());
    await p.upsert([doc('kimdis:old1', '2024-01-01T00:00:00Z', 'παλιά σύμβαση', 'x'), doc('rae:old1', '2024-01-02T00:00:00Z', 'παλιά άδεια', 'y')]);
    await killRebuildMidway(['embedded', file, '-', 'all', '2', 'm']);
    const generations = () => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare('SELECT state, count(*) AS n FROM generations GROUP BY state ORDER BY state').all();
      } finally {
        db.close();
      }
    };
    t.same(
      generations(),
      [
        { state: 'serving', n: 2 },
        { state: 'staging', n: 8 },
      ],
      'the killed rebuild left its staging sets',
    );
    t.same(ids((await p.list({ source: 'kimdis', limit: 10, offset: 0 })).hits), ['kimdis:old1'], 'the old generation serves');
    t.equal((await p.search({ text: 'Νέα', limit: 0, offset: 0 })).total, 0, 'nothing of the killed rebuild shows');
    t.same(await p.upsert([doc('rae:old2', '2024-01-03T00:00:00Z', 'παλιά άδεια', 'z')]), { written: 1, failed: [] }, 'and takes writes');

    // Another process (the API server) ingests during the next rebuild: caught up at the swap.
    const other = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm' });
    t.teardown(() => other.close());
    const r = await p.rebuild(
      'all',
      (async function* () {
        yield [doc('kimdis:new1', '2024-02-01T00:00:00Z', 'νέα σύμβαση', 'w')];
        await other.upsert([doc('ted:during', '2024-02-02T00:00:00Z', 'νέα προκήρυξη', 'v', { indexed_at: new Date().toISOString() })]);
        yield [doc('rae:new1', '2024-02-03T00:00:00Z', 'νέα άδεια', 'u')];
      })(),
    );
    t.same(
      r.bySource,
      { diavgeia: 0, ted: 1, elstat: 0, rae: 1, data_gov_gr: 0, mitos: 0, kimdis: 1, geodata: 0 },
      'each source holds what was loaded and what was ingested meanwhile',
    );
    t.same(generations(), [{ state: 'serving', n: 8 }], 'one serving set per source, nothing left over');
    t.same(ids((await other.search({ text: 'νέα', limit: 10, offset: 0 })).hits).sort(), ['kimdis:new1', 'rae:new1', 'ted:during']);
    t.equal((await other.search({ text: 'παλιά', limit: 0, offset: 0 })).total, 0, 'the old generation is gone');
  },
);

t.test('when documents are invalid, then upsert reports them and writes the rest', async (t) => {
  const p = new EmbeddedProvider({ file: newFile(), dimension: 2, embeddingModel: 'm' });
  t.teardown(() => p.close());
  const bad = [
    doc('ted:B1', 'yesterday', 't', 'c'),
    doc('nowhere:B2', '2024-01-01T00:00:00Z', 't', 'c'),
    doc('ted:B3', '2024-01-01T00:00:00Z', 't', 'c', { embedding: [1, 0, 0] }),
    { ...doc('ted:B4', '2024-01-01T00:00:00Z', 't', 'c'), source_id: '' },
  ];
  const r = await p.upsert([...bad, doc('ted:OK', '2024-01-01T00:00:00Z', 'καλό', 'c')]);
  t.equal(r.written, 1);
  t.same(
    r.failed.map((f) => f.source_id),
    ['ted:B1', 'nowhere:B2', 'ted:B3', ''],
  );
  t.match(r.failed[2].error, /2 dimensions/);
  t.equal((await p.stats()).total_documents, 1);
  await t.rejects(
    p.rebuild(
      'ted',
      (async function* () {
        yield [doc('ted:OK', 'bad date', 't', 'c')];
      })(),
    ),
    /rejected/,
  );
  t.same(ids((await p.list({ source: 'ted', limit: 10, offset: 0 })).hits), ['ted:OK'], 'the old generation still serves');
  await t.rejects(p.list({ source: 'ted', filters: { since: '2024-13' }, limit: 1, offset: 0 }), /YYYY-MM-DD/);
});
