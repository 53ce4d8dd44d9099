// The embedded engine: the shared contract suite (twice: default tuning with reads on reader threads,
// as the API runs it, and on the calling thread with every term forced onto the common-term lists), then what only this engine has: model/dimension checks on reopen, exactness of
// the list path against FTS5's own ranking, row-id renumbering, the query parser.
import { closeSync, copyFileSync, mkdtempSync, openSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Database } from '../../lib/sqlite.js';
import { pino } from 'pino';
import t from 'tap';
import { mulberry32 } from '../../data/generator/prng.js';
import type { IndexedDocument } from '../../index-mappings/document.js';
import { EngineUnavailableError } from '../../lib/errors.js';
import { EmbeddedIndexMismatchError, EmbeddedProvider, type Tuning } from '../../lib/search/embedded.js';
import { HotLists } from '../../lib/search/embedded/hot-lists.js';
import {
  LATIN_MARK,
  RAW_MARK,
  TEXT_VERSION,
  VALUE_GAP,
  docText,
  indexTokens,
  parseQuery,
  queryFor,
  referenceTokens,
  toMatch,
} from '../../lib/search/embedded/text.js';
import type { SearchProvider } from '../../lib/search/provider.js';
import type { SourceName } from '../../index-mappings/sources.js';
import { killRebuildMidway } from '../helpers/rebuild-midway.js';
import { CONTRACT_DIMENSION, searchContract } from './search-contract.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdi-search-embedded-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
let files = 0;
const newFile = () => path.join(root, `index-${++files}.sqlite`);

function opener(tuning?: Partial<Tuning>, readers = 0) {
  return async () => {
    const provider = new EmbeddedProvider({ file: newFile(), dimension: CONTRACT_DIMENSION, embeddingModel: 'test/model', tuning, readers });
    return { provider, cleanup: () => provider.close() };
  };
}

searchContract(t, 'embedded, reads on two reader threads', opener(undefined, 2));
// Every term gets a list of two, trimmed at three: the list path, its certification fallbacks, trims and
// lazy rebuilds all run under the same contract.
searchContract(t, 'embedded, common-term lists forced', opener({ hotMinDf: 1, hotListSize: 2, hotListMax: 3 }));

// ------------------------------------------------------------------------------------------ helpers

function doc(source_id: string, published_at: string, title: string, content: string, extra: Partial<IndexedDocument> = {}): IndexedDocument {
  return {
    source_id,
    source: source_id.split(':')[0] as SourceName,
    country: 'GR',
    title,
    doc_type: 'decision',
    doc_category: 'x',
    published_at,
    source_url: 'https://example.org',
    language: 'el',
    quality_score: 0.5,
    content,
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
    content_hash: 'h',
    original: null,
    embedding: null,
    ...extra,
  };
}

const ids = (hits: { doc: { source_id: string } }[]) => hits.map((h) => h.doc.source_id);

/**
 * An index as a build of text `version` left it: the documents written by this build, then each FTS5 row
 * and token count rewritten in `version`'s tokens and the versions recorded as that build recorded them
 * (before version 2, no version per set).
 */
async function olderIndex(version: number, docs: IndexedDocument[]): Promise<string> {
  const file = newFile();
  const p = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm' });
  await p.upsert(docs);
  await p.close();
  const raw = new Database(file);
  for (const d of docs) {
    const set = raw.prepare(`SELECT 's_' || source || '_' || gen FROM generations WHERE source = ? AND state = 'serving'`).pluck().get(d.source) as string;
    const rid = raw.prepare(`SELECT rid FROM "${set}_docs" WHERE source_id = ?`).safeIntegers(true).pluck().get(d.source_id) as bigint;
    const now = docText(d, TEXT_VERSION);
    const then = docText(d, version);
    raw.prepare(`INSERT INTO "${set}_fts" ("${set}_fts", rowid, title, body) VALUES ('delete', ?, ?, ?)`).run(rid, now.title.join(' '), now.body.join(' '));
    raw.prepare(`INSERT INTO "${set}_fts" (rowid, title, body) VALUES (?, ?, ?)`).run(rid, then.title.join(' '), then.body.join(' '));
    raw.prepare(`UPDATE "${set}_docs" SET ntok = ? WHERE rid = ?`).run(then.title.length + then.body.length, rid);
    if (version >= 2) raw.prepare(`UPDATE meta SET value = ? WHERE key = ?`).run(String(version), `text_version:${set}`);
  }
  raw.prepare(`UPDATE meta SET value = ? WHERE key = 'text_version'`).run(String(version));
  if (version < 2) raw.prepare(`DELETE FROM meta WHERE key LIKE 'text_version:%'`).run();
  raw.close();
  return file;
}

// ------------------------------------------------------------------------------------------ tests

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

t.test(
  'when an index was written before phrases stopped at value boundaries (text version 1), then it keeps serving and writing in that version until its source is rebuilt',
  async (t) => {
    const roads = (id: string, names: string[]) =>
      doc(id, '2024-01-01T00:00:00Z', 'Οδικά έργα', 'Ασφαλτόστρωση δρόμων', { entities: { afm: [], ada: [], names } });
    // One value each: tokenized the same in versions 1 and 2.
    const signs = doc('kimdis:K1', '2024-01-01T00:00:00Z', 'Οδικά έργα', 'Σήμανση δρόμων');
    const versionOne = () => olderIndex(1, [signs]);
    const file = await versionOne();
    const p = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm' });
    await p.upsert([roads('kimdis:K2', ['Οδοποιία Κάσου ΑΕ'])]);
    const search = (provider: EmbeddedProvider, q: string) => provider.search({ text: q, limit: 10, offset: 0 });
    t.equal((await search(p, 'σήμανση')).total, 1, 'the old set answers');
    t.equal((await search(p, '"δρόμων Οδοποιία"')).total, 1, 'a version-1 set joins the values, as before');
    await p.upsert([roads('kimdis:K2', ['Τεχνική Σύμης ΑΕ'])]);
    t.equal((await search(p, 'Κάσου')).total, 0, 'the replaced name is gone');
    t.equal((await search(p, 'Σύμης')).total, 1);
    // The same two documents written once each: BM25's statistics (document lengths) must be the same,
    // so the replacement took out of FTS5 exactly the tokens it had put in.
    const control = new EmbeddedProvider({ file: await versionOne(), dimension: 2, embeddingModel: 'm' });
    await control.upsert([roads('kimdis:K2', ['Τεχνική Σύμης ΑΕ'])]);
    t.equal((await search(p, 'σήμανση')).hits[0].score, (await search(control, 'σήμανση')).hits[0].score);
    await control.close();
    await p.close();
    const check = new Database(file);
    t.equal(check.prepare(`SELECT value FROM meta WHERE key = 'text_version'`).pluck().get(), String(TEXT_VERSION), 'an older build now refuses the index');
    check.close();

    const again = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm' });
    t.teardown(() => again.close());
    await again.rebuild(
      'kimdis',
      (async function* () {
        yield [roads('kimdis:K2', ['Οδοποιία Κάσου ΑΕ'])];
      })(),
    );
    t.equal((await search(again, 'Κάσου')).total, 1);
    t.equal((await search(again, '"δρόμων Οδοποιία"')).total, 0, 'the rebuilt set keeps values apart');
  },
);

t.test('when an index was written before stemming (text version 2), then it keeps serving and writing unstemmed until its source is rebuilt', async (t) => {
  const contract = (id: string) => doc(id, '2024-01-01T00:00:00Z', 'Σύμβαση καθαρισμού', 'Υπογραφή σύμβασης');
  const file = await olderIndex(2, [contract('kimdis:K1')]);
  const p = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm' });
  t.teardown(() => p.close());
  const total = async (q: string) => (await p.search({ text: q, limit: 10, offset: 0 })).total;
  t.equal(await total('σύμβαση'), 1, 'the version-2 set answers');
  t.equal(await total('συμβάσεις'), 0, 'unstemmed, as before');
  t.equal(await total('συμβάσ*'), 1, 'prefixes too');
  await p.upsert([contract('kimdis:K2')]);
  t.equal(await total('σύμβαση'), 2, 'a new document joins the set in version 2');
  t.equal(await total('συμβάσεις'), 0);
  await p.upsert([doc('kimdis:K2', '2024-01-01T00:00:00Z', 'Άλλο', 'τίποτα')]);
  t.equal(await total('σύμβαση'), 1, 'an overwrite takes out exactly the version-2 tokens');
  await p.rebuild(
    'kimdis',
    (async function* () {
      yield [contract('kimdis:K1'), contract('kimdis:K2')];
    })(),
  );
  t.equal(await total('συμβάσεις'), 2, 'the rebuilt set stems');
  t.equal(await total('"σύμβασης υπογραφή"'), 0, 'phrases keep their order');
  t.equal(await total('"υπογραφή συμβάσεων"'), 2);
});

t.test(
  'when a document has several text values, then the body has one gap between non-empty values, and no common-term list is made for the gap',
  async (t) => {
    const d = doc('rae:G1', '2024-01-01T00:00:00Z', 'Άδεια', 'Αιολικό πάρκο', { entities: { afm: [], ada: [], names: ['Άνεμος ΑΕ', ''] } });
    t.same(docText(d, 2).body, ['αιολικο', 'παρκο', VALUE_GAP, 'ανεμοσ', 'αε'], 'the empty summary and name add nothing');
    t.same(docText(d, 1).body, ['αιολικο', 'παρκο', 'ανεμοσ', 'αε']);
    t.same(
      docText(d, 3).body,
      ['αιολικ', 'παρκ', VALUE_GAP, 'ανεμ', 'αε', VALUE_GAP, ...['αιολικο', 'παρκο', 'ανεμοσ'].map((w) => RAW_MARK + w)],
      'version 3: stems, then each word its stem changed, once, marked',
    );
    t.same(docText(d, 3).title, ['αδει', VALUE_GAP, `${RAW_MARK}αδεια`]);
    t.same(
      docText(d, 4).body,
      [...docText(d, 3).body, VALUE_GAP, `${LATIN_MARK}anem`],
      'version 4: then the Latin keys of each entity name (of 3 letters or more)',
    );
    t.same(docText(d, 4).title, [...docText(d, 3).title, VALUE_GAP, `${LATIN_MARK}adia`]);
    t.same(docText(d, 5), docText(d, 4), 'version 5: the same for a source that writes no labels');
    t.same(docText(d, 6), docText(d, 5), 'version 6: the same for a document with one title');
    t.same(docText(d, 7), docText(d, 6), 'version 7: the same for a document without CPV labels');
    const labelled = { ...d, cpv_labels_en: ['Wind turbines'] };
    t.same(docText(labelled, 6), docText(d, 6), 'which version 6 does not index');
    t.same(docText(labelled, 7).body.slice(0, 6), ['αιολικ', 'παρκ', VALUE_GAP, 'wind', 'turbin', VALUE_GAP], 'version 7: after the content, before the names');
    t.same(docText(d, 8), docText(d, 7), 'version 8: the same for a document without CPV labels');
    const bilingual = { ...labelled, cpv_labels_el: ['Ανεμογεννήτριες'] };
    t.same(docText(bilingual, 7), docText(labelled, 7), 'whose Greek labels version 7 does not index');
    t.same(
      docText(bilingual, 8).body.slice(0, 8),
      ['αιολικ', 'παρκ', VALUE_GAP, 'wind', 'turbin', VALUE_GAP, 'ανεμογεννητρ', VALUE_GAP],
      'version 8: the English labels, then the Greek ones, stemmed as Greek',
    );
    t.throws(() => docText(d, 9), /unknown text version 9/);

    const file = newFile();
    const p = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm', tuning: { hotMinDf: 1 } });
    await p.rebuild(
      'rae',
      (async function* () {
        yield [d];
      })(),
    );
    await p.close();
    const raw = new Database(file);
    const hot = raw.prepare(`SELECT term FROM s_rae_1_hot`).pluck().all() as string[];
    raw.close();
    t.ok(hot.includes('παρκ'), 'every other term got its list');
    t.notOk(hot.includes(VALUE_GAP));
    t.notOk(
      hot.some((term) => term.startsWith(RAW_MARK)),
      'nor for the unstemmed copies',
    );
    t.notOk(
      hot.some((term) => term.startsWith(LATIN_MARK)),
      'nor for the Latin keys',
    );
  },
);

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

t.test('when the user text is parsed, then only quotes and trailing stars are syntax', async (t) => {
  t.same(parseQuery('Απόφαση ΔΗΜΟΥ'), [
    { kind: 'term', token: 'αποφαση' },
    { kind: 'term', token: 'δημου' },
  ]);
  t.same(parseQuery('"οδικού  δικτύου" προμηθ*'), [
    { kind: 'phrase', tokens: ['οδικου', 'δικτυου'] },
    { kind: 'prefix', token: 'προμηθ' },
  ]);
  t.same(
    parseQuery('title:x AND (y OR -z)'),
    ['title', 'x', 'and', 'y', 'or', 'z'].map((token) => ({ kind: 'term', token })),
  );
  t.same(parseQuery('"unbalanced phrase'), [
    { kind: 'term', token: 'unbalanced' },
    { kind: 'term', token: 'phrase' },
  ]);
  t.same(
    parseQuery('a* *b ** x*y'),
    [
      { kind: 'term', token: 'a' },
      { kind: 'term', token: 'b' },
      { kind: 'term', token: 'x' },
      { kind: 'term', token: 'y' },
    ],
    'one-letter prefixes are plain terms; a star not ending a word is a separator',
  );
  t.same(parseQuery('same Same SAME'), [{ kind: 'term', token: 'same' }], 'duplicates collapse');
  t.same(parseQuery('"" 😀 ()'), []);
  t.equal(toMatch(parseQuery('"a b" cc* d'), 2), '"a b" "cc"* "d"');
  t.equal(
    toMatch(parseQuery('"contracts signed" δημ* Συμβάσεις'), 3),
    `"contract sign" AND ("δημ"* OR "${RAW_MARK}δημ"*) AND "συμβασ"`,
    'version 3: terms and phrases stemmed, a prefix on stems and unstemmed words',
  );
  t.equal(
    toMatch(parseQuery('"Dimos Rodou" Athens contracts'), 4),
    `("dimo rodou" OR "${LATIN_MARK}dim ${LATIN_MARK}rod") AND ("athen" OR "${LATIN_MARK}athens" OR "αθην") AND ("contract" OR "${LATIN_MARK}kodrakts")`,
    'version 4: a Latin word or phrase also meets the Latin keys of Greek names, and an English place name its Greek one',
  );
  t.equal(queryFor(parseQuery('contracts'), 3).single, 'contract', 'one plain term takes the common-term lists');
  t.equal(queryFor(parseQuery('contracts'), 4).single, null, 'not when it has alternatives');
  t.equal(queryFor(parseQuery('συμβάσεις'), 4).single, 'συμβασ');
  for (const text of ['"; DROP TABLE x; --', 'NEAR(a b, 3)', '{title}: x', 'a"b"c', '\\"', 'x* OR y*']) {
    t.notMatch(toMatch(parseQuery(text), 2), /[^"\p{L}\p{N} *]/u, `${text}: only quoted tokens`);
    // Outside the quotes, version 3 adds only AND, OR and parentheses around a prefix's two forms.
    for (const version of [3, 4]) {
      t.notMatch(
        toMatch(parseQuery(text), version)
          .replace(/"[^"]*"\*?/g, '')
          .replace(/\b(AND|OR)\b/g, ''),
        /[^ ()]/u,
        `${text}: v${version}, only quoted tokens`,
      );
    }
  }
});

t.test('when any text is tokenized, then the fast path equals fold() + letter/digit runs, on every BMP code point', async (t) => {
  let differing = 0;
  for (let start = 0; start < 0x10000; start += 256) {
    let text = '';
    for (let cp = start; cp < start + 256; cp++) text += String.fromCharCode(cp) + (cp % 7 ? '' : ' ') + (cp % 5 ? '' : 'Άλφα');
    if (JSON.stringify(indexTokens(text)) !== JSON.stringify(referenceTokens(text))) differing += 1;
  }
  t.equal(differing, 0, 'blocks of 256 code points that tokenize differently');
  const astral = '𝐀𝐁 x𝟙y 😀 𠀀𠀁 \u{1D400}\u0301Β \uD800x\uDC00 ΠΡΟΜΗΘΕΙΑ Προμήθεια προμήθειας';
  t.same(indexTokens(astral), referenceTokens(astral));
  t.same(indexTokens('ΠΡΟΜΗΘΕΙΑ Προμήθεια ΔΉΜΟΣ'), ['προμηθεια', 'προμηθεια', 'δημοσ']);
});

t.test('when a query is only prefixes, then hits come newest first at a constant score', async (t) => {
  const p = new EmbeddedProvider({ file: newFile(), dimension: 2, embeddingModel: 'm' });
  t.teardown(() => p.close());
  await p.upsert([
    doc('ted:a', '2024-01-01T00:00:00Z', 'προμήθεια προμήθεια προμήθεια', 'προμήθεια'),
    doc('kimdis:b', '2024-03-01T00:00:00Z', 'Άλλο', 'προμηθευτής'),
    doc('ted:c', '2024-03-01T00:00:00Z', 'Άλλο', 'προμηθειών'),
    doc('ted:d', '2024-02-01T00:00:00Z', 'Άσχετο', 'τίποτα'),
  ]);
  const r = await p.search({ text: 'ΠΡΟΜΗΘ*', limit: 10, offset: 0 });
  t.same(ids(r.hits), ['kimdis:b', 'ted:c', 'ted:a']);
  t.same(
    r.hits.map((h) => h.score),
    [1, 1, 1],
  );
  t.same(ids((await p.search({ text: 'προμηθ*', limit: 1, offset: 1 })).hits), ['ted:c']);
  t.same(ids((await p.search({ text: 'προμηθ* άλλο', limit: 10, offset: 0 })).hits).sort(), ['kimdis:b', 'ted:c'], 'mixed: ranked, ANDed');
});

t.test('when many documents share one publish second, then row ids are renumbered and order holds', async (t) => {
  const lines: string[] = [];
  const logger = pino(
    { level: 'warn' },
    new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    }),
  );
  const p = new EmbeddedProvider({ file: newFile(), dimension: 2, embeddingModel: 'm', logger });
  t.teardown(() => p.close());
  const at = '2024-05-05T05:05:05Z';
  // Each id sorts between "a" and the previous one, so every insert bisects the same, shrinking gap.
  const sids = ['a', 'b', ...Array.from({ length: 60 }, (_, k) => `a${'1'.repeat(k)}2`)];
  for (const [i, sid] of sids.entries()) {
    await p.upsert([doc(`kimdis:${sid}`, at, `Κοινός τίτλος λέξη${i}`, 'κοινό κείμενο')]);
  }
  t.ok(
    lines.some((l) => l.includes('renumbered a publish-second block')),
    'a renumbering happened',
  );
  const expected = sids.map((s) => `kimdis:${s}`).sort();
  const listed = await p.list({ source: 'kimdis', limit: 100, offset: 0 });
  t.same(ids(listed.hits), expected, 'listing in source_id order');
  t.same(ids((await p.search({ text: 'κοινό', limit: 100, offset: 0 })).hits), expected, 'equal scores in source_id order');
  for (const [i, sid] of sids.entries()) {
    const r = await p.search({ text: `λέξη${i}`, limit: 5, offset: 0 });
    if (r.total !== 1 || r.hits[0].doc.source_id !== `kimdis:${sid}`) t.fail(`λέξη${i} finds ${ids(r.hits)}`);
  }
  t.equal((await p.stats()).total_documents, sids.length);
});

t.test('when identical documents sit in two sources with identical statistics, then the tie goes to source_id', async (t) => {
  const p = new EmbeddedProvider({ file: newFile(), dimension: 2, embeddingModel: 'm' });
  t.teardown(() => p.close());
  const corpus = (source: string) => [
    doc(`${source}:1`, '2024-01-01T00:00:00Z', 'Σύμβαση καθαριότητας', 'κτίρια'),
    doc(`${source}:2`, '2024-01-02T00:00:00Z', 'Σύμβαση καθαριότητας', 'κτίρια'),
    doc(`${source}:3`, '2024-01-01T00:00:00Z', 'Άλλο θέμα', 'τίποτα'),
  ];
  await p.upsert([...corpus('ted'), ...corpus('diavgeia')]);
  const r = await p.search({ text: 'καθαριότητας', limit: 10, offset: 0 });
  t.same(ids(r.hits), ['diavgeia:2', 'ted:2', 'diavgeia:1', 'ted:1']);
});

t.test('when the average length drifts after a list was cut, then pages read from it stay exact', async (t) => {
  const listed = new EmbeddedProvider({ file: newFile(), dimension: 2, embeddingModel: 'm', tuning: { hotMinDf: 1, hotListSize: 250, hotListMax: 400 } });
  const plain = new EmbeddedProvider({ file: newFile(), dimension: 2, embeddingModel: 'm', tuning: { hotMinDf: Number.POSITIVE_INFINITY } });
  t.teardown(async () => {
    await listed.close();
    await plain.close();
  });
  const filler = (n: number) => Array.from({ length: n }, (_, i) => `w${i % 50}`).join(' ');
  // At today's average length, short documents with the word once in the title (A) beat long ones that
  // repeat it 6 times (B); once long documents without the word pile up, B wins by far.
  const docs = [
    ...Array.from({ length: 100 }, (_, i) => doc(`ted:A${String(i).padStart(3, '0')}`, '2024-01-01T00:00:00Z', 'ζήτα', filler(3))),
    ...Array.from({ length: 100 }, (_, i) => doc(`ted:B${String(i).padStart(3, '0')}`, '2024-01-01T00:00:00Z', 'άλλο', `${'ζήτα '.repeat(6)}${filler(250)}`)),
    ...Array.from({ length: 100 }, (_, i) => doc(`ted:C${i}`, '2024-01-01T00:00:00Z', 'τίποτα', filler(4))),
  ];
  for (const p of [listed, plain]) await p.upsert(docs);
  await listed.optimize();
  const page = async (p: EmbeddedProvider) => ids((await p.search({ text: 'ζήτα', limit: 5, offset: 0 })).hits);
  t.same(await page(listed), await page(plain), 'before the drift');
  t.match((await page(plain))[0], /^ted:A/, 'short documents first at first');
  const long = Array.from({ length: 300 }, (_, i) => doc(`ted:L${i}`, '2024-01-01T00:00:00Z', 'μακρύ', filler(6000)));
  for (const p of [listed, plain]) await p.upsert(long);
  const before = listed.counters.fromList;
  t.match((await page(plain))[0], /^ted:B/, 'long repeated documents first after the drift');
  t.same(await page(listed), await page(plain), 'after the drift');
  t.equal(listed.counters.fromList, before + 1, 'served from the list (read in full)');
});

/** A small Zipf-like corpus whose words repeat a lot, with few distinct publish seconds (many ties). */
function corpus(random: () => number, n: number, idPrefix = ''): IndexedDocument[] {
  const vocab = Array.from({ length: 40 }, (_, i) => `λ${i}`);
  const word = () => vocab[Math.min(vocab.length - 1, Math.floor(vocab.length * random() ** 2.2))];
  const words = (lo: number, hi: number) => Array.from({ length: lo + Math.floor(random() * (hi - lo)) }, word).join(' ');
  const sources: SourceName[] = ['diavgeia', 'kimdis', 'ted'];
  const seconds = ['2024-01-01T00:00:00Z', '2024-01-01T00:00:01Z', '2024-03-01T12:00:00Z', '2023-07-07T07:07:07Z'];
  return Array.from({ length: n }, (_, i) => {
    const source = sources[Math.floor(random() * sources.length)];
    const title = random() < 0.3 ? words(2, 6).toUpperCase() : words(2, 6);
    return doc(`${source}:${idPrefix}${Math.floor(random() * 1e6).toString(36)}-${i}`, seconds[Math.floor(random() * seconds.length)], title, words(3, 40), {
      quality_score: random(),
    });
  });
}

// Small lists: most pages need the whole list or fall back to FTS5. Larger lists: pages are certified
// from a prefix of the list read in cost order.
for (const tuning of [
  { hotMinDf: 5, hotListSize: 12, hotListMax: 20 },
  { hotMinDf: 5, hotListSize: 90, hotListMax: 130 },
])
  t.test(`when terms are ranked from their lists (${tuning.hotListSize}), then results equal FTS5 ranking exactly, at every depth`, async (t) => {
    const random = mulberry32(20240611);
    const listed = new EmbeddedProvider({ file: newFile(), dimension: 2, embeddingModel: 'm', tuning });
    const plain = new EmbeddedProvider({ file: newFile(), dimension: 2, embeddingModel: 'm', tuning: { hotMinDf: Number.POSITIVE_INFINITY } });
    t.teardown(async () => {
      await listed.close();
      await plain.close();
    });
    const both = async (docs: IndexedDocument[]) => {
      for (const p of [listed, plain]) t.equal((await p.upsert(docs)).written, docs.length);
    };
    const docs = corpus(random, 600);
    for (let i = 0; i < 300; i += 50) await both(docs.slice(i, i + 50));
    await listed.optimize(); // lists for every frequent term, then maintained through the writes below
    for (let i = 300; i < docs.length; i += 50) await both(docs.slice(i, i + 50));
    t.ok(listed.counters.listsBuilt > 20, `lists built (${listed.counters.listsBuilt})`);

    const compare = async (round: string) => {
      const terms = Array.from({ length: 40 }, (_, i) => `λ${i}`);
      let mismatches = 0;
      for (const term of terms) {
        for (const source of [undefined, 'kimdis'] as (SourceName | undefined)[]) {
          for (const [offset, limit] of [
            [0, 5],
            [0, 12],
            [3, 7],
            [10, 10],
            [11, 1],
            [25, 10],
            [200, 50],
            [0, 1000],
          ]) {
            const q = { text: term.toUpperCase(), source, offset, limit };
            const [a, b] = [await listed.search(q), await plain.search(q)];
            const same =
              a.total === b.total &&
              JSON.stringify(a.hits.map((h) => [h.doc.source_id, h.score])) === JSON.stringify(b.hits.map((h) => [h.doc.source_id, h.score]));
            if (!same) {
              mismatches += 1;
              if (mismatches < 4) t.fail(`${round}: ${JSON.stringify(q)}: ${a.total}/${b.total} ${ids(a.hits).slice(0, 5)} vs ${ids(b.hits).slice(0, 5)}`);
            }
          }
        }
      }
      t.equal(mismatches, 0, `${round}: no differences`);
    };
    const fromListBefore = listed.counters.fromList;
    await compare('after the load');
    t.ok(listed.counters.fromList - fromListBefore > 200, `served from lists (${listed.counters.fromList - fromListBefore})`);
    t.equal(plain.counters.fromList, 0, 'the reference never uses lists');

    // Overwrites: new text, new dates, and a drift of the average length (longer documents).
    const rewrites = docs
      .filter(() => random() < 0.3)
      .map((d) => {
        const fresh = corpus(random, 1)[0];
        return { ...d, title: fresh.title, content: `${fresh.content} ${fresh.content}`, published_at: fresh.published_at };
      });
    for (let i = 0; i < rewrites.length; i += 40) await both(rewrites.slice(i, i + 40));
    await compare('after overwrites');
    await compare('after lazy list rebuilds');
    t.equal(HotLists.replicaMismatches, 0, 'FTS5 scores reproduced bit for bit');
  });

t.test(
  'when a client pages on past the first page, then the next pages come from the ranking kept, equal to a fresh ranking, until the index changes',
  async (t) => {
    const file = newFile();
    const tuning = { hotMinDf: Number.POSITIVE_INFINITY };
    const paging = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm', tuning });
    const threads = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm', tuning, readers: 2 });
    t.teardown(async () => {
      await paging.close();
      await threads.close();
    });
    await paging.upsert(corpus(mulberry32(7), 600));
    /** The same page from a provider that has kept nothing. */
    const fresh = async (q: Parameters<EmbeddedProvider['search']>[0]) => {
      const p = new EmbeddedProvider({ file, dimension: 2, embeddingModel: 'm', tuning });
      try {
        return await p.search(q);
      } finally {
        await p.close();
      }
    };
    const same = (a: { total: number; hits: { doc: { source_id: string }; score: number }[] }, b: typeof a) =>
      a.total === b.total && JSON.stringify(a.hits.map((h) => [h.doc.source_id, h.score])) === JSON.stringify(b.hits.map((h) => [h.doc.source_id, h.score]));

    for (const text of ['λ0', 'λ1 λ2', 'λ1*']) {
      const limit = 7;
      const { total } = await fresh({ text, limit: 1, offset: 0 });
      t.ok(total > 100, `${text}: ${total} matches`);
      const ranked = paging.counters.rankedByFts;
      const kept = paging.counters.fromRanking;
      let pages = 0;
      let differing = 0;
      for (let offset = 0; offset < total; offset += limit) {
        pages += 1;
        const q = { text, limit, offset };
        if (!same(await paging.search(q), await fresh(q))) differing += 1;
      }
      t.equal(differing, 0, `${text}: every page equals a fresh ranking`);
      const fromRanking = paging.counters.fromRanking - kept;
      t.ok(fromRanking >= pages - 8, `${text}: ${fromRanking} of ${pages} pages came from a kept ranking`);
      t.ok(paging.counters.rankedByFts - ranked < 8 * 3, `${text}: ranked by FTS5 only as the pages went deeper`);
    }

    const q = { text: 'λ0', limit: 7, offset: 14 };
    await paging.search({ ...q, offset: 7 });
    const kept = paging.counters.fromRanking;
    await paging.upsert([doc('ted:newest', '2030-01-01T00:00:00Z', 'λ0 λ0 λ0', 'λ0 λ0')]);
    const after = await paging.search(q);
    t.equal(paging.counters.fromRanking, kept, 'a write in between: ranked afresh');
    t.ok(same(after, await fresh(q)), 'and the page includes the write');

    // Through the reader threads, as the API runs it: each thread keeps its own rankings.
    let fromThreads = 0;
    for (let offset = 7; offset < 300; offset += 7) {
      const page = { text: 'λ3', limit: 7, offset };
      if (!same(await threads.search(page), await fresh(page))) t.fail(`threads: ${JSON.stringify(page)} differs`);
      fromThreads = threads.counters.fromRanking;
    }
    t.ok(fromThreads > 20, `threads: ${fromThreads} pages from kept rankings`);
    await paging.upsert([doc('ted:newer', '2031-01-01T00:00:00Z', 'λ3 λ3 λ3', 'λ3 λ3')]);
    for (const offset of [14, 21, 28]) {
      const page = { text: 'λ3', limit: 7, offset };
      t.ok(same(await threads.search(page), await fresh(page)), `threads: a write by another connection shows on the page at ${offset}`);
    }
  },
);

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
    const damaged = path.join(root, 'damaged-pages.sqlite');
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
    const truncated = path.join(root, 'truncated.sqlite');
    copyFileSync(file, truncated);
    truncateSync(truncated, Math.floor(size / 2));
    const broken = new EmbeddedProvider({ file: truncated, dimension: 2, embeddingModel: 'm' });
    t.teardown(() => broken.close());
    await t.rejects(broken.init(), /^The embedded index .*truncated\.sqlite is damaged \(.+\)\. .*run `pdi reindex`, which moves it aside and rebuilds it\.$/);
  },
);
