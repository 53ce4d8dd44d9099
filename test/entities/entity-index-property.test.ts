// The entity index is kept at write time: after any sequence of stores, updates (a changed party, value
// or date), corrections and rebuilds (a new name-key folding), every entity resolves exactly as in an
// index built afresh from the same documents. Seeded: a failure replays.
import path from 'node:path';
import t from 'tap';
import { mulberry32 } from '../../data/generator/prng.js';
import type { NormalizedDocument, Party } from '../../index-mappings/document.js';
import { DocumentStore } from '../../ingest/state/documents.js';
import { ensureEntityIndex } from '../../ingest/state/entity-index.js';
import { EntityIndex, parseEntityQuery, type EntityQuery } from '../../lib/entities.js';
import { tempDir } from '../helpers/app.js';
import { makeDoc } from '../helpers/elasticsearch.js';

const SEED = 20261127;
const STEPS = 300;
const CHECK_EVERY = 30;
// Valid ΑΦΜs (check digit), names with spellings that share a key, ΑΔΑs.
const AFMS = ['090252840', '094311152', '084065149', '090025537', '094014201', '997687965'];
const NAMES = ['ΔΗΜΟΣ ΑΘΗΝΑΙΩΝ', 'Δήμος Αθηναίων', 'ΤΟΜΕΣ ΑΤΕ', 'Tomes ATE', 'ΑΛΦΑ ΤΕΧΝΙΚΗ ΑΕ', 'ΠΕΡΙΦΕΡΕΙΑ ΚΡΗΤΗΣ'];
const ADAS = ['ΩΑΒΓ469Β7Δ-ΤΛ4', 'ΨΘ82ΩΡΦ-7ΑΙ', 'Ω6Η2ΟΡΡ9-Β9Ω'];
const SOURCES = ['diavgeia', 'kimdis', 'ted'] as const;
const CATEGORIES = ['award', 'contract', 'payment', 'tender_notice'];

function randomDoc(rnd: () => number, id: string, source: (typeof SOURCES)[number]): NormalizedDocument {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const parties: Party[] = [];
  for (let n = 1 + Math.floor(rnd() * 3); n > 0; n--) {
    parties.push({
      role: pick(['buyer', 'supplier', 'issuer', 'other'] as const),
      name: rnd() < 0.9 ? pick(NAMES) : null,
      afm: rnd() < 0.6 ? pick(AFMS) : null,
    });
  }
  const named = parties.filter((p) => p.name !== null || p.afm !== null);
  const {
    indexed_at: _i,
    content_hash: _h,
    original: _o,
    embedding: _e,
    ...doc
  } = makeDoc(source, id, {
    doc_category: pick(CATEGORIES),
    published_at: `202${Math.floor(rnd() * 5)}-0${1 + Math.floor(rnd() * 9)}-1${Math.floor(rnd() * 9)}T10:00:00Z`,
    parties: named,
    entities: {
      afm: [...new Set([...named.map((p) => p.afm).filter((a): a is string => a !== null), ...(rnd() < 0.2 ? [pick(AFMS)] : [])])],
      ada: rnd() < 0.5 ? [pick(ADAS)] : [],
      names: [...new Set(named.map((p) => p.name).filter((n): n is string => n !== null))],
    },
    amount: rnd() < 0.8 ? { value: Math.round(rnd() * 100_000) / 100, currency: rnd() < 0.9 ? 'EUR' : 'SEK' } : null,
  });
  return doc;
}

const queries: EntityQuery[] = [
  ...AFMS.map((a) => parseEntityQuery(a, 'afm')),
  ...ADAS.map((a) => parseEntityQuery(a, 'ada')),
  ...NAMES.map((n) => parseEntityQuery(n, 'name')),
  parseEntityQuery('ΑΘΗΝΑΙΩΝ', 'name'),
];

function resolveAll(index: EntityIndex) {
  return queries.map((q) => index.resolve(q, { limit: 100, offset: 0 }));
}

t.test(
  'when random stores, updates, corrections and rebuilds are applied, then every entity resolves as an index built afresh from the documents',
  async (t) => {
    const rnd = mulberry32(SEED);
    const dir = tempDir(t);
    const store = new DocumentStore(path.join(dir, 'documents.db'));
    t.teardown(() => store.close());
    const index = new EntityIndex(store.db);
    const docs = new Map<string, NormalizedDocument>();
    let next = 0;
    const record = (doc: NormalizedDocument) => ({ doc, content_hash: `h${next}`, original: null, indexed_at: '2026-01-01T00:00:00Z' });
    const ops: Record<string, number> = { add: 0, update: 0, correct: 0, rebuild: 0 };
    for (let step = 1; step <= STEPS; step++) {
      const r = rnd();
      const ids = [...docs.keys()];
      if (r < 0.45 || ids.length === 0) {
        const batch = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => {
          const source = SOURCES[Math.floor(rnd() * SOURCES.length)]!;
          return randomDoc(rnd, `D${next++}`, source);
        });
        store.save(batch.map(record));
        for (const d of batch) docs.set(d.source_id, d);
        ops.add!++;
      } else if (r < 0.8) {
        // The same document fetched again, changed: its parties, value, date and ΑΔΑs.
        const old = docs.get(ids[Math.floor(rnd() * ids.length)]!)!;
        const changed = { ...randomDoc(rnd, old.source_id.slice(old.source.length + 1), old.source as (typeof SOURCES)[number]), source_id: old.source_id };
        store.save([record(changed)]);
        docs.set(changed.source_id, changed);
        ops.update!++;
      } else if (r < 0.95) {
        const old = docs.get(ids[Math.floor(rnd() * ids.length)]!)!;
        const changed = { ...old, parties: old.parties.slice(1), entities: { ...old.entities, names: old.entities.names.slice(1) } };
        store.correct([record(changed)]);
        docs.set(changed.source_id, changed);
        ops.correct!++;
      } else {
        // A store built by another name-key folding: opening rebuilds it.
        store.db.prepare("UPDATE entity_meta SET value = 'older' WHERE name = 'version'").run();
        ensureEntityIndex(store.db);
        ops.rebuild!++;
      }
      if (step % CHECK_EVERY !== 0) continue;
      const fresh = new DocumentStore(path.join(dir, `fresh-${step}.db`));
      fresh.save([...docs.values()].map(record));
      t.same(resolveAll(index), resolveAll(new EntityIndex(fresh.db)), `after step ${step}`);
      fresh.close();
    }
    t.ok(
      Object.values(ops).every((n) => n > 0),
      `every kind of write ran: ${JSON.stringify(ops)}`,
    );
  },
);

t.test('when a store was built with another name-key folding, then opening it rebuilds the keys', async (t) => {
  const file = path.join(tempDir(t), 'documents.db');
  const first = new DocumentStore(file);
  first.save([{ doc: randomDoc(mulberry32(1), 'X1', 'kimdis'), content_hash: 'h', original: null, indexed_at: '2026-01-01T00:00:00Z' }]);
  // What an older folding left: a stale key for the document, and the build it recorded.
  first.db
    .prepare("INSERT INTO entity_keys (kind, key, source_id, relevance, published_at) VALUES ('name', 'stale key', 'kimdis:X1', 1, '2026-01-01T00:00:00Z')")
    .run();
  first.db.prepare("UPDATE entity_meta SET value = '2/names-0' WHERE name = 'version'").run();
  first.close();
  const reopened = new DocumentStore(file);
  t.teardown(() => reopened.close());
  t.equal(reopened.db.prepare("SELECT count(*) FROM entity_keys WHERE key = 'stale key'").pluck().get(), 0, 'the stale key is gone');
  t.match(reopened.db.prepare("SELECT value FROM entity_meta WHERE name = 'version'").pluck().get(), /\/names-\d+$/, 'the folding version is recorded');
});
