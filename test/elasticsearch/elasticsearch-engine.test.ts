// The Elasticsearch adapter against a real Elasticsearch: search semantics, writes, the alias-swap
// rebuild under load and when it fails, paging past the 10,000-hit window, and outages.
import net from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import type { IndexedDocument } from '../../index-mappings/document.js';
import { readAlias } from '../../index-mappings/index-names.js';
import { GENERATION_FIELD, METADATA_JSON_FIELD, SEARCH_TEXT_FIELD, searchText } from '../../index-mappings/mapping.js';
import { docId, generationValue, parseFilter } from '../../lib/search/elasticsearch/generations.js';
import { MAPPING_VERSION } from '../../index-mappings/version.js';
import { metadataOf } from '../../index-mappings/document.js';
import { EngineUnavailableError } from '../../lib/errors.js';
import { snippetText } from '../../lib/search/snippet.js';
import { holdingProxy } from '../helpers/holding-proxy.js';
import { ElasticsearchProvider, type ElasticsearchProviderOptions } from '../../lib/search/elasticsearch.js';
import { SOURCE_NAMES, type SourceName } from '../../index-mappings/sources.js';
import {
  aliasTargets,
  deleteIndices,
  elasticsearchUrl,
  es,
  indicesOf,
  makeDoc,
  olderIndex,
  privateElasticsearch,
  randomPrefix,
} from '../helpers/elasticsearch.js';

t.setTimeout(600_000);

const DIM = 4;
const MODEL = 'test/model-4';
// Without ELASTICSEARCH_URL this file runs its own node, which the outage test may then stop; a
// shared node (npm test, CI) is never stopped: that test starts a private one instead.
const own = process.env.ELASTICSEARCH_URL?.trim() ? null : await privateElasticsearch(t, 'engine');
const url = own?.url ?? (await elasticsearchUrl(t));

/** A provider on a fresh prefix (or the given one); closed and its indices deleted when `t` ends. */
function open(t: Test, opts: Partial<ElasticsearchProviderOptions> = {}): ElasticsearchProvider {
  const prefix = opts.prefix ?? randomPrefix();
  const p = new ElasticsearchProvider({ url, prefix, dimension: DIM, embeddingModel: MODEL, ...opts });
  t.teardown(async () => {
    await p.close();
    await deleteIndices(url, prefix);
  });
  return p;
}

async function ready(t: Test, opts: Partial<ElasticsearchProviderOptions> = {}): Promise<ElasticsearchProvider> {
  const p = open(t, opts);
  await p.init();
  return p;
}

const ids = (r: { hits: { doc: { source_id: string } }[] }) => r.hits.map((h) => h.doc.source_id);

t.test('when two providers initialise one prefix at once, then one index holds every source behind the alias, with _meta', async (t) => {
  const prefix = randomPrefix();
  const a = open(t, { prefix });
  const b = open(t, { prefix });
  await Promise.all([a.init(), b.init()]);
  await a.init();

  const read = await aliasTargets(url, readAlias(prefix));
  t.same(read, [`${prefix}-docs-m${MAPPING_VERSION}-init`], 'one index behind the alias');
  t.same(await indicesOf(url, prefix), read, 'no other index was created');
  const alias = await es(url, 'GET', `/_alias/${readAlias(prefix)}`);
  t.equal(
    (alias.body as Record<string, { aliases: Record<string, { is_write_index?: boolean }> }>)[read[0]].aliases[readAlias(prefix)].is_write_index,
    true,
    'writes go through the alias',
  );

  const mapping = await es(url, 'GET', `/${readAlias(prefix)}/_mapping`);
  const m = (Object.values(mapping.body)[0] as { mappings: { dynamic: string; _meta: unknown } }).mappings;
  t.equal(m.dynamic, 'strict');
  t.same(m._meta, { mapping_version: MAPPING_VERSION, embedding_model: MODEL, embedding_dimension: DIM });
});

t.test('searching', async (t) => {
  const p = await ready(t);
  const w = await p.upsert([
    makeDoc('diavgeia', 'a', { title: 'Σύμβαση προμήθειας υπολογιστών', embedding: [1, 0, 0, 0] }),
    makeDoc('diavgeia', 'b', { title: 'Απόφαση ανάθεσης', content: 'Road maintenance contracts for the region' }),
    makeDoc('kimdis', 'c', { title: 'Διακήρυξη διαγωνισμού', summary: 'Ανοικτός διαγωνισμός για έργα' }),
    makeDoc('kimdis', 'd', { title: 'Έργο οδοποιίας', content: 'Η σύμβαση υπογράφηκε χθες από τον δήμο' }),
    makeDoc('elstat', 'e', { title: 'Δελτίο τιμών', entities: { afm: [], ada: [], names: ['ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ'] } }),
    makeDoc('elstat', 'f', { title: 'Δελτίο εισαγωγών', entities: { afm: [], ada: [], names: ['Siemens Hellas'] } }),
    makeDoc('ted', 'g', { title: 'Οι αναθέσεις εγκρίθηκαν' }),
    makeDoc('ted', 'h', { title: 'ΜΕΛΕΤΗ ΟΔΟΠΟΙΙΑΣ' }),
    makeDoc('ted', 'i', { title: 'Μελέτη οδοποιίας' }),
  ]);
  t.same(w, { written: 9, failed: [] });
  await p.refresh();
  const search = (text: string, source?: SourceName) => p.search({ text, filters: { source }, limit: 10, offset: 0 });

  t.test('when searching συμβάσεις, then the document titled σύμβαση is found, title matches first', async (t) => {
    const r = await search('συμβάσεις');
    t.same(ids(r), ['diavgeia:a', 'kimdis:d']);
    t.equal(r.total, 2);
    t.ok(r.hits[0].score > r.hits[1].score, 'the title match scores higher than the content match');
  });

  t.test('when the query differs in case and accents, then it matches the same documents', async (t) => {
    t.same(ids(await search('ΣΥΜΒΑΣΗ')), ['diavgeia:a', 'kimdis:d']);
    t.same(ids(await search('συμβαση υπολογιστων')), ['diavgeia:a']);
  });

  t.test('when searching an English word form, then English stemming finds the content', async (t) => {
    t.same(ids(await search('contract')), ['diavgeia:b']);
  });

  t.test('when searching several terms, then all must match', async (t) => {
    t.same(ids(await search('σύμβαση διακήρυξη')), []);
    t.same(ids(await search('σύμβαση δήμο')), ['kimdis:d']);
  });

  t.test('when a phrase or a prefix is given, then it is honoured', async (t) => {
    t.same(ids(await search('"απόφαση ανάθεσης"')), ['diavgeia:b']);
    t.same(ids(await search('"ανάθεσης απόφαση"')), []);
    t.same(ids(await search('διαγων*')), ['kimdis:c']);
  });

  t.test('when a name of an entity is searched, then its document is found', async (t) => {
    t.same(ids(await search('Αθηναίων')), ['elstat:e']);
  });

  t.test("when a stop word is searched, then the documents holding it are found through the other language's analysis", async (t) => {
    t.same(ids(await search('από')), ['kimdis:d'], 'a Greek stop word, indexed by the English sub-field');
    t.same(ids(await search('for')), ['diavgeia:b'], 'an English stop word, indexed by the Greek field');
    t.same(ids(await search('σύμβαση από')), ['kimdis:d']);
  });

  t.test('when a Latin name is listed only among the entities, then it is found', async (t) => {
    t.same(ids(await search('Siemens')), ['elstat:f']);
  });

  t.test('when a prefix is longer than the stem of the word it begins, then the word is still found', async (t) => {
    t.same(ids(await search('αναθέσεις*')), ['ted:g']);
  });

  t.test('when the query differs in case and accents, then the hits come in the same order with the same scores', async (t) => {
    // One document in capitals, one in lower case with accents: the order may not depend on which
    // form the query happens to share with a document.
    const forms = await Promise.all(['μελέτη', 'ΜΕΛΕΤΗ', 'μελετη'].map((q) => search(q)));
    const seen = forms.map((r) => r.hits.map((h) => [h.doc.source_id, h.score]));
    t.same(seen[1], seen[0]);
    t.same(seen[2], seen[0]);
    t.same(seen[0].map((x) => x[0]).sort(), ['ted:h', 'ted:i']);
  });

  t.test('when a source is given, then only its documents are searched', async (t) => {
    t.same(ids(await search('σύμβαση', 'kimdis')), ['kimdis:d']);
    t.same(ids(await search('σύμβαση', 'ted')), []);
  });

  t.test('when the query is syntax garbage, then it never raises', async (t) => {
    for (const q of ['((', '"unterminated', 'a AND OR NOT', '-', '+|~*', '\\', 'title:σύμβαση', '/re(gex/', '[]{}^~', '*']) {
      const r = await search(q);
      t.type(r.total, 'number', `"${q}" answered`);
    }
    t.same(ids(await search('σύμβαση)(')), ['diavgeia:a', 'kimdis:d'], 'operators are plain text');
  });

  t.test('when hits come back, then they never carry the embedding', async (t) => {
    const r = await search('υπολογιστών');
    t.equal(r.hits.length, 1);
    t.notOk('embedding' in r.hits[0].doc);
    t.equal(r.hits[0].doc.title, 'Σύμβαση προμήθειας υπολογιστών');
  });

  t.test('when a metadata page comes back, then each hit carries its record as the JSON the API would write', async (t) => {
    const r = await p.search({ text: 'σύμβαση', limit: 10, offset: 0, view: 'metadata' });
    t.equal(r.hits.length, 2);
    for (const h of r.hits) t.equal(h.metadataJson?.toString('utf8'), JSON.stringify(metadataOf(h.doc)), h.doc.source_id);
  });
});

t.test('when a title is longer than a keyword doc value may be (32,766 bytes), then search still returns its whole metadata record', async (t) => {
  const p = await ready(t);
  const long = `Απόφαση κυματοθραύστη ${'παράρτημα '.repeat(2_000)}`.trim();
  t.ok(Buffer.byteLength(long) > 32_766, 'the title alone exceeds the keyword doc-value limit');
  await p.upsert([makeDoc('ted', 'long', { title: long }), makeDoc('ted', 'short', { title: 'Μελέτη κυματοθραύστη' })]);
  await p.refresh();
  const r = await p.search({ text: 'κυματοθραύστη', limit: 10, offset: 0, view: 'metadata' });
  t.same(r.hits.map((h) => [h.doc.source_id, h.doc.title]).sort(), [
    ['ted:long', long],
    ['ted:short', 'Μελέτη κυματοθραύστη'],
  ]);
  t.notOk('content' in r.hits[0].doc, 'still the metadata record only');
});

t.test('when documents were written without the doc-values record (before mapping version 3), then metadata pages read them from _source', async (t) => {
  const prefix = randomPrefix();
  const p = await ready(t, { prefix });
  await p.upsert([makeDoc('diavgeia', 'new', { title: 'Νέα σύμβαση λιμένα', published_at: '2025-01-02T00:00:00Z' })]);
  // Written the way an older build wrote it: the same document, no metadata_json.
  const old = makeDoc('diavgeia', 'old', { title: 'Παλαιά σύμβαση λιμένα', content: 'κείμενο' });
  // Into the serving generation of its source, as the alias filter names it.
  const filter = Object.values((await es(url, 'GET', `/_alias/${readAlias(prefix)}`)).body as Record<string, any>)[0].aliases[readAlias(prefix)].filter;
  const stamp = parseFilter(filter)!.get('diavgeia')!;
  const put = await es(url, 'PUT', `/${readAlias(prefix)}/_doc/${encodeURIComponent(docId(old.source_id, stamp))}?refresh=true`, {
    ...old,
    [SEARCH_TEXT_FIELD]: searchText(old),
    [GENERATION_FIELD]: generationValue('diavgeia', stamp),
  });
  t.equal(put.status, 201, 'written without the record');
  await p.refresh();
  for (const [offset, limit, pageWindow] of [
    [0, 10, undefined],
    [1, 1, 1],
  ] as const) {
    const q = open(t, { prefix, pageWindow });
    const r = await q.search({ text: 'σύμβαση λιμένα', limit, offset, view: 'metadata' });
    t.equal(r.total, 2);
    const expected = [
      ['diavgeia:new', 'Νέα σύμβαση λιμένα'],
      ['diavgeia:old', 'Παλαιά σύμβαση λιμένα'],
    ].slice(offset, offset + limit);
    t.same(
      r.hits.map((h) => [h.doc.source_id, h.doc.title]),
      expected,
      `offset ${offset}, window ${pageWindow ?? 'default'}`,
    );
    t.notOk(
      r.hits.some((h) => 'content' in h.doc),
      'metadata only',
    );
    t.notOk(
      r.hits.some((h) => h.metadataJson),
      'no stored record to pass on: the API serialises these',
    );
  }
});

t.test('when documents were written without the snippet text (before mapping version 13), then snippet pages cut it from their content', async (t) => {
  const prefix = randomPrefix();
  const p = await ready(t, { prefix });
  const content = `Σύμβαση λιμένα: ${'οι εργασίες του έργου στο λιμάνι. '.repeat(60)}`;
  await p.upsert([makeDoc('diavgeia', 'new', { title: 'Νέα σύμβαση λιμένα', content, published_at: '2025-01-02T00:00:00Z' })]);
  const old = makeDoc('diavgeia', 'old', { title: 'Παλαιά σύμβαση λιμένα', content: `Παλαιά ${content}` });
  const filter = Object.values((await es(url, 'GET', `/_alias/${readAlias(prefix)}`)).body as Record<string, any>)[0].aliases[readAlias(prefix)].filter;
  const stamp = parseFilter(filter)!.get('diavgeia')!;
  // Written the way a build of mapping version 12 wrote it: the record, no snippet text.
  const put = await es(url, 'PUT', `/${readAlias(prefix)}/_doc/${encodeURIComponent(docId(old.source_id, stamp))}?refresh=true`, {
    ...old,
    [METADATA_JSON_FIELD]: Buffer.from(JSON.stringify(metadataOf(old))).toString('base64'),
    [SEARCH_TEXT_FIELD]: searchText(old),
    [GENERATION_FIELD]: generationValue('diavgeia', stamp),
  });
  t.equal(put.status, 201, 'written without the snippet text');
  await p.refresh();
  const r = await p.search({ text: 'σύμβαση λιμένα', limit: 10, offset: 0, view: 'snippet' });
  t.same(
    r.hits.map((h) => [h.doc.source_id, h.doc.title, h.snippetText]),
    [
      ['diavgeia:new', 'Νέα σύμβαση λιμένα', snippetText(content)],
      ['diavgeia:old', 'Παλαιά σύμβαση λιμένα', snippetText(old.content)],
    ],
  );
  t.notOk(
    r.hits.some((h) => 'content' in h.doc),
    'the metadata without the content',
  );
});

t.test('when a serving index was made by a build of mapping version 2 (record as raw JSON), then metadata pages still read its records', async (t) => {
  const prefix = randomPrefix();
  const index = await olderIndex(url, prefix, 'diavgeia', 2, DIM, MODEL);
  const doc = makeDoc('diavgeia', 'v2', { title: 'Σύμβαση λιμένα', published_at: '2025-01-02T00:00:00Z' });
  const put = await es(url, 'PUT', `/${index}/_doc/${encodeURIComponent(doc.source_id)}?refresh=true`, {
    ...doc,
    [METADATA_JSON_FIELD]: JSON.stringify(metadataOf(doc)),
  });
  t.equal(put.status, 201);
  const p = await ready(t, { prefix });
  const r = await p.search({ text: 'σύμβαση λιμένα', limit: 10, offset: 0, view: 'metadata' });
  t.equal(r.total, 1);
  t.same(
    r.hits.map((h) => [h.doc.source_id, h.doc.title]),
    [['diavgeia:v2', 'Σύμβαση λιμένα']],
  );
  t.same(JSON.parse(r.hits[0]!.metadataJson!.toString('utf8')), metadataOf(doc), 'the record as written, not base64 read from raw JSON');
});

t.test(
  'when per-source indices of mapping version 4 serve (an upgrade), then reads find their documents, writes are refused naming pdi reindex, and a rebuild of one source moves every source into one index',
  async (t) => {
    const prefix = randomPrefix();
    const v4 = async (source: SourceName, id: string, title: string, content: string, names: string[] = []) => {
      const index = await olderIndex(url, prefix, source, 4, DIM, MODEL);
      const doc = makeDoc(source, id, { title, content, entities: { afm: [], ada: [], names } });
      const put = await es(url, 'PUT', `/${index}/_doc/${encodeURIComponent(doc.source_id)}?refresh=true`, {
        ...doc,
        [METADATA_JSON_FIELD]: Buffer.from(JSON.stringify(metadataOf(doc))).toString('base64'),
      });
      t.equal(put.status, 201, 'written as a version-4 build wrote it: no search_text');
      return doc;
    };
    await v4('diavgeia', 'v4', 'Σύμβαση λιμένα Πάρου', 'Harbour works contract for Paros.', ['Λιμενικό Ταμείο Πάρου']);
    await v4('ted', 'v4', 'Σύμβαση λιμένα Σύρου', 'Harbour works contract for Syros.');
    const lines: string[] = [];
    const log = pino(
      { level: 'warn' },
      new Writable({
        write: (chunk, _enc, cb) => {
          lines.push(String(chunk));
          cb();
        },
      }),
    );
    const p = await ready(t, { prefix, logger: log });
    t.match(lines.join(''), /2 indices serve .*one per source.*run pdi reindex/, 'the start-up warning says what to do');
    const found = async (text: string) => (await p.search({ text, limit: 10, offset: 0 })).hits.map((h) => h.doc.source_id).sort();
    const searches = async (when: string) => {
      t.same(await found('σύμβαση λιμένα'), ['diavgeia:v4', 'ted:v4'], `${when}: Greek words`);
      t.same(await found('harbour contract'), ['diavgeia:v4', 'ted:v4'], `${when}: English words`);
      t.same(await found('λιμέ*'), ['diavgeia:v4', 'ted:v4'], `${when}: a prefix`);
      t.same(await found('"λιμένα Πάρου"'), ['diavgeia:v4'], `${when}: a phrase`);
      t.same(await found('Ταμείο'), ['diavgeia:v4'], `${when}: a party's name`);
      t.equal((await p.get('ted:v4'))?.title, 'Σύμβαση λιμένα Σύρου', `${when}: a document by id`);
    };
    await searches('per-source indices');
    await t.rejects(p.upsert([makeDoc('rae', 'new')]), /not written: 2 indices serve .*run pdi reindex/);

    const r = await p.rebuild('rae', inBatches([makeDoc('rae', 'new', { title: 'Άδεια παραγωγής' })], 10));
    t.same(await aliasTargets(url, readAlias(prefix)), [r.index], 'one index serves');
    t.same(await indicesOf(url, prefix), [r.index], 'the per-source indices and their aliases are gone');
    await searches('one index');
    t.same((await p.stats()).sources.rae?.documents, 1);
    t.same(await p.upsert([makeDoc('kimdis', 'later')]), { written: 1, failed: [] }, 'written once one index of this build serves');
  },
);

t.test(
  'when the serving index was made for another mapping version, then writes stop the run, naming pdi reindex, and a rebuild lets them through',
  async (t) => {
    const prefix = randomPrefix();
    await olderIndex(url, prefix, 'diavgeia', MAPPING_VERSION - 1, DIM, MODEL);
    const lines: string[] = [];
    const log = pino(
      { level: 'warn' },
      new Writable({
        write: (chunk, _enc, cb) => {
          lines.push(String(chunk));
          cb();
        },
      }),
    );
    const p = await ready(t, { prefix, logger: log });
    t.match(lines.join(''), /run pdi reindex/, 'the start-up warning says what to do');
    const doc = makeDoc('diavgeia', 'new', { title: 'Νέα απόφαση' });
    await t.rejects(p.upsert([doc]), new RegExp(`built for mapping version ${MAPPING_VERSION - 1}.*run pdi reindex`));
    await p.rebuild('diavgeia', inBatches([], 10));
    t.same(await p.upsert([doc]), { written: 1, failed: [] }, 'written once rebuilt');
  },
);

t.test("when a search or listing names a source, then only that source's documents come back, from the one index", async (t) => {
  const prefix = randomPrefix();
  const p = await ready(t, { prefix });
  await p.upsert([makeDoc('kimdis', 'k', { title: 'Σύμβαση καθαρισμού' }), makeDoc('ted', 'x', { title: 'Σύμβαση καθαρισμού' })]);
  await p.refresh();
  t.same(ids(await p.search({ text: 'σύμβαση', filters: { source: 'kimdis' }, limit: 10, offset: 0 })), ['kimdis:k']);
  t.same(ids(await p.list({ source: 'ted', limit: 10, offset: 0 })), ['ted:x']);
  t.equal((await p.search({ text: 'σύμβαση', limit: 0, offset: 0 })).total, 2, 'both in one index without the filter');
});

t.test('when a document is upserted twice with one source_id, then the second overwrites the first', async (t) => {
  const p = await ready(t);
  t.same(await p.upsert([makeDoc('elstat', 'x', { title: 'Πρώτη έκδοση' })]), { written: 1, failed: [] });
  t.equal((await p.get('elstat:x'))?.title, 'Πρώτη έκδοση', 'get is real-time, before any refresh');
  t.same(await p.upsert([makeDoc('elstat', 'x', { title: 'Δεύτερη έκδοση' })]), { written: 1, failed: [] });
  await p.refresh();
  t.equal((await p.get('elstat:x'))?.title, 'Δεύτερη έκδοση');
  t.equal((await p.list({ source: 'elstat', limit: 10, offset: 0 })).total, 1);
  t.equal((await p.search({ text: 'Πρώτη', limit: 10, offset: 0 })).total, 0);
  t.equal((await p.search({ text: 'Δεύτερη', limit: 10, offset: 0 })).total, 1);
});

t.test('when some documents of a batch are invalid, then each is reported and the rest are written', async (t) => {
  const p = await ready(t);
  const extra = { ...makeDoc('rae', 'extra'), unexpected_field: 1 } as unknown as IndexedDocument;
  const r = await p.upsert([makeDoc('rae', 'ok'), makeDoc('rae', 'bad-vector', { embedding: [1, 2] }), extra, makeDoc('nowhere' as SourceName, 'z')]);
  t.equal(r.written, 1);
  const byId = Object.fromEntries(r.failed.map((f) => [f.source_id, f.error]));
  t.same(Object.keys(byId).sort(), ['nowhere:z', 'rae:bad-vector', 'rae:extra']);
  t.match(byId['rae:bad-vector'], /dimension|dims/i);
  t.match(byId['rae:extra'], /strict_dynamic_mapping/);
  t.match(byId['nowhere:z'], /unknown source/);
  t.same(
    r.failed.map((f) => f.cause),
    ['document', 'document', 'document'],
    'refused for what they hold: a retry changes nothing',
  );
  t.ok(await p.get('rae:ok'));
  t.equal(await p.get('rae:bad-vector'), null);
});

t.test("when bulk items are refused for the index's state, then each is reported once with that cause, the rest written", async (t) => {
  const prefix = randomPrefix();
  const p = await ready(t, { prefix });
  const [index] = await aliasTargets(url, readAlias(prefix));
  // The flood-stage disk block: Elasticsearch answers each write to the index with 429.
  const block = async (on: boolean) => {
    const r = await es(url, 'PUT', `/${index}/_settings`, { 'index.blocks.read_only_allow_delete': on ? true : null });
    if (r.status !== 200) throw new Error(`block ${on}: ${r.status}`);
  };
  await block(true);
  const r = await p.upsert([makeDoc('rae', 'd'), makeDoc('ted', 'e')]);
  await block(false);
  t.equal(r.written, 0);
  t.same(
    r.failed.map((f) => f.source_id),
    ['rae:d', 'ted:e'],
    'reported, never dropped',
  );
  t.match(r.failed[0].error, /cluster_block_exception/);
  t.same(
    r.failed.map((f) => f.cause),
    ['index', 'index'],
    "refused for the index's state: the sink sends them again",
  );
  t.same(await p.upsert([makeDoc('rae', 'd')]), { written: 1, failed: [] }, 'written once the block is lifted');
});

t.test('listing a source', async (t) => {
  const p = await ready(t);
  await p.upsert([
    makeDoc('mitos', 'd1', { published_at: '2024-01-01T00:00:00Z' }),
    makeDoc('mitos', 'd3', { published_at: '2024-01-02T00:00:00Z' }),
    makeDoc('mitos', 'd2', { published_at: '2024-01-02T00:00:00Z' }),
    makeDoc('mitos', 'd4', { published_at: '2024-01-03T12:00:00Z', embedding: [0, 0, 1, 0] }),
    makeDoc('geodata', 'g', { published_at: '2024-02-01T00:00:00Z' }),
  ]);
  await p.refresh();

  t.test('when listed, then newest first, ties by source_id, only that source', async (t) => {
    const r = await p.list({ source: 'mitos', limit: 10, offset: 0 });
    t.same(ids(r), ['mitos:d4', 'mitos:d2', 'mitos:d3', 'mitos:d1']);
    t.equal(r.total, 4);
    t.notOk('embedding' in r.hits[0].doc);
  });

  t.test('when since is given, then only documents published after that day at 00:00:00Z', async (t) => {
    const r = await p.list({ source: 'mitos', filters: { since: '2024-01-02' }, limit: 10, offset: 0 });
    t.same(ids(r), ['mitos:d4']);
    t.equal(r.total, 1);
    t.same(ids(await p.list({ source: 'mitos', filters: { since: '2024-01-01' }, limit: 10, offset: 0 })), ['mitos:d4', 'mitos:d2', 'mitos:d3']);
  });

  t.test('when offset and limit are given, then that slice with the full total', async (t) => {
    const r = await p.list({ source: 'mitos', limit: 2, offset: 1 });
    t.same(ids(r), ['mitos:d2', 'mitos:d3']);
    t.equal(r.total, 4);
    const past = await p.list({ source: 'mitos', limit: 2, offset: 10 });
    t.same(past, { total: 4, hits: [] });
  });

  t.test('when a document is fetched by id, then it comes whole, embedding included', async (t) => {
    const d = await p.get('mitos:d4');
    t.same(d, makeDoc('mitos', 'd4', { published_at: '2024-01-03T12:00:00Z', embedding: [0, 0, 1, 0] }));
    t.equal(await p.get('mitos:nope'), null);
  });
});

t.test('nearest neighbours', async (t) => {
  const p = await ready(t);
  const unit = (v: number[]) => v.map((x) => x / Math.hypot(...v));
  await p.upsert([
    makeDoc('geodata', 'g1', { embedding: unit([1, 0, 0, 0]) }),
    makeDoc('geodata', 'g2', { embedding: unit([0.8, 0.6, 0, 0]) }),
    makeDoc('geodata', 'g3', { embedding: unit([0, 1, 0, 0]) }),
    makeDoc('geodata', 'g4', { embedding: null }),
    makeDoc('ted', 't1', { embedding: unit([0.9, 0.1, 0, 0]) }),
  ]);
  await p.refresh();

  t.test('when querying a vector, then neighbours come by cosine similarity mapped to 0..1', async (t) => {
    const hits = await p.knn({ vector: [1, 0, 0, 0], limit: 3, filters: { source: 'geodata' } });
    t.same(
      hits.map((h) => h.doc.source_id),
      ['geodata:g1', 'geodata:g2', 'geodata:g3'],
    );
    // (1 + cos) / 2, exact: the quantised graph's candidates are re-scored from the float vectors.
    t.ok(Math.abs(hits[0].score - 1) < 1e-4, `same direction scores 1 (${hits[0].score})`);
    t.ok(Math.abs(hits[1].score - 0.9) < 1e-4, `cosine 0.8 scores 0.9 (${hits[1].score})`);
    t.ok(Math.abs(hits[2].score - 0.5) < 1e-4, `orthogonal scores 0.5 (${hits[2].score})`);
    t.notOk('embedding' in hits[0].doc);
  });

  t.test('when a document is excluded or no source is given, then the result follows', async (t) => {
    const excluded = await p.knn({ vector: [1, 0, 0, 0], limit: 2, filters: { source: 'geodata' }, excludeId: 'geodata:g1' });
    t.same(
      excluded.map((h) => h.doc.source_id),
      ['geodata:g2', 'geodata:g3'],
    );
    const all = await p.knn({ vector: [1, 0, 0, 0], limit: 10 });
    t.same(
      all.map((h) => h.doc.source_id),
      ['geodata:g1', 'ted:t1', 'geodata:g2', 'geodata:g3'],
      'no vector, no neighbour',
    );
  });

  t.test('when the vector has the wrong dimension, then it is refused', async (t) => {
    await t.rejects(p.knn({ vector: [1, 0], limit: 2 }), RangeError);
  });
});

t.test('when documents are indexed, then stats give counts, last indexed_at and mean quality per source', async (t) => {
  const p = await ready(t);
  t.same(await p.stats(), {
    total_documents: 0,
    sources: Object.fromEntries(SOURCE_NAMES.map((s) => [s, { documents: 0, last_updated: null, avg_quality: null }])),
  });
  await p.upsert([
    makeDoc('elstat', 'e1', { quality_score: 0.8, indexed_at: '2024-06-01T00:00:00Z' }),
    makeDoc('elstat', 'e2', { quality_score: 0.6, indexed_at: '2024-06-03T10:00:00Z' }),
    makeDoc('rae', 'r1', { quality_score: 1, indexed_at: '2024-05-01T08:30:00Z' }),
  ]);
  await p.refresh();
  const s = await p.stats();
  t.equal(s.total_documents, 3);
  t.same(s.sources.elstat, { documents: 2, last_updated: '2024-06-03T10:00:00Z', avg_quality: 0.7 });
  t.same(s.sources.rae, { documents: 1, last_updated: '2024-05-01T08:30:00Z', avg_quality: 1 });
  t.same(s.sources.ted, { documents: 0, last_updated: null, avg_quality: null });
});

function generation(source: SourceName, n: number, title: string): IndexedDocument[] {
  return Array.from({ length: n }, (_, i) =>
    makeDoc(source, `r${String(i).padStart(4, '0')}`, { title: `${title} ${i}`, published_at: `2024-03-${String(1 + (i % 28)).padStart(2, '0')}T00:00:00Z` }),
  );
}

async function* inBatches(docs: IndexedDocument[], size: number): AsyncGenerator<IndexedDocument[]> {
  for (let i = 0; i < docs.length; i += size) yield docs.slice(i, i + size);
}

t.test('when a source is rebuilt under concurrent reads, then every read succeeds and sees exactly one generation', async (t) => {
  const N = 600;
  const prefix = randomPrefix();
  const p = await ready(t, { prefix });
  // A second reader whose window is small, so its reads walk a point in time across the swap.
  const deep = open(t, { prefix, pageWindow: 100 });
  t.same((await p.upsert(generation('diavgeia', N, 'Παλιά έκδοση'))).failed, []);
  const vector = [0.5, 0.5, 0.5, 0.5];
  t.same((await p.upsert(generation('ted', 120, 'Προκήρυξη').map((d) => ({ ...d, embedding: vector })))).failed, [], 'another source, carried over');
  await p.refresh();
  const before = await aliasTargets(url, readAlias(prefix));

  const seen = { reads: 0, errors: [] as unknown[], totals: new Set<number>(), others: new Set<number>(), readsDuringRebuild: 0 };
  // Each completed round of reads wakes whoever waits for one: the rebuild's batches wait for a round
  // before each batch, so reads provably interleave with loading, refresh and the swap.
  let waiting: (() => void)[] = [];
  const nextRound = () => new Promise<void>((resolve) => waiting.push(resolve));
  let rebuilding = true;
  let stop = false;
  const reader = (async () => {
    while (!stop) {
      try {
        const [s, l, d, o, st] = await Promise.all([
          p.search({ text: 'έκδοση', limit: 5, offset: 0 }),
          p.list({ source: 'diavgeia', limit: 5, offset: 0 }),
          deep.list({ source: 'diavgeia', limit: 5, offset: 300 }),
          p.search({ text: 'Προκήρυξη', filters: { source: 'ted' }, limit: 5, offset: 0 }),
          p.stats(),
        ]);
        for (const r of [s, l, d]) seen.totals.add(r.total);
        seen.others.add(o.total);
        seen.others.add(st.sources.ted?.documents ?? -1);
        if (d.hits.length !== 5) seen.errors.push(new Error(`deep page had ${d.hits.length} hits`));
      } catch (err) {
        seen.errors.push(err);
      }
      seen.reads++;
      if (rebuilding) seen.readsDuringRebuild++;
      const woken = waiting;
      waiting = [];
      for (const wake of woken) wake();
    }
  })();

  const fresh = generation('diavgeia', N, 'Νέα έκδοση');
  async function* interleaved(): AsyncGenerator<IndexedDocument[]> {
    for (let i = 0; i < fresh.length; i += 50) {
      await nextRound();
      yield fresh.slice(i, i + 50);
    }
  }
  const result = await p.rebuild('diavgeia', interleaved());
  rebuilding = false;
  // A few more rounds against the new generation.
  for (let i = 0; i < 3; i++) await nextRound();
  stop = true;
  await reader;

  t.same(seen.errors.map(String), [], 'no read failed');
  t.same([...seen.totals], [N], 'every read saw exactly one generation');
  t.same([...seen.others], [120], "the other source's count never changed");
  t.ok(seen.readsDuringRebuild >= N / 50, `reads ran during the rebuild (${seen.readsDuringRebuild} rounds of 3)`);
  t.equal(result.documents, N);
  t.equal(result.source, 'diavgeia');

  t.same(await indicesOf(url, prefix), before, 'rebuilt in place: no other index');
  t.same(await aliasTargets(url, readAlias(prefix)), [result.index]);
  t.equal((await p.list({ source: 'ted', limit: 0, offset: 0 })).total, 120, 'the other source is untouched');
  t.same((await p.get('ted:r0001'))?.embedding, vector, 'with its vector');
  t.equal((await p.search({ text: 'Νέα', limit: 1, offset: 0 })).total, N);
  t.equal((await p.search({ text: 'Παλιά', limit: 1, offset: 0 })).total, 0);
});

t.test('when a rebuild fails, then the old index keeps serving and the new one is gone', async (t) => {
  const prefix = randomPrefix();
  const p = await ready(t, { prefix });
  await p.upsert(generation('kimdis', 30, 'Παλιά έκδοση'));
  await p.refresh();
  await p.upsert(generation('rae', 7, 'Άδεια'));
  await p.refresh();
  const before = await aliasTargets(url, readAlias(prefix));
  const fresh = generation('kimdis', 30, 'Νέα έκδοση');

  async function* breaksMidway(): AsyncGenerator<IndexedDocument[]> {
    yield fresh.slice(0, 10);
    throw new Error('upstream broke');
  }
  async function* badDocument(): AsyncGenerator<IndexedDocument[]> {
    yield fresh.slice(0, 10);
    yield [makeDoc('kimdis', 'bad', { embedding: [1] })];
  }
  async function* wrongSource(): AsyncGenerator<IndexedDocument[]> {
    yield [makeDoc('ted', 'elsewhere')];
  }

  for (const [name, batches, error] of [
    ['the batches throw midway', breaksMidway(), /upstream broke/],
    ['a document is rejected', badDocument(), /1 documents failed/],
    ['a document of another source comes', wrongSource(), /of source ted/],
  ] as const) {
    await t.rejects(p.rebuild('kimdis', batches), error, name);
    t.same(await aliasTargets(url, readAlias(prefix)), before, `${name}: the alias is unchanged`);
    t.same(await indicesOf(url, prefix), before, `${name}: the half-built index is deleted`);
    t.equal((await p.list({ source: 'rae', limit: 0, offset: 0 })).total, 7, `${name}: the other source still served`);
    const r = await p.list({ source: 'kimdis', limit: 1, offset: 0 });
    t.equal(r.total, 30);
    t.match(r.hits[0].doc.title, /^Παλιά έκδοση/);
  }
  t.same(await p.upsert([makeDoc('rae', 'after-failure')]), { written: 1, failed: [] }, 'the old index takes writes');
  t.equal((await p.rebuild('kimdis', inBatches(fresh, 10))).documents, 30, 'the next rebuild succeeds');
  t.equal((await p.list({ source: 'rae', limit: 0, offset: 0 })).total, 8, 'carrying the other source over');
});

t.test('when the alias or its index is removed outside pdi, then reads answer 503 instead of empty results, and rebuilding repairs them', async (t) => {
  const prefix = randomPrefix();
  const p = await ready(t, { prefix });
  await p.upsert([...generation('kimdis', 5, 'Σύμβαση'), ...generation('rae', 5, 'Άδεια')]);
  await p.refresh();
  const [index] = await aliasTargets(url, readAlias(prefix));

  t.equal((await es(url, 'POST', '/_aliases', { actions: [{ remove: { index: `${prefix}-*`, alias: readAlias(prefix) } }] })).status, 200);
  await t.rejects(p.search({ text: 'Σύμβαση', limit: 10, offset: 0 }), EngineUnavailableError, 'search over every source');
  await t.rejects(p.stats(), EngineUnavailableError, 'stats');
  await t.rejects(p.list({ source: 'kimdis', limit: 10, offset: 0 }), EngineUnavailableError, 'listing');
  await t.rejects(p.get('rae:r0000'), EngineUnavailableError, 'a document');
  t.equal((await es(url, 'DELETE', `/${index}`)).status, 200);
  await t.rejects(p.get('rae:r0000'), EngineUnavailableError, 'a document, its index gone');

  for (const source of ['kimdis', 'rae'] as const)
    await p.rebuild(
      source,
      (async function* () {
        yield generation(source, 5, 'Νέο');
      })(),
    );
  t.equal((await p.search({ text: 'Νέο', limit: 10, offset: 0 })).total, 10, 'rebuilt: the alias serves both');
  t.equal((await p.list({ source: 'rae', limit: 10, offset: 0 })).total, 5);
});

t.test('when an index stands where the alias must be, then rebuild and init refuse, naming it and what to do', async (t) => {
  const prefix = randomPrefix();
  const p = await ready(t, { prefix });
  const alias = readAlias(prefix);
  const [serving] = await aliasTargets(url, alias);
  t.equal((await es(url, 'DELETE', `/${serving}`)).status, 200);
  t.equal((await es(url, 'PUT', `/${alias}`)).status, 200, "a stray index by the alias's name");
  const named = new RegExp(
    `^an index named ${alias} stands where pdi's alias of that name must be .*: look at it, delete it \\(DELETE /${alias}\\), then run pdi reindex$`,
  );
  const read = await p.list({ source: 'ted', limit: 5, offset: 0 }).catch((e: unknown) => e);
  t.ok(read instanceof EngineUnavailableError, 'a listing is a 503, not a masked 500');
  t.match((read as EngineUnavailableError).why, named);
  await t.rejects(
    p.rebuild(
      'ted',
      (async function* () {
        yield generation('ted', 2, 'Νέα');
      })(),
    ),
    named,
    'rebuild',
  );
  await t.rejects(open(t, { prefix }).init(), named, 'init');
  t.equal((await es(url, 'DELETE', `/${alias}`)).status, 200);
  t.equal(
    (
      await p.rebuild(
        'ted',
        (async function* () {
          yield generation('ted', 2, 'Νέα');
        })(),
      )
    ).documents,
    2,
    'once it is gone, the rebuild repairs the index',
  );
});

t.test('when a rebuild could not delete its half-built index (the node hung), then the next rebuild deletes it', async (t) => {
  const prefix = randomPrefix();
  const p = await ready(t, { prefix });
  await p.upsert(generation('kimdis', 3, 'Παλιά'));
  const [serving] = await aliasTargets(url, readAlias(prefix));
  // What a failed rebuild whose cleanup also failed leaves: a generation behind no alias.
  const abandoned = `${serving}-abandoned`;
  t.equal((await es(url, 'PUT', `/${abandoned}`)).status, 200);
  const r = await p.rebuild(
    'kimdis',
    (async function* () {
      yield generation('kimdis', 3, 'Νέα');
    })(),
  );
  t.same(await indicesOf(url, prefix), [r.index], 'only the serving index is left');
});

t.test('paging past the 10,000-hit window', async (t) => {
  const TOTAL = 10_050;
  const prefix = randomPrefix();
  const p = await ready(t, { prefix });
  // A window of 1,000 makes the middle of 10,050 hits unreachable by from/size from both ends.
  const walker = open(t, { prefix, pageWindow: 1_000 });
  const base = Date.parse('2023-01-01T00:00:00Z');
  // Three documents per timestamp, so the source_id tie-breaker decides inside each group.
  const docs = Array.from({ length: TOTAL }, (_, i) =>
    makeDoc('ted', `n${String(i).padStart(5, '0')}`, {
      title: 'Προκήρυξη δοκιμής',
      published_at: new Date(base + Math.floor(i / 3) * 1000).toISOString().replace('.000Z', 'Z'),
    }),
  ).reverse();
  const started = performance.now();
  const w = await p.upsert(docs);
  const ms = performance.now() - started;
  t.equal(w.written, TOTAL);
  t.same(w.failed, []);
  t.comment(`bulk-indexed ${TOTAL} documents in ${Math.round(ms)} ms (${Math.round((TOTAL / ms) * 1000)} docs/s)`);
  await p.refresh();
  const expected = [...docs].sort((a, b) => b.published_at.localeCompare(a.published_at) || (a.source_id < b.source_id ? -1 : 1)).map((d) => d.source_id);

  t.test('when pages cross the window up to the end, then they join with no overlap or gap', async (t) => {
    const got: string[] = [];
    for (let offset = 9_950; offset < TOTAL; offset += 25) {
      const r = await p.list({ source: 'ted', limit: 25, offset });
      t.equal(r.total, TOTAL);
      got.push(...ids(r));
    }
    t.same(got, expected.slice(9_950));
    const last = await p.list({ source: 'ted', limit: 100, offset: 10_040 });
    t.same(ids(last), expected.slice(10_040), 'a short last page');
    t.same(await p.list({ source: 'ted', limit: 10, offset: TOTAL }), { total: TOTAL, hits: [] });
  });

  t.test('when a text search pages past the window, then the order is the same total order', async (t) => {
    const r = await p.search({ text: 'δοκιμή', limit: 50, offset: 10_000 });
    t.equal(r.total, TOTAL);
    t.same(ids(r), expected.slice(10_000));
  });

  t.test('when the walk must skip more than a window from either end, then search_after gets there', async (t) => {
    t.same(ids(await walker.list({ source: 'ted', limit: 30, offset: 4_000 })), expected.slice(4_000, 4_030), 'forward');
    t.same(ids(await walker.list({ source: 'ted', limit: 30, offset: 6_000 })), expected.slice(6_000, 6_030), 'from the end');
    t.same(ids(await walker.list({ source: 'ted', limit: 20, offset: 990 })), expected.slice(990, 1_010), 'across the window');
    t.same(ids(await walker.search({ text: 'δοκιμή', limit: 20, offset: 5_000 })), expected.slice(5_000, 5_020), 'search');
    t.same(ids(await walker.list({ source: 'ted', limit: 2_500, offset: 3_000 })), expected.slice(3_000, 5_500), 'a page longer than the window');
  });
});

t.test('when an index was created with the default result window (10,000), then init raises it in place for the deep walk', async (t) => {
  const prefix = randomPrefix();
  await ready(t, { prefix });
  const [index] = await aliasTargets(url, readAlias(prefix));
  await es(url, 'PUT', `/${index}/_settings`, { index: { max_result_window: 10_000 } });
  const window = async () =>
    Number(((await es(url, 'GET', `/${index}/_settings/index.max_result_window?flat_settings=true`)).body as any)[index].settings['index.max_result_window']);
  t.equal(await window(), 10_000, 'as an index created before the change');
  await ready(t, { prefix });
  t.equal(await window(), 100_000, 'raised by the next init, no reindex');
});

t.test('when a client pages on past the window, then each page resumes where the previous one ended', async (t) => {
  const TOTAL = 1_000;
  const prefix = randomPrefix();
  // A window of 100 makes every page from offset 100 on a deep one.
  const p = await ready(t, { prefix, pageWindow: 100 });
  const docs = generation('mitos', TOTAL, 'Βεβαίωση δοκιμής');
  t.same((await p.upsert(docs)).failed, []);
  await p.refresh();
  // Every title has three words and the query one of them: equal scores, so the text order is the listing's.
  const expected = [...docs].sort((a, b) => b.published_at.localeCompare(a.published_at) || (a.source_id < b.source_id ? -1 : 1)).map((d) => d.source_id);
  const [index] = await aliasTargets(url, readAlias(prefix));
  // One shard: each search request, a walk's step or its count, is one query phase.
  const queries = async () => ((await es(url, 'GET', `/${index}/_stats/search`)).body as any)._all.total.search.query_total as number;

  const pages: [string, (offset: number) => Promise<{ total: number; hits: { doc: { source_id: string } }[] }>][] = [
    ['listing', (offset) => p.list({ source: 'mitos', limit: 50, offset })],
    ['search', (offset) => p.search({ text: 'δοκιμής', limit: 50, offset })],
  ];
  for (const [name, page] of pages) {
    t.test(`${name}: forward, across the middle`, async (t) => {
      const got: string[] = [];
      const costs: number[] = [];
      for (let offset = 400; offset < 700; offset += 50) {
        const before = await queries();
        const r = await page(offset);
        costs.push((await queries()) - before);
        t.equal(r.total, TOTAL);
        got.push(...ids(r));
      }
      t.same(got, expected.slice(400, 700));
      t.ok(costs[0] >= 5, `the first page counts and walks 400 hits in steps of 100 (${costs[0]} searches)`);
      t.same(costs.slice(1), [1, 1, 1, 1, 1], 'each later page is one search');
    });

    t.test(`${name}: backward from the end`, async (t) => {
      const got: string[][] = [];
      const costs: number[] = [];
      for (let offset = 950; offset >= 700; offset -= 50) {
        const before = await queries();
        const r = await page(offset);
        costs.push((await queries()) - before);
        got.unshift(ids(r));
      }
      t.same(got.flat(), expected.slice(700));
      t.same(costs.slice(1), [1, 1, 1, 1, 1], 'each earlier page is one search, from the end');
    });
  }

  t.test('when the source is rebuilt between two deep pages, then the next one reads the new generation', async (t) => {
    t.equal(ids(await p.list({ source: 'mitos', limit: 50, offset: 300 })).length, 50);
    const fresh = generation('mitos', TOTAL + 10, 'Νέα έκδοση');
    await p.rebuild('mitos', inBatches(fresh, 200));
    const r = await p.list({ source: 'mitos', limit: 50, offset: 350 });
    t.equal(r.total, TOTAL + 10);
    t.equal(r.hits.length, 50);
    t.ok(
      r.hits.every((h) => h.doc.title.startsWith('Νέα έκδοση')),
      'no hit of the replaced generation',
    );
  });
});

t.test(
  'when Elasticsearch stops answering (frozen, not down), then after one timeout calls fail within a ping, and the first call after it answers again succeeds',
  async (t) => {
    let frozen = false;
    const seen: string[] = [];
    const proxy = await holdingProxy(t, url, (req) => {
      seen.push(`${req.method} ${req.url?.split('?')[0]}`);
      return frozen;
    });
    const p = await ready(t, { url: proxy.url, requestTimeoutMs: 3_000 });
    await p.upsert([makeDoc('diavgeia', 'frozen', { title: 'Σύμβαση καθαριότητας' })]);
    await p.refresh();
    const search = () => p.search({ text: 'σύμβαση', limit: 5, offset: 0 });
    t.same(ids(await search()), ['diavgeia:frozen']);

    frozen = true;
    await t.rejects(search(), EngineUnavailableError, 'the first call waits out its request timeout');
    seen.length = 0;
    await t.rejects(search(), EngineUnavailableError, 'the next call fails too');
    t.same(seen, ['HEAD /'], 'the next call only asked whether Elasticsearch answers, and sent no search');

    frozen = false;
    seen.length = 0;
    t.same(ids(await search()), ['diavgeia:frozen'], 'the first call after Elasticsearch answers again succeeds');
    t.ok(seen.includes('HEAD /') && seen.some((s) => s.endsWith('/_search')), 'it checked, then searched');
    seen.length = 0;
    await search();
    t.notOk(seen.includes('HEAD /'), 'once it answers, calls go straight to it again');
  },
);

t.test(
  'when Elasticsearch is frozen from the start, then init fails within a ping, not after a request timeout per call (pdi status, the server start)',
  async (t) => {
    const seen: string[] = [];
    const proxy = await holdingProxy(t, url, (req) => {
      seen.push(`${req.method} ${req.url?.split('?')[0]}`);
      return true;
    });
    const p = new ElasticsearchProvider({ url: proxy.url, prefix: randomPrefix(), dimension: DIM, embeddingModel: MODEL, requestTimeoutMs: 30_000 });
    t.teardown(() => p.close());
    await t.rejects(p.init(), EngineUnavailableError);
    t.same(seen, ['HEAD /'], 'it only asked whether Elasticsearch answers');
  },
);

t.test('when the first node ELASTICSEARCH_URL lists is down, then init, writes and reads go through the next one', async (t) => {
  // A port nobody listens on: connections to it are refused, as to a node that was killed.
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as net.AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  const p = await ready(t, { url: `http://127.0.0.1:${port},${url}` });
  t.same(await p.upsert([makeDoc('diavgeia', 'one-down', { title: 'Σύμβαση φύλαξης' })]), { written: 1, failed: [] });
  await p.refresh();
  for (let i = 0; i < 4; i++) t.same(ids(await p.search({ text: 'φύλαξη', limit: 5, offset: 0 })), ['diavgeia:one-down'], `search ${i + 1}`);
});

t.test('when Elasticsearch stops and starts again, then calls fail with 503 meanwhile and the same provider recovers', async (t) => {
  const node = own ?? (await privateElasticsearch(t, 'restart'));
  const prefix = randomPrefix();
  const p = new ElasticsearchProvider({ url: node.url, prefix, dimension: DIM, embeddingModel: MODEL, requestTimeoutMs: 5_000 });
  t.teardown(() => p.close());
  await p.init();
  await p.upsert([makeDoc('diavgeia', 'live', { title: 'Σύμβαση συντήρησης', embedding: [1, 0, 0, 0] })]);
  await p.upsert(['a', 'b', 'c'].map((id) => makeDoc('mitos', id, { title: `Βεβαίωση ${id}` })));
  await p.refresh();
  t.equal((await p.search({ text: 'σύμβαση', limit: 5, offset: 0 })).total, 1);
  // A deep walk kept open across the restart (a window of 1 makes offset 1 a deep page): its point in
  // time does not survive the restart.
  const deep = new ElasticsearchProvider({ url: node.url, prefix, dimension: DIM, embeddingModel: MODEL, pageWindow: 1 });
  t.teardown(() => deep.close());
  t.same(ids(await deep.list({ source: 'mitos', limit: 1, offset: 1 })), ['mitos:b']);

  await node.stop();
  const calls: [string, () => Promise<unknown>][] = [
    ['search', () => p.search({ text: 'σύμβαση', limit: 5, offset: 0 })],
    ['list', () => p.list({ source: 'diavgeia', limit: 5, offset: 0 })],
    ['deep list', () => p.list({ source: 'diavgeia', limit: 5, offset: 20_000 })],
    ['get', () => p.get('diavgeia:live')],
    ['knn', () => p.knn({ vector: [1, 0, 0, 0], limit: 3 })],
    ['stats', () => p.stats()],
    ['upsert', () => p.upsert([makeDoc('diavgeia', 'down')])],
    ['refresh', () => p.refresh()],
    ['rebuild', () => p.rebuild('diavgeia', inBatches([], 1))],
  ];
  for (const [name, call] of calls) {
    const err = await call().then(
      () => null,
      (e: unknown) => e,
    );
    t.ok(err instanceof EngineUnavailableError, `${name}: EngineUnavailableError`);
    t.equal((err as EngineUnavailableError).statusCode, 503);
    t.notMatch((err as Error).message, /ECONNREFUSED|127\.0\.0\.1|connect|socket/i, `${name}: no engine detail leaks`);
  }

  const restarting = performance.now();
  await node.start();
  t.comment(`Elasticsearch restarted (cluster health yellow) in ${Math.round(performance.now() - restarting)} ms`);
  const r = await p.search({ text: 'σύμβαση', limit: 5, offset: 0 });
  t.same(ids(r), ['diavgeia:live'], 'the first search after the restart succeeds');
  t.same(ids(await deep.list({ source: 'mitos', limit: 1, offset: 1 })), ['mitos:b'], 'a deep page walks afresh');
  t.same(await p.upsert([makeDoc('diavgeia', 'after')]), { written: 1, failed: [] });
  t.ok(await p.get('diavgeia:after'));
});
