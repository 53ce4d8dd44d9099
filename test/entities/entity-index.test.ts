// The entity index beside the document store: written with the documents, replaced on update, built
// for stores that predate it, and read by entity resolution (lib/entities.ts).
import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import type { NormalizedDocument } from '../../index-mappings/document.js';
import { DEMO_DIR } from '../../ingest/demo.js';
import { replayableFiles } from '../../ingest/pipeline.js';
import { SOURCE_MODULES } from '../../ingest/sources/index.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { partiesOf } from '../../ingest/state/entity-index.js';
import { EntityIndex, parseEntityQuery } from '../../lib/entities.js';
import { EntityReaders } from '../../lib/entity-readers.js';
import { EngineUnavailableError } from '../../lib/errors.js';
import { NAME_KEY_VERSION } from '../../lib/names.js';
import { createLogger } from '../../lib/logger.js';
import type { SourceName } from '../../index-mappings/sources.js';
import { tempDir } from '../helpers/app.js';
import { makeDoc } from '../helpers/elasticsearch.js';

const BUYER = '090252840';
const SUPPLIER = '094311152';
const OTHER = '084065149';

function doc(source: SourceName, id: string, over: Partial<NormalizedDocument>): NormalizedDocument {
  const { indexed_at: _i, content_hash: _h, original: _o, embedding: _e, ...d } = makeDoc(source, id, over);
  return d;
}

function store(t: Test, file = path.join(tempDir(t), 'documents.db')): DocumentStore {
  const s = new DocumentStore(file);
  t.teardown(() => s.close());
  return s;
}

function save(s: DocumentStore, docs: NormalizedDocument[]): void {
  s.save(docs.map((d) => ({ doc: d, content_hash: 'h', original: null, indexed_at: '2025-01-01T00:00:00Z' })));
}

/** An award of BUYER to SUPPLIER in each of three sources, as their normalizers write the parties. */
function awards(): NormalizedDocument[] {
  return [
    doc('diavgeia', 'ΩΑΒΓ469Β7Δ-ΤΛ4', {
      published_at: '2024-03-01T10:00:00Z',
      parties: [
        { role: 'buyer', name: 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', afm: BUYER },
        { role: 'supplier', name: 'ΤΟΜΕΣ ΑΤΕ', afm: SUPPLIER },
      ],
      entities: { afm: [BUYER, SUPPLIER], ada: ['ΩΑΒΓ469Β7Δ-ΤΛ4'], names: ['ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', 'ΤΟΜΕΣ ΑΤΕ'] },
      amount: { value: 1000, currency: 'EUR' },
    }),
    doc('kimdis', '24SYMV000000001', {
      doc_category: 'contract',
      published_at: '2024-04-01T10:00:00Z',
      parties: [
        { role: 'buyer', name: 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', afm: BUYER },
        { role: 'supplier', name: 'ΤΟΜΕΣ Α.Τ.Ε.', afm: SUPPLIER },
      ],
      // The contract names the Diavgeia award: one procurement, counted once in the contract value.
      entities: { afm: [BUYER, SUPPLIER], ada: ['ΩΑΒΓ469Β7Δ-ΤΛ4'], names: ['ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', 'ΤΟΜΕΣ Α.Τ.Ε.'] },
      amount: { value: 1200, currency: 'EUR' },
    }),
    doc('ted', '123-2024', {
      published_at: '2024-05-01T10:00:00Z',
      parties: [
        { role: 'buyer', name: 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', afm: BUYER },
        { role: 'supplier', name: 'Tomes ATE', afm: SUPPLIER },
        { role: 'supplier', name: 'ACME Ltd', afm: null },
      ],
      entities: { afm: [BUYER, SUPPLIER], ada: [], names: ['ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', 'Tomes ATE', 'ACME Ltd'] },
      amount: { value: 5000, currency: 'EUR' },
    }),
    doc('diavgeia', 'ΨΘ82ΩΡΦ-7ΑΙ', {
      doc_category: 'payment',
      published_at: '2023-01-01T10:00:00Z',
      title: `Πληρωμή προς ΑΦΜ ${SUPPLIER}`,
      parties: [{ role: 'buyer', name: 'ΔΗΜΟΣ ΛΑΜΙΕΩΝ', afm: null }],
      entities: { afm: [SUPPLIER], ada: ['ΨΘ82ΩΡΦ-7ΑΙ'], names: ['ΔΗΜΟΣ ΛΑΜΙΕΩΝ'] },
      amount: { value: 99, currency: 'EUR' },
    }),
  ];
}

t.test('when documents are stored, then an ΑΦΜ resolves across their sources with names, roles and counterparties', async (t) => {
  const s = store(t);
  save(s, awards());
  const index = new EntityIndex(s.db);
  const supplier = index.resolve(parseEntityQuery(SUPPLIER, 'afm'));
  t.equal(supplier.total, 4);
  t.same(supplier.sources, { diavgeia: 2, kimdis: 1, ted: 1 });
  t.equal(supplier.first_seen, '2023-01-01T10:00:00Z');
  t.equal(supplier.last_seen, '2024-05-01T10:00:00Z');
  t.equal(supplier.valid, true);
  t.same(supplier.names.sort(), ['ΤΟΜΕΣ Α.Τ.Ε.', 'ΤΟΜΕΣ ΑΤΕ', 'Tomes ATE'].sort());
  t.same(supplier.counterparties, [{ name: 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', afm: BUYER, role: 'buyer', documents: 3 }], 'buyers of a supplier');
  // The payment names the ΑΦΜ only in its title: a mention, ranked after the documents it is a party of.
  t.same(
    supplier.matches.map((m) => [m.source_id, m.relevance]),
    [
      ['ted:123-2024', 1],
      ['kimdis:24SYMV000000001', 1],
      ['diavgeia:ΩΑΒΓ469Β7Δ-ΤΛ4', 1],
      ['diavgeia:ΨΘ82ΩΡΦ-7ΑΙ', 0.8],
    ],
  );
  t.equal(supplier.total_contract_value, 6200, 'the award and the contract naming it once (1200), the TED award (5000); no payment');

  const buyer = index.resolve(parseEntityQuery(BUYER, 'afm'));
  // Named three ways, one a document: the tie goes to the first in code point order.
  t.same(
    buyer.counterparties,
    [
      { name: 'Tomes ATE', afm: SUPPLIER, role: 'supplier', documents: 3 },
      { name: 'ACME Ltd', afm: null, role: 'supplier', documents: 1 },
    ],
    'suppliers of a buyer',
  );
});

t.test('when a name is looked up, then spellings meet, and a name no party has resolves to the shortest name holding its words', async (t) => {
  const s = store(t);
  save(s, [...awards(), doc('rae', 'x1', { entities: { afm: [], ada: [], names: ['ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ ΚΟΙΝΩΦΕΛΗΣ'] } })]);
  const index = new EntityIndex(s.db);
  const ids = (name: string) => index.resolve(parseEntityQuery(name, 'name'), { limit: 100, offset: 0 }).matches.map((m) => [m.source_id, m.relevance]);
  const greek = ids('ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ');
  t.same(
    greek,
    [
      ['ted:123-2024', 1],
      ['kimdis:24SYMV000000001', 1],
      ['diavgeia:ΩΑΒΓ469Β7Δ-ΤΛ4', 1],
    ],
    'the same name only: a longer one is another entity',
  );
  t.same(ids('dimos athinaion'), greek);
  t.same(ids('Δήμος Αθηναίων'), greek);
  t.same(
    ids('ΑΘΗΝΑΙΩΝ'),
    greek.map(([id]) => [id, 0.45]),
    'the two-word name, not the three-word one: half its words',
  );
  t.same(ids('αθηναιων κοινωφελης'), [['rae:x1', 0.6]], 'two of its three words');
  const tomes = index.resolve(parseEntityQuery('tomes a.t.e.', 'name'));
  t.equal(tomes.total, 3);
  t.same(tomes.afm, [SUPPLIER], 'the ΑΦΜ the name goes with');
  t.equal(tomes.valid, null);
});

t.test('when an ΑΔΑ is looked up, then the decision comes first and the records naming it after', async (t) => {
  const s = store(t);
  save(s, awards());
  const r = new EntityIndex(s.db).resolve(parseEntityQuery('ΩAΒΓ469B7Δ-TΛ4', 'ada'));
  t.same(
    r.matches.map((m) => [m.source_id, m.relevance]),
    [
      ['diavgeia:ΩΑΒΓ469Β7Δ-ΤΛ4', 1],
      ['kimdis:24SYMV000000001', 0.8],
    ],
    'Latin A, B, T read as Greek',
  );
  t.same(r.afm, [BUYER], 'the issuing body');
  t.same(r.counterparties, []);
});

t.test('when a document is stored again or corrected, then its old keys no longer find it', async (t) => {
  const s = store(t);
  const [first] = awards();
  save(s, [first]);
  const index = new EntityIndex(s.db);
  t.equal(index.resolve(parseEntityQuery(SUPPLIER)).total, 1);
  const changed: NormalizedDocument = {
    ...first,
    parties: [
      { role: 'buyer', name: 'ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', afm: BUYER },
      { role: 'supplier', name: 'ΑΛΛΟΣ', afm: OTHER },
    ],
    entities: { afm: [BUYER, OTHER], ada: [], names: ['ΑΛΛΟΣ'] },
  };
  save(s, [changed]);
  t.equal(index.resolve(parseEntityQuery(SUPPLIER)).total, 0, 'update');
  t.equal(index.resolve(parseEntityQuery(OTHER)).total, 1);
  t.equal(index.resolve(parseEntityQuery('ΤΟΜΕΣ', 'name')).total, 0);
  s.correct([{ doc: first, content_hash: 'h2', original: null, indexed_at: '2025-01-01T00:00:00Z' }]);
  t.equal(index.resolve(parseEntityQuery(OTHER)).total, 0, 'correction');
  t.equal(index.resolve(parseEntityQuery(SUPPLIER)).total, 1);
});

t.test('when a store predates the entity index, then opening it builds the index from its documents', async (t) => {
  const file = path.join(tempDir(t), 'documents.db');
  const old = new DocumentStore(file);
  save(old, awards());
  for (const table of ['entity_meta', 'entity_docs', 'entity_keys', 'entity_parties', 'entity_name_keys', 'entity_name_words'])
    old.db.exec(`DROP TABLE ${table}`);
  old.close();
  const s = store(t, file);
  t.equal(new EntityIndex(s.db).resolve(parseEntityQuery(SUPPLIER)).total, 4);
  t.equal(new EntityIndex(s.db).resolve(parseEntityQuery('tomes', 'name')).total, 3);
});

t.test('when a data folder holds an entity index of version 2 (no aggregates), then opening it builds them once from its documents', async (t) => {
  const file = path.join(tempDir(t), 'documents.db');
  const old = new DocumentStore(file);
  save(old, awards());
  // Version 2's tables: keys without their order columns, no aggregates.
  for (const table of [
    'entity_keys',
    'entity_counts',
    'entity_years',
    'entity_identity',
    'entity_counterparties',
    'entity_counterparty_names',
    'entity_values',
    'entity_value_adas',
  ])
    old.db.exec(`DROP TABLE ${table}`);
  old.db.exec('CREATE TABLE entity_keys (kind TEXT NOT NULL, key TEXT NOT NULL, source_id TEXT NOT NULL, PRIMARY KEY (kind, key, source_id)) WITHOUT ROWID');
  old.db.prepare("UPDATE entity_meta SET value = ? WHERE name = 'version'").run(`2/names-${NAME_KEY_VERSION}`);
  old.close();
  const s = store(t, file);
  const supplier = new EntityIndex(s.db).resolve(parseEntityQuery(SUPPLIER));
  t.match(supplier, { total: 4, sources: { diavgeia: 2, kimdis: 1, ted: 1 }, total_contract_value: 6200, first_seen: '2023-01-01T10:00:00Z' });
  t.match(s.db.prepare("SELECT value FROM entity_meta WHERE name = 'version'").pluck().get(), /^3\//, 'the build recorded: not built again on the next open');
});

t.test('when nothing matches, then the aggregate is empty', async (t) => {
  const s = store(t);
  save(s, awards());
  const r = new EntityIndex(s.db).resolve(parseEntityQuery('123456789'));
  t.same(
    { ...r },
    {
      identifier: '123456789',
      type: 'afm',
      valid: false,
      names: [],
      afm: ['123456789'],
      total: 0,
      sources: {},
      first_seen: null,
      last_seen: null,
      total_contract_value: 0,
      counterparties: [],
      matches: [],
      limit: 20,
      offset: 0,
    },
    'a bad check digit is still searched',
  );
});

t.test('when an identifier is malformed, then parseEntityQuery refuses it naming the parameter', async (t) => {
  for (const [id, type, detail] of [
    ['12345678', 'afm', /^identifier must be an AFM of 9 digits/],
    ['1234567890', 'afm', /^identifier must be an AFM of 9 digits/],
    ['ΑΒΓ', 'ada', /^identifier must be an ADA/],
    ['—', 'name', /^identifier must hold a letter or a digit/],
    ['x'.repeat(501), 'name', /^identifier must be at most 500 characters/],
    ['090252840', 'vat', /^type must be one of afm, name, ada$/],
  ]) {
    t.throws(
      () => parseEntityQuery(id as string, type as string),
      { name: 'ValidationError', statusCode: 422, message: detail },
      `${type} ${String(id).slice(0, 20)}`,
    );
  }
  t.same(parseEntityQuery('EL 090252840'), { type: 'afm', identifier: 'EL 090252840', afm: '090252840' }, 'type defaults to afm; EL prefix and spaces allowed');
});

t.test('when the real normalizers fill parties, then the buyers and suppliers are read from them', async (t) => {
  // The demo corpus of each source with roles, through the real normalizers: each names buyers and
  // suppliers with their ΑΦΜs.
  const log = createLogger('silent');
  for (const source of ['ted', 'diavgeia', 'kimdis'] as const) {
    const module = SOURCE_MODULES[source];
    const normalize = module.prepare
      ? await module.prepare({ http: null, baseUrl: '', now: new Date(), log, stored: () => null, store: () => undefined })
      : module.normalize;
    const dir = path.join(DEMO_DIR, source);
    const roles = new Set<string>();
    for (const file of (await replayableFiles(dir)).slice(0, 3)) {
      const contentType = module.replayContentType?.(file) ?? (/\.xml$/i.test(file) ? 'application/xml' : 'application/json');
      for (const r of module.parse(fs.readFileSync(path.join(dir, file), 'utf8'), contentType)) {
        for (const p of partiesOf(normalize(r.record))) if (p.role && p.afm) roles.add(p.role);
      }
    }
    t.same([...roles].sort(), ['buyer', 'supplier'], source);
  }
});

t.test('when entities are resolved on reader threads, then each answer is the one resolved on this thread', async (t) => {
  const s = store(t);
  save(s, awards());
  const readers = new EntityReaders(s.db, { size: 2 });
  t.teardown(() => readers.close());
  const index = new EntityIndex(s.db);
  const queries = [
    parseEntityQuery(SUPPLIER),
    parseEntityQuery(BUYER),
    parseEntityQuery('tomes', 'name'),
    parseEntityQuery('ΩΑΒΓ469Β7Δ-ΤΛ4', 'ada'),
    parseEntityQuery(OTHER),
  ];
  const answers = await Promise.all([...queries, ...queries].map((q) => readers.resolve(q, { limit: 2, offset: 1 })));
  t.same(
    answers,
    [...queries, ...queries].map((q) => index.resolve(q, { limit: 2, offset: 1 })),
  );
  save(s, [doc('rae', 'late', { entities: { afm: [SUPPLIER], ada: [], names: [] } })]);
  t.equal((await readers.resolve(queries[0]!)).total, 5, 'a write committed after the threads started is seen');
  await readers.close();
  await t.rejects(readers.resolve(queries[0]!), EngineUnavailableError, 'a 503 once closed');
});
