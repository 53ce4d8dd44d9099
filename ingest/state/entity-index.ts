// The entity index: tables beside the document store (documents.db) that entity resolution reads
// instead of scanning documents. Written in the same transaction as the documents it describes
// (DocumentStore.save and correct), so a re-ingest or an update replaces a document's rows; built from
// the stored documents once when the tables are new, or ENTITY_INDEX_VERSION or the name-key folding
// (lib/names.ts NAME_KEY_VERSION) changes. Engine-independent.
import type { NormalizedDocument } from '../../index-mappings/document.js';
import { metadataOf } from '../../index-mappings/document.js';
import { normalizeAda, validAfm } from '../../lib/identifiers.js';
import { NAME_KEY_VERSION, nameKey } from '../../lib/names.js';
import type { Role } from '../../lib/entities.js';
import type { Sqlite } from '../../lib/sqlite.js';
import { AGGREGATE_TABLES, AGGREGATES_SCHEMA, AggregateWriter, relevanceIn, type EntityDoc, type KeyedParty, type KeyKind } from './entity-aggregates.js';

/** Bump when what is written changes (parties, columns): stores are rebuilt on open. */
// 2: parties read from the document's `parties`, not from its content's labelled lines.
// 3: aggregates per key (entity-aggregates.ts), matches kept in order.
export const ENTITY_INDEX_VERSION = 3;

/** What a store records it was built with: this index's version and the name-key folding's (names.ts). */
export const ENTITY_INDEX_BUILD = `${ENTITY_INDEX_VERSION}/names-${NAME_KEY_VERSION}`;

const META = 'CREATE TABLE IF NOT EXISTS entity_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)';
const INDEX_TABLES = ['entity_docs', 'entity_keys', 'entity_parties', 'entity_name_keys', 'entity_name_words'];
const SCHEMA = `
  -- What a match shows and what aggregates need, without reading the document.
  CREATE TABLE IF NOT EXISTS entity_docs (
    source_id    TEXT PRIMARY KEY,
    source       TEXT NOT NULL,
    published_at TEXT NOT NULL,
    category     TEXT NOT NULL,
    amount       REAL,
    currency     TEXT,
    record       TEXT NOT NULL
  ) WITHOUT ROWID;
  -- Lookup keys: kind afm (9 digits), ada (Greek letters), name (lib/names.ts nameKey); a key's
  -- documents in the order matches are paged in (entity-aggregates.ts relevanceIn, then newest).
  CREATE TABLE IF NOT EXISTS entity_keys (
    kind         TEXT NOT NULL,
    key          TEXT NOT NULL,
    source_id    TEXT NOT NULL,
    relevance    REAL NOT NULL,
    published_at TEXT NOT NULL,
    PRIMARY KEY (kind, key, source_id)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS entity_keys_by_doc ON entity_keys (source_id);
  CREATE INDEX IF NOT EXISTS entity_keys_in_order ON entity_keys (kind, key, relevance DESC, published_at DESC, source_id);
  -- The parties a document names, with their role when the source states it.
  CREATE TABLE IF NOT EXISTS entity_parties (
    source_id TEXT NOT NULL,
    role      TEXT,
    afm       TEXT,
    name      TEXT,
    name_key  TEXT
  );
  CREATE INDEX IF NOT EXISTS entity_parties_by_doc ON entity_parties (source_id);
  -- Distinct name keys, searchable by their words (a name query matches names holding all its words).
  CREATE TABLE IF NOT EXISTS entity_name_keys (key TEXT PRIMARY KEY) WITHOUT ROWID;
  CREATE VIRTUAL TABLE IF NOT EXISTS entity_name_words USING fts5 (key, tokenize = 'unicode61');
`;

export interface Party {
  role: Role | null;
  afm: string | null;
  name: string | null;
}

/**
 * The parties of a document: its `parties`, then the other names it carries, without a role. A buyer
 * or a supplier keeps its role; an issuer (the body a decision or record comes from) is on the buyer's
 * side, as the body an ΑΔΑ names; holders and others have none counterparties are counted by. A
 * document stored before parties were fields has none until it is ingested again.
 */
export function partiesOf(doc: NormalizedDocument): Party[] {
  const parties: Party[] = (doc.parties ?? []).map((p) => ({
    role: p.role === 'buyer' || p.role === 'issuer' ? 'buyer' : p.role === 'supplier' ? 'supplier' : null,
    afm: p.afm === null ? null : validAfm(p.afm),
    name: p.name,
  }));
  for (const name of doc.entities.names) {
    if (!parties.some((p) => p.name === name)) parties.push({ role: null, afm: null, name });
  }
  return parties;
}

/** A document as the entity index records it: its parties with their name keys, and its keys. */
function entityDocOf(doc: NormalizedDocument, keyOf: (name: string) => string): EntityDoc {
  const parties = partiesOf(doc).map((p) => ({ ...p, name_key: p.name === null ? null : keyOf(p.name) || null }));
  const keys = new Map<string, { kind: KeyKind; key: string }>();
  const add = (kind: KeyKind, key: string | null) => {
    if (key) keys.set(`${kind} ${key}`, { kind, key });
  };
  for (const afm of [...doc.entities.afm.map(validAfm), ...parties.map((p) => p.afm)]) add('afm', afm);
  for (const ada of doc.entities.ada) add('ada', normalizeAda(ada));
  for (const p of parties) add('name', p.name_key);
  return {
    source_id: doc.source_id,
    source: doc.source,
    published_at: doc.published_at,
    category: doc.doc_category,
    amount: doc.amount?.value ?? null,
    currency: doc.amount?.currency ?? null,
    parties,
    keys: sortedKeys([...keys.values()]),
  };
}

const sortedKeys = (keys: EntityDoc['keys']) => keys.sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

/**
 * Replaces the entity rows of these documents and moves the aggregates of their old and new keys (call
 * inside the transaction that stores them). A document stored again unchanged in everything the
 * index records costs its metadata record only.
 */
export function writeEntities(db: Sqlite, docs: NormalizedDocument[]): void {
  const storedDoc = db.prepare('SELECT source, published_at, category, amount, currency FROM entity_docs WHERE source_id = ?');
  const storedParties = db.prepare('SELECT role, afm, name, name_key FROM entity_parties WHERE source_id = ? ORDER BY rowid');
  const storedKeys = db.prepare('SELECT kind, key FROM entity_keys WHERE source_id = ?');
  const putRecord = db.prepare('UPDATE entity_docs SET record = ? WHERE source_id = ?');
  const drop = ['entity_docs', 'entity_keys', 'entity_parties'].map((t) => db.prepare(`DELETE FROM ${t} WHERE source_id = ?`));
  const putDoc = db.prepare('INSERT INTO entity_docs (source_id, source, published_at, category, amount, currency, record) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const putKey = db.prepare('INSERT INTO entity_keys (kind, key, source_id, relevance, published_at) VALUES (?, ?, ?, ?, ?)');
  const putParty = db.prepare('INSERT INTO entity_parties (source_id, role, afm, name, name_key) VALUES (?, ?, ?, ?, ?)');
  const newName = db.prepare('INSERT OR IGNORE INTO entity_name_keys (key) VALUES (?)');
  const nameWords = db.prepare('INSERT INTO entity_name_words (key) VALUES (?)');
  const aggregates = new AggregateWriter(db);
  // A page names the same bodies again and again (a municipality in most of its decisions).
  const names = new Map<string, string>();
  const keyOf = (name: string) => {
    let key = names.get(name);
    if (key === undefined) names.set(name, (key = nameKey(name)));
    return key;
  };
  for (const doc of docs) {
    const id = doc.source_id;
    const next = entityDocOf(doc, keyOf);
    const row = storedDoc.get(id) as Omit<EntityDoc, 'source_id' | 'parties' | 'keys'> | undefined;
    const before: EntityDoc | null = row
      ? {
          source_id: id,
          ...row,
          parties: storedParties.all(id) as KeyedParty[],
          keys: sortedKeys(storedKeys.all(id) as EntityDoc['keys']),
        }
      : null;
    const record = JSON.stringify(metadataOf(doc));
    if (before && JSON.stringify(before) === JSON.stringify(next)) {
      putRecord.run(record, id);
      continue;
    }
    if (before) aggregates.apply(before, -1);
    for (const d of drop) d.run(id);
    putDoc.run(id, next.source, next.published_at, next.category, next.amount, next.currency, record);
    for (const { kind, key } of next.keys) putKey.run(kind, key, id, relevanceIn(next, kind, key), next.published_at);
    for (const p of next.parties) {
      putParty.run(id, p.role, p.afm, p.name, p.name_key);
      if (p.name_key !== null && newName.run(p.name_key).changes > 0) nameWords.run(p.name_key);
    }
    aggregates.apply(next, 1);
    aggregates.revalue(before, next);
  }
}

/**
 * Creates the tables and, when they were built by another version of the index or of the name-key
 * folding (or never, over documents stored before the index existed), drops them and builds them
 * again from the stored documents in one transaction: an older data folder gets its aggregates so.
 */
export function ensureEntityIndex(db: Sqlite): void {
  db.exec(META);
  const version = db.prepare("SELECT value FROM entity_meta WHERE name = 'version'").pluck();
  if (version.get() === ENTITY_INDEX_BUILD) return;
  db.transaction(() => {
    // Another process may have built it while this one waited for the lock.
    if (version.get() === ENTITY_INDEX_BUILD) return;
    for (const t of [...INDEX_TABLES, ...AGGREGATE_TABLES]) db.exec(`DROP TABLE IF EXISTS ${t}`);
    db.exec(SCHEMA + AGGREGATES_SCHEMA);
    const page = db.prepare('SELECT source_id, doc FROM documents WHERE source_id > ? ORDER BY source_id LIMIT 500');
    for (let after = ''; ; ) {
      const rows = page.all(after) as { source_id: string; doc: string }[];
      if (rows.length === 0) break;
      writeEntities(
        db,
        rows.map((r) => JSON.parse(r.doc) as NormalizedDocument),
      );
      after = rows[rows.length - 1].source_id;
    }
    db.prepare("INSERT OR REPLACE INTO entity_meta (name, value) VALUES ('version', ?)").run(ENTITY_INDEX_BUILD);
  }).immediate();
}
