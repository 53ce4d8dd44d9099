// The embedded engine's vectors (lib/search/embedded/vector-index.ts, vectors.ts): one approximate index
// for every source against exact search, with source filters, writes, deletes, rebuilds, reader threads,
// a lost or damaged index file, and indexes whose sets still hold their vectors in older layouts.
import fs, { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as sqliteVec from 'sqlite-vec';
import t from 'tap';
import { mulberry32 } from '../../data/generator/prng.js';
import type { IndexedDocument } from '../../index-mappings/document.js';
import type { SourceName } from '../../index-mappings/sources.js';
import { EmbeddedProvider, type EmbeddedOptions } from '../../lib/search/embedded.js';
import { SCHEMA_VERSION } from '../../lib/search/embedded/schema.js';
import { snippetText } from '../../lib/search/snippet.js';
import { VectorIndex } from '../../lib/search/embedded/vector-index.js';
import { VECTOR_LAYOUT } from '../../lib/search/embedded/vectors.js';
import { Database } from '../../lib/sqlite.js';

const DIM = 48;
const root = mkdtempSync(path.join(os.tmpdir(), 'pdi-embedded-vectors-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
let files = 0;
const newFile = () => path.join(root, `index-${++files}.sqlite`);

/** Unit vectors around 200 random directions (one seeded draw), as documents of `source`. */
function corpus(n: number, seed: number, source: SourceName = 'diavgeia'): IndexedDocument[] {
  const rnd = mulberry32(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  const centreRnd = mulberry32(7);
  const centres = Array.from({ length: 200 }, () =>
    Array.from({ length: DIM }, () => Math.sqrt(-2 * Math.log(1 - centreRnd())) * Math.cos(2 * Math.PI * centreRnd())),
  );
  return Array.from({ length: n }, (_, i) => {
    const c = centres[Math.floor(rnd() * centres.length)];
    const v = c.map((x) => x + 0.7 * gauss());
    const norm = Math.hypot(...v);
    return {
      source_id: `${source}:V${seed}-${i}`,
      source,
      country: 'GR',
      title: `Έγγραφο ${i}`,
      doc_type: 'decision',
      doc_category: 'x',
      published_at: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
      source_url: 'https://example.org',
      language: 'el',
      quality_score: 0.5,
      content: 'κείμενο',
      summary: '',
      entities: { afm: [], ada: [], names: [] },
      parties: [],
      procedure_type: null,
      tenders_received: null,
      act_date: null,
      amount: null,
      cpv: [],
      region: null,
      sector: null,
      indexed_at: '2025-01-01T00:00:00Z',
      content_hash: `h${i}`,
      original: null,
      embedding: v.map((x) => x / norm),
    };
  });
}

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

/** The exact k nearest source_ids of `docs` to `q`. */
function exact(docs: IndexedDocument[], q: number[], k: number): string[] {
  return docs
    .map((d) => ({ id: d.source_id, s: cosine(d.embedding!, q) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, k)
    .map((x) => x.id);
}

/** recall@10 of the provider's knn (asked `k` deep, as ask asks 50) against exact search, over `queries`. */
async function recallAt10(p: EmbeddedProvider, docs: IndexedDocument[], queries: number[][], k = 50, source?: SourceName): Promise<number> {
  let found = 0;
  for (const q of queries) {
    const want = new Set(exact(docs, q, 10));
    found += (await p.knn({ vector: q, limit: k, filters: { source } })).slice(0, 10).filter((h) => want.has(h.doc.source_id)).length;
  }
  return found / (10 * queries.length);
}

/** A provider on `file`; below vectorExactScope vectors (20,000 by default) a kNN scans exactly, so it is lowered here. */
const open = (file: string, extra: Partial<EmbeddedOptions> = {}) =>
  new EmbeddedProvider({ file, dimension: DIM, embeddingModel: 'm', ...extra, tuning: { vectorExactScope: 1000, ...extra.tuning } });
const load = (p: EmbeddedProvider, source: SourceName | 'all', docs: IndexedDocument[]) =>
  p.rebuild(
    source,
    (async function* () {
      for (let i = 0; i < docs.length; i += 2000) yield docs.slice(i, i + 2000);
    })(),
  );

/** What `meta` records of the vector index file, and whether that file exists. */
function indexFile(file: string): { file: string; sets: Record<string, { upTo: number; count: number }>; removed: number } | null {
  const db = new Database(file, { readonly: true });
  try {
    const value = db.prepare(`SELECT value FROM meta WHERE key = 'vector_index'`).pluck().get() as string | undefined;
    const removed = db.prepare('SELECT count(*) FROM vector_removed').pluck().get() as number;
    return value ? { ...JSON.parse(value), removed } : null;
  } finally {
    db.close();
  }
}

const ids = (hits: { doc: { source_id: string } }[]) => hits.map((h) => h.doc.source_id);

t.test('when 20,000 clustered vectors are loaded, then knn (k = 50) answers from the graph and finds at least 95% of the exact ten', async (t) => {
  const file = newFile();
  const p = open(file);
  t.teardown(() => p.close());
  const docs = corpus(20_000, 1);
  await load(p, 'diavgeia', docs);
  const written = indexFile(file);
  t.ok(written && fs.existsSync(path.join(root, written.file)), 'the rebuild wrote the index file');
  const queries = corpus(60, 2).map((d) => d.embedding!);
  const before = VectorIndex.graphSearches;
  const recall = await recallAt10(p, docs, queries);
  t.equal(VectorIndex.graphSearches - before, queries.length, 'every query went to the graph');
  t.ok(recall >= 0.95, `recall@10 ${recall} ≥ 0.95`);
  // The graph's distances are recomputed from the stored float vectors: scores are the exact ones.
  const [top] = await p.knn({ vector: queries[0], limit: 1 });
  const nearest = docs.find((d) => d.source_id === top.doc.source_id)!;
  t.ok(Math.abs(top.score - (1 + cosine(nearest.embedding!, queries[0])) / 2) < 1e-6, 'the score is the exact cosine');

  // similar: a kNN by the document's stored vector, without the document itself.
  let found = 0;
  for (const doc of docs.slice(0, 20)) {
    const stored = (await p.get(doc.source_id))!.embedding!;
    const hits = await p.knn({ vector: stored, limit: 10, excludeId: doc.source_id });
    t.equal(hits.length, 10);
    t.notOk(
      hits.some((h) => h.doc.source_id === doc.source_id),
      'the document itself is left out',
    );
    const want = new Set(
      exact(docs, stored, 11)
        .filter((id) => id !== doc.source_id)
        .slice(0, 10),
    );
    found += hits.filter((h) => want.has(h.doc.source_id)).length;
  }
  t.ok(found / 200 >= 0.95, `similar's recall@10 ${found / 200} ≥ 0.95`);
});

t.test('when a source is rare, then a knn filtered to it still gets its k nearest, and all of them when it holds fewer', async (t) => {
  const file = newFile();
  // A filter scans its sets exactly up to vectorExactScope vectors; lowered so the graph answers this one.
  const p = open(file, { tuning: { vectorExactScope: 100 } });
  t.teardown(() => p.close());
  const common = corpus(12_000, 3);
  const rare = corpus(400, 4, 'elstat');
  const rarest = corpus(30, 5, 'ted');
  await load(p, 'all', [...common, ...rare, ...rarest]);
  const queries = corpus(30, 6).map((d) => d.embedding!);
  const before = VectorIndex.graphSearches;
  for (const q of queries.slice(0, 5)) {
    const hits = await p.knn({ vector: q, limit: 50, filters: { source: 'elstat' } });
    t.equal(hits.length, 50);
    t.ok(hits.every((h) => h.doc.source === 'elstat'));
  }
  t.ok(VectorIndex.graphSearches > before, 'the filtered knn asked the graph');
  const recall = await recallAt10(p, rare, queries, 50, 'elstat');
  t.ok(recall >= 0.95, `filtered recall@10 ${recall} ≥ 0.95`);
  for (const q of queries.slice(0, 5)) t.same(ids(await p.knn({ vector: q, limit: 50, filters: { source: 'ted' } })), exact(rarest, q, 50), 'all 30, in order');
  t.ok((await recallAt10(p, [...common, ...rare, ...rarest], queries)) >= 0.95, 'unfiltered recall over every source');
});

t.test('when vectors are written, overwritten and deleted after the file, then knn sees each write at once, and the next file takes them in', async (t) => {
  const file = newFile();
  const p = open(file, { tuning: { vectorDeltaMax: 1500 } });
  t.teardown(() => p.close());
  const drawn = corpus(9_000, 7);
  const docs = drawn.slice(0, 6_000);
  for (let i = 0; i < docs.length; i += 1000) await p.upsert(docs.slice(i, i + 1000));
  const first = indexFile(file)!;
  t.ok(first, 'the writes past vectorDeltaMax wrote a file');
  const queries = drawn.slice(8_970).map((d) => d.embedding!);

  // Overwrite 600 with other vectors, delete 600 (an upsert into another source removes it here).
  const moved = drawn.slice(6_000, 6_600).map((d, i) => ({ ...d, source_id: docs[i].source_id }));
  await p.upsert(moved);
  const gone = docs.slice(600, 1200).map((d) => ({ ...d, source: 'kimdis' as SourceName, embedding: null }));
  await p.upsert(gone);
  const now = [...moved, ...docs.slice(1200)];
  t.equal(indexFile(file)!.file, first.file, 'still the same file: these writes are the delta');
  t.ok(indexFile(file)!.removed >= 1200, 'the file’s deleted keys are recorded');
  for (const q of queries.slice(0, 10)) t.same(ids(await p.knn({ vector: q, limit: 10 })).slice(0, 3), exact(now, q, 3));
  const goneIds = new Set(gone.map((d) => d.source_id));
  t.notOk(
    (await p.knn({ vector: queries[0], limit: 500 })).some((h) => goneIds.has(h.doc.source_id)),
    'no deleted vector comes back',
  );
  t.same(
    (await p.get(moved[0].source_id))?.embedding?.map((x) => +x.toFixed(5)),
    moved[0].embedding!.map((x) => +x.toFixed(5)),
  );

  // More writes pass vectorDeltaMax again: the next file, from the last one minus the deleted keys.
  const more = drawn.slice(6_600, 8_500);
  await p.upsert(more);
  const second = indexFile(file)!;
  t.not(second.file, first.file, 'a new file');
  t.equal(second.removed, 0, 'the deleted keys left the graph with it');
  t.equal(second.sets[Object.keys(second.sets)[0]].count, now.length + more.length);
  t.ok((await recallAt10(p, [...now, ...more], queries)) >= 0.95);
});

t.test('when the index file is lost or damaged, then opening the index rebuilds it from the stored vectors, and knn answers the same', async (t) => {
  const file = newFile();
  const docs = corpus(4_000, 8);
  const queries = corpus(20, 9).map((d) => d.embedding!);
  const p = open(file);
  await load(p, 'diavgeia', docs);
  const answers = [];
  const before = VectorIndex.graphSearches;
  for (const q of queries) answers.push(ids(await p.knn({ vector: q, limit: 10 })));
  t.equal(VectorIndex.graphSearches - before, queries.length, 'answered from the graph');
  await p.close();

  const lost = indexFile(file)!;
  fs.rmSync(path.join(root, lost.file));
  const afterLoss = open(file, { readers: 2 });
  await afterLoss.init();
  const rebuilt = indexFile(file)!;
  t.not(rebuilt.file, lost.file);
  t.ok(fs.existsSync(path.join(root, rebuilt.file)));
  for (const [i, q] of queries.entries()) t.same(ids(await afterLoss.knn({ vector: q, limit: 10 })), answers[i]);
  await afterLoss.close();

  // Damage: the same length, some bytes in the middle changed.
  const where = path.join(root, rebuilt.file);
  const fd = fs.openSync(where, 'r+');
  fs.writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, Math.floor(fs.statSync(where).size / 2));
  fs.closeSync(fd);
  const afterDamage = open(file);
  t.teardown(() => afterDamage.close());
  await afterDamage.init();
  t.not(indexFile(file)!.file, rebuilt.file, 'rebuilt again');
  for (const [i, q] of queries.entries()) t.same(ids(await afterDamage.knn({ vector: q, limit: 10 })), answers[i]);
});

t.test('when a source is rebuilt, then reader threads answer from the new generation’s file, and the old files go', async (t) => {
  const file = newFile();
  const p = open(file, { readers: 2 });
  t.teardown(() => p.close());
  const queries = corpus(20, 10).map((d) => d.embedding!);
  const first = corpus(3_000, 11);
  await load(p, 'diavgeia', first);
  t.ok((await recallAt10(p, first, queries)) >= 0.95);
  const second = corpus(3_500, 12);
  await load(p, 'diavgeia', second);
  t.ok((await recallAt10(p, second, queries)) >= 0.95, 'the readers answer from the rebuilt generation');
  const firstIds = new Set(first.map((d) => d.source_id));
  t.notOk((await p.knn({ vector: queries[0], limit: 200 })).some((h) => firstIds.has(h.doc.source_id)));
  const db = new Database(file, { readonly: true });
  const keys = db.prepare(`SELECT key FROM meta WHERE key LIKE 'vector_layout:%'`).pluck().all();
  db.close();
  t.equal(keys.length, 1, 'the retired generation left nothing in meta');
  // A third generation: the first file is now neither the current one nor the one before it.
  await load(p, 'diavgeia', first);
  const left = fs.readdirSync(root).filter((name) => name.startsWith(`${path.basename(file)}.vectors-`));
  t.equal(left.length, 2, `the current file and the one before it are left: ${left.join(', ')}`);
});

/** Turns the serving set of `file` back into vector layout 1 (schema 2: vec0) or 2 (schema 3: inverted file). */
function downgrade(file: string, layout: 1 | 2): void {
  const raw = new Database(file);
  sqliteVec.load(raw);
  const set = raw.prepare(`SELECT 's_' || source || '_' || gen FROM generations WHERE state = 'serving'`).pluck().get() as string;
  raw.exec(
    layout === 1
      ? `CREATE VIRTUAL TABLE "${set}_vec" USING vec0 (embedding float[${DIM}] distance_metric=cosine);
       INSERT INTO "${set}_vec" (rowid, embedding) SELECT rid, embedding FROM "${set}_vectors";
       DELETE FROM meta WHERE key LIKE 'vector_layout:%'; UPDATE meta SET value = '2' WHERE key = 'schema_version';`
      : `CREATE TABLE "${set}_ivf" (vid INTEGER PRIMARY KEY, rid INTEGER NOT NULL UNIQUE, embedding BLOB NOT NULL);
       CREATE TABLE "${set}_lists" (list INTEGER PRIMARY KEY, centroid BLOB NOT NULL);
       INSERT INTO "${set}_ivf" (vid, rid, embedding) SELECT seq, rid, embedding FROM "${set}_vectors";
       UPDATE meta SET value = '2' WHERE key LIKE 'vector_layout:%'; UPDATE meta SET value = '3' WHERE key = 'schema_version';`,
  );
  raw.exec(`DROP TABLE "${set}_vectors"; DELETE FROM meta WHERE key = 'vector_index'; DROP TABLE vector_removed;`);
  raw.close();
}

for (const layout of [1, 2] as const) {
  t.test(
    `when a set keeps its vectors in layout ${layout}, then it serves, writes and deletes them exactly, and a rebuild moves it into the index`,
    async (t) => {
      const file = newFile();
      const docs = corpus(300, 13);
      const p = open(file);
      await p.upsert(docs);
      await p.close();
      downgrade(file, layout);

      const old = open(file);
      t.teardown(() => old.close());
      const q = corpus(1, 14)[0].embedding!;
      t.same(ids(await old.knn({ vector: q, limit: 10 })), exact(docs, q, 10), 'exact, from the old layout');
      const extra = corpus(50, 15);
      await old.upsert(extra);
      await old.upsert(docs.slice(0, 100).map((d) => ({ ...d, source: 'kimdis' as SourceName, embedding: null })));
      const now = [...docs.slice(100), ...extra];
      t.same(ids(await old.knn({ vector: q, limit: 10 })), exact(now, q, 10), 'writes and deletes reach the old layout');

      await old.rebuild(
        'diavgeia',
        (async function* () {
          yield now;
        })(),
      );
      t.same(ids(await old.knn({ vector: q, limit: 10 })), exact(now, q, 10));
      const db = new Database(file, { readonly: true });
      t.equal(
        db.prepare(`SELECT value FROM meta WHERE key LIKE 'vector_layout:s_diavgeia%'`).pluck().get(),
        String(VECTOR_LAYOUT),
        'rebuilt in the newest layout',
      );
      db.close();
    },
  );
}

t.test(
  'when an index made before the party, label and snippet columns is opened, then they are added: old rows read without, new rows keep theirs',
  async (t) => {
    const file = newFile();
    const long = `Απόφαση ${'για το έργο του δήμου '.repeat(100)}`;
    const docs = corpus(20, 12).map((d, i) => (i < 2 ? { ...d, content: long } : d));
    const p = open(file);
    await p.upsert(docs);
    await p.close();
    // The `_docs` of schema 4: without the columns schemas 5 to 8 added.
    const raw = new Database(file);
    const set = raw.prepare(`SELECT 's_' || source || '_' || gen FROM generations WHERE state = 'serving'`).pluck().get() as string;
    for (const column of ['parties', 'procedure_type', 'tenders_received', 'act_date', 'cpv_labels_en', 'cpv_labels_el', 'snippet_text'])
      raw.exec(`ALTER TABLE "${set}_docs" DROP COLUMN ${column}`);
    raw.exec(`UPDATE meta SET value = '4' WHERE key = 'schema_version'`);
    raw.close();

    const old = open(file);
    t.teardown(() => old.close());
    const before = await old.get(docs[0]!.source_id);
    t.same([before?.parties, before?.procedure_type, before?.tenders_received], [[], null, null], 'a row written before reads as a document stored then');
    t.notOk(before && ('cpv_labels_en' in before || 'cpv_labels_el' in before), 'without CPV labels');
    const party = { role: 'supplier' as const, name: 'ΤΟΜΕΣ ΑΤΕ', afm: '094311152' };
    const labels = ['Street-lighting equipment'];
    const greek = ['Εξοπλισμός οδικού φωτισμού'];
    await old.upsert([
      { ...docs[1]!, parties: [party], procedure_type: 'open', tenders_received: 1, act_date: '2024-01-02', cpv_labels_en: labels, cpv_labels_el: greek },
    ]);
    const after = await old.get(docs[1]!.source_id);
    t.same(
      [after?.parties, after?.procedure_type, after?.tenders_received, after?.act_date, after?.cpv_labels_en, after?.cpv_labels_el],
      [[party], 'open', 1, '2024-01-02', labels, greek],
    );
    const snippets = new Map((await old.search({ text: 'απόφαση', limit: 10, offset: 0, view: 'snippet' })).hits.map((h) => [h.doc.source_id, h.snippetText]));
    t.same([...snippets.values()], [snippetText(long), snippetText(long)], 'a row with its snippet text and a row without, cut from its content when read');
    const check = new Database(file);
    t.equal(check.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).pluck().get(), SCHEMA_VERSION, 'the index records the current schema');
    t.same(
      check
        .prepare(`SELECT snippet_text IS NULL FROM "${set}_docs" WHERE source_id IN (?, ?) ORDER BY source_id`)
        .pluck()
        .all(docs[0]!.source_id, docs[1]!.source_id),
      [1, 0],
      'the row written before has none, the row written since its own',
    );
    check.close();
  },
);
