// The embedded engine's vectors (lib/search/embedded/vectors.ts): the inverted file against exact search,
// through upserts, deletes, rebuilds and reader threads, and indexes whose sets still hold vec0 vectors.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as sqliteVec from 'sqlite-vec';
import t from 'tap';
import { mulberry32 } from '../../data/generator/prng.js';
import type { IndexedDocument } from '../../index-mappings/document.js';
import type { SourceName } from '../../index-mappings/sources.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { TRAIN_MIN, VECTOR_LAYOUT } from '../../lib/search/embedded/vectors.js';
import { Database } from '../../lib/sqlite.js';

const DIM = 16;
const root = mkdtempSync(path.join(os.tmpdir(), 'pdi-embedded-vectors-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
let files = 0;
const newFile = () => path.join(root, `index-${++files}.sqlite`);

/** Unit vectors around 40 random directions, as documents of `source` (seeded). */
function corpus(n: number, seed: number, source: SourceName = 'diavgeia'): IndexedDocument[] {
  const rnd = mulberry32(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  const centres = Array.from({ length: 40 }, () => Array.from({ length: DIM }, gauss));
  return Array.from({ length: n }, (_, i) => {
    const c = centres[Math.floor(rnd() * centres.length)];
    const v = c.map((x) => x + 0.6 * gauss());
    const norm = Math.hypot(...v);
    return {
      source_id: `${source}:V${seed}-${i}`, source, country: 'GR', title: `Έγγραφο ${i}`, doc_type: 'decision', doc_category: 'x',
      published_at: '2024-01-01T00:00:00Z', source_url: 'https://example.org', language: 'el', quality_score: 0.5, content: 'κείμενο',
      summary: '', entities: { afm: [], ada: [], names: [] }, parties: [], procedure_type: null, tenders_received: null, act_date: null, amount: null, cpv: [], region: null, sector: null,
      indexed_at: '2025-01-01T00:00:00Z', content_hash: `h${i}`, original: null, embedding: v.map((x) => x / norm),
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

/** recall@10 of the provider's knn against exact search, over `queries`. */
async function recallAt10(p: EmbeddedProvider, docs: IndexedDocument[], queries: number[][]): Promise<number> {
  let found = 0;
  for (const q of queries) {
    const want = new Set(exact(docs, q, 10));
    found += (await p.knn({ vector: q, limit: 10 })).filter((h) => want.has(h.doc.source_id)).length;
  }
  return found / (10 * queries.length);
}

const layoutOf = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(`SELECT key, value FROM meta WHERE key LIKE 'vector_layout:%' OR key LIKE 'ivf:%' ORDER BY key`).all() as { key: string; value: string }[];
  } finally {
    db.close();
  }
};

t.test('when a set holds fewer vectors than it takes to train lists, then knn is exact', async (t) => {
  const p = new EmbeddedProvider({ file: newFile(), dimension: DIM, embeddingModel: 'm' });
  t.teardown(() => p.close());
  const docs = corpus(500, 1);
  await p.upsert(docs);
  const queries = corpus(20, 2).map((d) => d.embedding!);
  for (const q of queries) t.same((await p.knn({ vector: q, limit: 10 })).map((h) => h.doc.source_id), exact(docs, q, 10));
});

t.test('when a set grows past the training size through upserts, then its vectors go into lists, and knn finds at least 95% of the exact ten through overwrites and deletes', async (t) => {
  const file = newFile();
  const p = new EmbeddedProvider({ file, dimension: DIM, embeddingModel: 'm' });
  t.teardown(() => p.close());
  const n = TRAIN_MIN + 2000;
  // One distribution: the documents, the vectors that overwrite a tenth of them, and the questions.
  const drawn = corpus(n + n / 10 + 30, 3);
  const docs = drawn.slice(0, n);
  for (let i = 0; i < docs.length; i += 1000) await p.upsert(docs.slice(i, i + 1000));
  const state = JSON.parse(layoutOf(file).find((r) => r.key.startsWith('ivf:'))!.value);
  t.ok(state.lists > 0, 'lists were trained');
  t.equal(state.vectors, docs.length);
  const queries = drawn.slice(n + n / 10).map((d) => d.embedding!);
  t.ok((await recallAt10(p, docs, queries)) >= 0.95, 'recall@10 ≥ 0.95');

  // Overwrite a tenth with other vectors and delete another tenth (upsert of the same id elsewhere is an
  // overwrite; a delete is an upsert into another source, which removes it here).
  const moved = drawn.slice(n, n + n / 10).map((d, i) => ({ ...d, source_id: docs[i].source_id }));
  await p.upsert(moved);
  const gone = docs.slice(docs.length / 10, docs.length / 5).map((d) => ({ ...d, source: 'kimdis' as SourceName, embedding: null }));
  await p.upsert(gone);
  const now = [...moved, ...docs.slice(docs.length / 5)];
  t.ok((await recallAt10(p, now, queries)) >= 0.95, 'recall@10 ≥ 0.95 after the writes');
  const goneIds = new Set(gone.map((d) => d.source_id));
  const hits = await p.knn({ vector: queries[0], limit: 200 });
  t.notOk(hits.some((h) => goneIds.has(h.doc.source_id)), 'no deleted vector comes back');
  t.same((await p.get(moved[0].source_id))?.embedding?.map((x) => +x.toFixed(5)), moved[0].embedding!.map((x) => +x.toFixed(5)));
  t.equal(JSON.parse(layoutOf(file).find((r) => r.key.startsWith('ivf:'))!.value).vectors, now.length, 'the count followed');
});

t.test('when a source is rebuilt, then reader threads use the new lists, and the vectors are verified', async (t) => {
  const file = newFile();
  const p = new EmbeddedProvider({ file, dimension: DIM, embeddingModel: 'm', readers: 2 });
  t.teardown(() => p.close());
  const first = corpus(TRAIN_MIN + 500, 6);
  await p.rebuild('diavgeia', (async function* () { for (let i = 0; i < first.length; i += 2000) yield first.slice(i, i + 2000); })());
  const queries = corpus(20, 7).map((d) => d.embedding!);
  t.ok((await recallAt10(p, first, queries)) >= 0.95);
  const second = corpus(TRAIN_MIN + 1500, 8);
  await p.rebuild('diavgeia', (async function* () { for (let i = 0; i < second.length; i += 2000) yield second.slice(i, i + 2000); })());
  t.ok((await recallAt10(p, second, queries)) >= 0.95, 'the readers answer from the rebuilt generation');
  const keys = layoutOf(file).map((r) => r.key);
  t.equal(keys.length, 2, 'the retired generation left nothing in meta');
  t.equal(layoutOf(file).find((r) => r.key.startsWith('vector_layout:'))!.value, String(VECTOR_LAYOUT));
});

t.test('when an index keeps its vectors in vec0 (schema 2), then it serves, writes and deletes them, and a rebuild moves the source to the inverted file', async (t) => {
  const file = newFile();
  const docs = corpus(300, 9);
  const p = new EmbeddedProvider({ file, dimension: DIM, embeddingModel: 'm' });
  await p.upsert(docs);
  await p.close();
  // The layout of schema 2: a vec0 table per set and no layout recorded.
  const raw = new Database(file);
  sqliteVec.load(raw);
  const set = raw.prepare(`SELECT 's_' || source || '_' || gen FROM generations WHERE state = 'serving'`).pluck().get() as string;
  raw.exec(`CREATE VIRTUAL TABLE "${set}_vec" USING vec0 (embedding float[${DIM}] distance_metric=cosine);
            INSERT INTO "${set}_vec" (rowid, embedding) SELECT rid, embedding FROM "${set}_ivf";
            DROP TABLE "${set}_ivf"; DROP TABLE "${set}_lists";
            DELETE FROM meta WHERE key LIKE 'vector_layout:%' OR key LIKE 'ivf:%';
            UPDATE meta SET value = '2' WHERE key = 'schema_version';`);
  raw.close();

  const old = new EmbeddedProvider({ file, dimension: DIM, embeddingModel: 'm' });
  t.teardown(() => old.close());
  const q = corpus(1, 10)[0].embedding!;
  t.same((await old.knn({ vector: q, limit: 10 })).map((h) => h.doc.source_id), exact(docs, q, 10), 'exact, from vec0');
  const extra = corpus(50, 11);
  await old.upsert(extra);
  await old.upsert(docs.slice(0, 100).map((d) => ({ ...d, source: 'kimdis' as SourceName, embedding: null })));
  const now = [...docs.slice(100), ...extra];
  t.same((await old.knn({ vector: q, limit: 10 })).map((h) => h.doc.source_id), exact(now, q, 10), 'writes and deletes reach vec0');
  t.notOk(layoutOf(file).some((r) => r.key.includes('diavgeia')), 'the set still has no layout recorded');

  await old.rebuild('diavgeia', (async function* () { yield now; })());
  t.same((await old.knn({ vector: q, limit: 10 })).map((h) => h.doc.source_id), exact(now, q, 10));
  t.equal(layoutOf(file).find((r) => r.key.startsWith('vector_layout:'))?.value, String(VECTOR_LAYOUT), 'rebuilt in the inverted file');
});

t.test('when an index of schema 3 has no party columns, then opening adds them: old rows read without parties, new rows keep theirs', async (t) => {
  const file = newFile();
  const docs = corpus(20, 12);
  const p = new EmbeddedProvider({ file, dimension: DIM, embeddingModel: 'm' });
  await p.upsert(docs);
  await p.close();
  // The `_docs` of schema 3: without the columns schema 4 added.
  const raw = new Database(file);
  const set = raw.prepare(`SELECT 's_' || source || '_' || gen FROM generations WHERE state = 'serving'`).pluck().get() as string;
  for (const column of ['parties', 'procedure_type', 'tenders_received', 'act_date']) raw.exec(`ALTER TABLE "${set}_docs" DROP COLUMN ${column}`);
  raw.exec(`UPDATE meta SET value = '3' WHERE key = 'schema_version'`);
  raw.close();

  const old = new EmbeddedProvider({ file, dimension: DIM, embeddingModel: 'm' });
  t.teardown(() => old.close());
  const before = await old.get(docs[0]!.source_id);
  t.same([before?.parties, before?.procedure_type, before?.tenders_received], [[], null, null], 'a row written before reads as a document stored then');
  const party = { role: 'supplier' as const, name: 'ΤΟΜΕΣ ΑΤΕ', afm: '094311152' };
  await old.upsert([{ ...docs[1]!, parties: [party], procedure_type: 'open', tenders_received: 1, act_date: '2024-01-02' }]);
  const after = await old.get(docs[1]!.source_id);
  t.same([after?.parties, after?.procedure_type, after?.tenders_received, after?.act_date], [[party], 'open', 1, '2024-01-02']);
  const check = new Database(file);
  t.equal(check.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).pluck().get(), '4', 'the index records schema 4');
  check.close();
});
