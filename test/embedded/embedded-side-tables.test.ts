// The embedded engine's analysis side tables (lib/search/embedded/facts.ts) against a recomputation from
// the documents: what a write leaves in `_facts` and `_keys`, what an overwrite and a removal change, and
// what opening an index made before them fills in.
import path from 'node:path';
import t from 'tap';
import { analysisKeysOf } from '../../index-mappings/analysis.js';
import type { IndexedDocument } from '../../index-mappings/document.js';
import { EmbeddedProvider } from '../../lib/search/embedded.js';
import { Database } from '../../lib/sqlite.js';
import { analysisCorpus } from '../helpers/analysis-corpus.js';
import { tempDir } from '../helpers/app.js';

interface SideRows {
  facts: Record<string, unknown>[];
  keys: string[];
}

/** What the side tables must hold for `docs`, recomputed from the documents (analysisKeysOf, the fields). */
function recomputed(docs: IndexedDocument[]): SideRows {
  const facts = docs.map((d) => ({
    source_id: d.source_id,
    published_at: d.published_at,
    doc_category: d.doc_category,
    procedure_type: d.procedure_type,
    region: d.region,
    tenders_received: d.tenders_received,
    eur: d.amount?.currency === 'EUR' ? d.amount.value : null,
  }));
  const keys = docs.flatMap((d) => {
    const k = analysisKeysOf(d);
    const kinds = {
      buyer: k.buyer,
      supplier: k.supplier,
      party: k.party,
      cpv: k.cpv,
      cpv_division: k.cpv_division,
      cpv_group: k.cpv_group,
      ada: d.entities.ada,
    };
    return Object.entries(kinds).flatMap(([kind, values]) => [...new Set(values)].map((v) => `${d.source_id} ${kind} ${v}`));
  });
  return { facts: sortFacts(facts), keys: keys.sort() };
}

const sortFacts = (rows: Record<string, unknown>[]) => rows.sort((a, b) => String(a.source_id).localeCompare(String(b.source_id)));

/** The rows of every table set's side tables, each key as `source_id kind key`. */
function sideRows(file: string): SideRows {
  const db = new Database(file, { readonly: true });
  try {
    const sets = db
      .prepare(`SELECT substr(name, 1, length(name) - 5) FROM sqlite_schema WHERE type = 'table' AND name GLOB 's_*_docs'`)
      .pluck()
      .all() as string[];
    const facts = sets.flatMap(
      (s) =>
        db.prepare(`SELECT source_id, published_at, doc_category, procedure_type, region, tenders_received, eur FROM "${s}_facts"`).all() as Record<
          string,
          unknown
        >[],
    );
    const keys = sets.flatMap(
      (s) =>
        db.prepare(`SELECT f.source_id || ' ' || k.kind || ' ' || k.key FROM "${s}_keys" k JOIN "${s}_facts" f ON f.rid = k.rid`).pluck().all() as string[],
    );
    return { facts: sortFacts(facts), keys: keys.sort() };
  } finally {
    db.close();
  }
}

t.test('when documents are written, overwritten and moved to another source, then the side tables hold exactly their facts and analysis keys', async (t) => {
  const file = path.join(tempDir(t), 'index.db');
  const provider = new EmbeddedProvider({ file, dimension: 4, embeddingModel: 'm' });
  t.teardown(() => provider.close());
  const docs = analysisCorpus(40).map((d) => ({ ...d, embedding: null }));
  t.same((await provider.upsert(docs)).failed, []);
  const written = sideRows(file);
  t.ok(written.keys.some((k) => k.includes(' ada ')) && written.keys.some((k) => k.includes(' cpv_group ')), 'every kind of key is there');
  t.same(written, recomputed(docs), 'as written');

  // Another supplier, amount, category and publication second for one; another moved to another source
  // (deleted from its set).
  const [changed, moved] = [docs[3]!, docs[4]!];
  const overwritten: IndexedDocument = {
    ...changed,
    doc_category: 'award',
    published_at: '2021-03-04T05:06:07Z',
    amount: { value: 1234.5, currency: 'EUR' },
    parties: [{ role: 'supplier', name: 'ΑΛΛΟΣ', afm: '094014201' }],
    cpv: ['79341000-6'],
    entities: { ...changed.entities, ada: ['ΑΔΑ-1', 'ΑΔΑ-2'] },
  };
  const elsewhere: IndexedDocument = { ...moved, source: moved.source === 'ted' ? 'kimdis' : 'ted' };
  t.same((await provider.upsert([overwritten, elsewhere])).failed, []);
  const now = docs.map((d) => (d === changed ? overwritten : d === moved ? elsewhere : d));
  t.same(sideRows(file), recomputed(now), 'after an overwrite and a move');
});

t.test('when an index made before the side tables is opened, then they are made and filled as writes fill them', async (t) => {
  const file = path.join(tempDir(t), 'index.db');
  const docs = analysisCorpus(30).map((d) => ({ ...d, embedding: null }));
  const first = new EmbeddedProvider({ file, dimension: 4, embeddingModel: 'm' });
  t.same((await first.upsert(docs)).failed, []);
  await first.close();
  const written = sideRows(file);

  // As schema 8 left it: no side tables.
  const db = new Database(file);
  const sets = db
    .prepare(`SELECT substr(name, 1, length(name) - 5) FROM sqlite_schema WHERE type = 'table' AND name GLOB 's_*_docs'`)
    .pluck()
    .all() as string[];
  for (const s of sets) db.exec(`DROP TABLE "${s}_keys"; DROP TABLE "${s}_facts"`);
  db.prepare(`UPDATE meta SET value = '8' WHERE key = 'schema_version'`).run();
  db.close();

  const reopened = new EmbeddedProvider({ file, dimension: 4, embeddingModel: 'm' });
  t.teardown(() => reopened.close());
  t.equal((await reopened.stats()).total_documents, docs.length);
  t.same(sideRows(file), written, 'filled from the stored rows');
  const { totals } = await reopened.aggregate({ groupBy: ['supplier'], orderBy: 'value', limit: 10, metrics: 'all', other: true });
  t.equal(totals.documents, docs.length, 'and aggregated');
});
