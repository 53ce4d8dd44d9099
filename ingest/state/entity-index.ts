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

/** Bump when what is written changes (parties, columns): stores are rebuilt on open. */
// 2: parties read from the document's `parties`, not from its content's labelled lines.
export const ENTITY_INDEX_VERSION = 2;

/** What a store records it was built with: this index's version and the name-key folding's (names.ts). */
export const ENTITY_INDEX_BUILD = `${ENTITY_INDEX_VERSION}/names-${NAME_KEY_VERSION}`;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS entity_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
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
  -- Lookup keys: kind afm (9 digits), ada (Greek letters), name (lib/names.ts nameKey).
  CREATE TABLE IF NOT EXISTS entity_keys (
    kind      TEXT NOT NULL,
    key       TEXT NOT NULL,
    source_id TEXT NOT NULL,
    PRIMARY KEY (kind, key, source_id)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS entity_keys_by_doc ON entity_keys (source_id);
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

/** Replaces the entity rows of these documents (call inside the transaction that stores them). */
export function writeEntities(db: Sqlite, docs: NormalizedDocument[]): void {
  const drop = ['entity_docs', 'entity_keys', 'entity_parties'].map((t) => db.prepare(`DELETE FROM ${t} WHERE source_id = ?`));
  const putDoc = db.prepare('INSERT INTO entity_docs (source_id, source, published_at, category, amount, currency, record) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const putKey = db.prepare('INSERT OR IGNORE INTO entity_keys (kind, key, source_id) VALUES (?, ?, ?)');
  const putParty = db.prepare('INSERT INTO entity_parties (source_id, role, afm, name, name_key) VALUES (?, ?, ?, ?, ?)');
  const newName = db.prepare('INSERT OR IGNORE INTO entity_name_keys (key) VALUES (?)');
  const nameWords = db.prepare('INSERT INTO entity_name_words (key) VALUES (?)');
  // A page names the same bodies again and again (a municipality in most of its decisions).
  const keys = new Map<string, string>();
  const keyOf = (name: string) => {
    let key = keys.get(name);
    if (key === undefined) keys.set(name, (key = nameKey(name)));
    return key;
  };
  for (const doc of docs) {
    const id = doc.source_id;
    for (const d of drop) d.run(id);
    putDoc.run(id, doc.source, doc.published_at, doc.doc_category, doc.amount?.value ?? null, doc.amount?.currency ?? null, JSON.stringify(metadataOf(doc)));
    const parties = partiesOf(doc);
    for (const afm of new Set([...doc.entities.afm.map(validAfm), ...parties.map((p) => p.afm)])) if (afm) putKey.run('afm', afm, id);
    for (const ada of doc.entities.ada) {
      const a = normalizeAda(ada);
      if (a) putKey.run('ada', a, id);
    }
    for (const p of parties) {
      const key = p.name === null ? '' : keyOf(p.name);
      putParty.run(id, p.role, p.afm, p.name, key || null);
      if (key === '') continue;
      putKey.run('name', key, id);
      if (newName.run(key).changes > 0) nameWords.run(key);
    }
  }
}

/**
 * Creates the tables and, when they were built by another version of the index or of the name-key
 * folding (or never, over documents stored before the index existed), rebuilds them from the stored
 * documents in one transaction.
 */
export function ensureEntityIndex(db: Sqlite): void {
  db.exec(SCHEMA);
  const version = db.prepare("SELECT value FROM entity_meta WHERE name = 'version'").pluck();
  if (version.get() === ENTITY_INDEX_BUILD) return;
  db.transaction(() => {
    // Another process may have built it while this one waited for the lock.
    if (version.get() === ENTITY_INDEX_BUILD) return;
    for (const t of ['entity_docs', 'entity_keys', 'entity_parties', 'entity_name_keys', 'entity_name_words']) db.exec(`DELETE FROM ${t}`);
    const page = db.prepare('SELECT source_id, doc FROM documents WHERE source_id > ? ORDER BY source_id LIMIT 500');
    for (let after = '';;) {
      const rows = page.all(after) as { source_id: string; doc: string }[];
      if (rows.length === 0) break;
      writeEntities(db, rows.map((r) => JSON.parse(r.doc) as NormalizedDocument));
      after = rows[rows.length - 1].source_id;
    }
    db.prepare("INSERT OR REPLACE INTO entity_meta (name, value) VALUES ('version', ?)").run(ENTITY_INDEX_BUILD);
  }).immediate();
}
