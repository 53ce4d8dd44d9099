// Indexes written with an older text version (lib/search/embedded/text.ts TEXT_VERSION: how a
// document's text becomes FTS5 tokens) keep serving and writing in their version until their source is
// rebuilt, and each version tokenizes a document as it did.
import t from 'tap';
import type { IndexedDocument } from '../../index-mappings/document.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { LATIN_MARK, RAW_MARK, TEXT_VERSION, VALUE_GAP, docText } from '../../lib/search/embedded/text.js';
import { Database } from '../../lib/sqlite.js';
import { doc, indexFiles } from '../helpers/embedded-index.js';

const newFile = indexFiles(t);

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
