// Opening an embedded index file: the embedding model and dimension and the text version it was written
// with are checked (an empty index adopts the model), and a damaged file names itself and the way back.
import { closeSync, copyFileSync, openSync, statSync, truncateSync, writeSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { mulberry32 } from '../../data/generator/prng.js';
import { EngineUnavailableError } from '../../lib/errors.js';
import { EmbeddedIndexMismatchError, EmbeddedProvider } from '../../lib/search/embedded.js';
import { TEXT_VERSION } from '../../lib/search/embedded/text.js';
import { Database } from '../../lib/sqlite.js';
import { corpus, doc, ids, indexFiles } from '../helpers/embedded-index.js';

const newFile = indexFiles(t);

t.test('when the index is reopened with another dimension or model, then it refuses to open', async (t) => {
  const file = newFile();
  const first = new EmbeddedProvider({ file, dimension: 4, embeddingModel: 'a/one' });
  await first.upsert([doc('ted:X1', '2024-01-01T00:00:00Z', 'Τίτλος', 'κείμενο', { embedding: [1, 0, 0, 0] })]);
  await first.close();

  const otherDim = new EmbeddedProvider({ file, dimension: 8, embeddingModel: 'a/one' });
  await t.rejects(otherDim.init(), EmbeddedIndexMismatchError);
  await t.rejects(otherDim.init(), /dimension=4.*dimension=8.*Reindex required/s);
  const otherModel = new EmbeddedProvider({ file, dimension: 4, embeddingModel: 'b/two' });
  await t.rejects(otherModel.search({ text: 'κείμενο', limit: 1, offset: 0 }), /embedding_model=a\/one/);

  const same = new EmbeddedProvider({ file, dimension: 4, embeddingModel: 'a/one' });
  t.equal((await same.search({ text: 'ΚΕΙΜΕΝΟ', limit: 1, offset: 0 })).total, 1, 'the data persisted');
  t.same((await same.get('ted:X1'))?.embedding, [1, 0, 0, 0]);
  await same.close();
});

t.test('when the index was written by a build with a newer text version, then it refuses to open', async (t) => {
  const file = newFile();
  const first = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm' });
  await first.upsert([doc('ted:X1', '2024-01-01T00:00:00Z', 'Τίτλος', 'κείμενο')]);
  await first.close();
  const raw = new Database(file);
  raw.prepare(`UPDATE meta SET value = '99' WHERE key = 'text_version'`).run();
  raw.close();
  const p = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm' });
  await t.rejects(p.init(), new RegExp(`text_version=99.*text_version=${TEXT_VERSION}.*Reindex required`, 's'));
  await p.close();
});

t.test('when an empty index is opened with another model, then it adopts it', async (t) => {
  const file = newFile();
  const first = new EmbeddedProvider({ file, dimension: 4, embeddingModel: 'a/one' });
  await first.init();
  await first.close();
  const next = new EmbeddedProvider({ file, dimension: 3, embeddingModel: 'b/two' });
  await next.upsert([doc('ted:X1', '2024-01-01T00:00:00Z', 't', 'c', { embedding: [0, 1, 0] })]);
  t.same(ids(await next.knn({ vector: [0, 1, 0], limit: 1 })), ['ted:X1']);
  await next.close();
});

t.test(
  'when the index file is damaged, then opening it names the file and the way back, and a read that meets a damaged page is a 503 logged once',
  async (t) => {
    const file = newFile();
    const writer = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm' });
    await writer.upsert(corpus(mulberry32(3), 400));
    await writer.close();
    const pageSize = 4096;
    const size = statSync(file).size;

    // Pages overwritten past the schema page: it opens, and reads meet the damage.
    const damaged = path.join(path.dirname(file), 'damaged-pages.sqlite');
    copyFileSync(file, damaged);
    const fd = openSync(damaged, 'r+');
    writeSync(fd, Buffer.alloc(size - 2 * pageSize, 0xa5), 0, size - 2 * pageSize, 2 * pageSize);
    closeSync(fd);
    const lines: string[] = [];
    const logger = pino(
      { level: 'error' },
      new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const reader = new EmbeddedProvider({ file: damaged, dimension: 2, embeddingModel: 'm', logger });
    t.teardown(() => reader.close());
    for (let i = 0; i < 3; i++) await t.rejects(reader.search({ text: 'λ1', limit: 5, offset: 0 }), EngineUnavailableError);
    t.equal(lines.length, 1, 'logged once');
    t.match(JSON.parse(lines[0]).msg, new RegExp(`The embedded index ${damaged.replace(/[.]/g, '\\.')} is damaged .*pdi reindex`));

    // Cut in half: it does not even open.
    const truncated = path.join(path.dirname(file), 'truncated.sqlite');
    copyFileSync(file, truncated);
    truncateSync(truncated, Math.floor(size / 2));
    const broken = new EmbeddedProvider({ file: truncated, dimension: 2, embeddingModel: 'm' });
    t.teardown(() => broken.close());
    await t.rejects(broken.init(), /^The embedded index .*truncated\.sqlite is damaged \(.+\)\. .*run `pdi reindex`, which moves it aside and rebuilds it\.$/);
  },
);
