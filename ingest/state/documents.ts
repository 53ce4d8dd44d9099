// The normalized records and their embeddings (PDI_DATA_DIR/documents.db). The search index is a
// projection of this store: `pdi reindex` rebuilds it from here, without refetching or re-embedding.
// The entity index (entity-index.ts) and the CPV label table (cpv-labels.ts) live here too, written in
// the transactions that store records.
import path from 'node:path';
import type { FeedEntry, NormalizedDocument, OriginalRef } from '../../index-mappings/document.js';
import { openSqlite, type Sqlite } from '../../lib/sqlite.js';
import type { SourceName } from '../../index-mappings/sources.js';
import type { CpvLabel } from '../sources/ted/cpv-labels.js';
import { CPV_LABELS_SCHEMA, cpvLabelTable, learnedLabelReader, relearnCpvLabels, writeCpvVotes } from './cpv-labels.js';
import { withCpvLabels } from '../stages/cpv-labels.js';
import { ensureEntityIndex, writeEntities } from './entity-index.js';

export interface StoredRecord {
  doc: NormalizedDocument;
  content_hash: string;
  original: OriginalRef | null;
  indexed_at: string;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS documents (
    source_id     TEXT PRIMARY KEY,
    source        TEXT NOT NULL,
    content_hash  TEXT NOT NULL,
    doc           TEXT NOT NULL,
    original_sha  TEXT,
    original_type TEXT,
    indexed_at    TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS documents_by_source ON documents (source, source_id);
  CREATE TABLE IF NOT EXISTS embeddings (
    model        TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    vector       BLOB NOT NULL,
    PRIMARY KEY (model, content_hash)
  ) WITHOUT ROWID;
  -- Every document as it is first stored or changed, in commit order (AUTOINCREMENT: a seq is never
  -- reused). The API's watcher reads it after its watermark, whichever process ingested.
  CREATE TABLE IF NOT EXISTS feed (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    source_id TEXT NOT NULL,
    kind      TEXT NOT NULL CHECK (kind IN ('new', 'updated')),
    stored_at TEXT NOT NULL
  );
  -- Documents the index refused after retries: kept and shown by 'pdi status', never dropped silently.
  CREATE TABLE IF NOT EXISTS rejected (
    source_id TEXT PRIMARY KEY,
    source    TEXT NOT NULL,
    error     TEXT NOT NULL,
    at        TEXT NOT NULL
  );
`;

export class DocumentStore {
  readonly db: Sqlite;
  private readonly hashOf;
  private readonly vectorOf;
  /** A CPV code's label learned from TED, as the label table holds it now. */
  readonly learnedCpvLabel: (code: string) => CpvLabel | undefined;

  constructor(file: string) {
    this.db = openSqlite(file);
    this.db.exec(SCHEMA);
    this.db.exec(CPV_LABELS_SCHEMA);
    ensureEntityIndex(this.db);
    this.learnedCpvLabel = learnedLabelReader(this.db);
    this.hashOf = this.db.prepare('SELECT content_hash FROM documents WHERE source_id = ?').pluck();
    this.vectorOf = this.db.prepare('SELECT vector FROM embeddings WHERE model = ? AND content_hash = ?').pluck();
  }

  static pathIn(dataDir: string): string {
    return path.join(dataDir, 'documents.db');
  }

  /** The stored content hash of a document, or null when it was never stored. */
  hash(sourceId: string): string | null {
    return (this.hashOf.get(sourceId) as string | undefined) ?? null;
  }

  /** The length of the vectors cached under `model`, or null when none is. */
  cachedDimension(model: string): number | null {
    const bytes = this.db.prepare('SELECT length(vector) FROM embeddings WHERE model = ? LIMIT 1').pluck().get(model) as number | undefined;
    return bytes === undefined ? null : bytes / Float32Array.BYTES_PER_ELEMENT;
  }

  vector(model: string, contentHash: string): number[] | null {
    const blob = this.vectorOf.get(model, contentHash) as Buffer | undefined;
    return blob ? Array.from(new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4)) : null;
  }

  saveVectors(model: string, items: { contentHash: string; vector: number[] }[]): void {
    const put = this.db.prepare('INSERT OR IGNORE INTO embeddings (model, content_hash, vector) VALUES (?, ?, ?)');
    this.db.transaction(() => {
      for (const it of items) put.run(model, it.contentHash, Buffer.from(new Float32Array(it.vector).buffer));
    })();
  }

  save(records: StoredRecord[]): void {
    const put = this.db.prepare(
      `INSERT INTO documents (source_id, source, content_hash, doc, original_sha, original_type, indexed_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (source_id) DO UPDATE SET source = excluded.source, content_hash = excluded.content_hash,
         doc = excluded.doc, original_sha = excluded.original_sha, original_type = excluded.original_type,
         indexed_at = excluded.indexed_at`,
    );
    const unreject = this.db.prepare('DELETE FROM rejected WHERE source_id = ?');
    const append = this.db.prepare('INSERT INTO feed (source_id, kind, stored_at) VALUES (?, ?, ?)');
    const storedAt = new Date().toISOString();
    this.db.transaction(() => {
      for (const r of records) {
        append.run(r.doc.source_id, this.hashOf.get(r.doc.source_id) === undefined ? 'new' : 'updated', storedAt);
        put.run(
          r.doc.source_id,
          r.doc.source,
          r.content_hash,
          JSON.stringify(r.doc),
          r.original?.sha256 ?? null,
          r.original?.content_type ?? null,
          r.indexed_at,
        );
        unreject.run(r.doc.source_id);
      }
      writeEntities(
        this.db,
        records.map((r) => r.doc),
      );
      writeCpvVotes(
        this.db,
        records.map((r) => r.doc),
      );
    })();
  }

  /**
   * The feed after `seq`, in order, at most `limit` entries (a document since removed is left out), each
   * document with the CPV labels its indexing gives it (withCpvLabels), so that alerts match what search finds.
   */
  feedAfter(seq: number, limit: number): FeedEntry[] {
    const rows = this.db
      .prepare(
        `SELECT f.seq, f.kind, f.stored_at, d.doc FROM feed f JOIN documents d ON d.source_id = f.source_id
        WHERE f.seq > ? ORDER BY f.seq LIMIT ?`,
      )
      .all(seq, limit) as { seq: number; kind: FeedEntry['kind']; stored_at: string; doc: string }[];
    return rows.map((r) => ({
      seq: r.seq,
      kind: r.kind,
      stored_at: r.stored_at,
      doc: withCpvLabels(JSON.parse(r.doc) as NormalizedDocument, this.learnedCpvLabel),
    }));
  }

  /** The feed's last seq, 0 when empty. */
  lastSeq(): number {
    return (this.db.prepare('SELECT max(seq) FROM feed').pluck().get() as number | null) ?? 0;
  }

  /** Replaces stored records' text and hash, keeping when and from what original they were indexed. */
  correct(records: StoredRecord[]): void {
    if (records.length === 0) return;
    const put = this.db.prepare('UPDATE documents SET doc = ?, content_hash = ? WHERE source_id = ?');
    this.db.transaction(() => {
      for (const r of records) put.run(JSON.stringify(r.doc), r.content_hash, r.doc.source_id);
      writeEntities(
        this.db,
        records.map((r) => r.doc),
      );
      writeCpvVotes(
        this.db,
        records.map((r) => r.doc),
      );
    })();
  }

  /** Each CPV code's learned label (the label table). */
  cpvLabels(): Map<string, CpvLabel> {
    return cpvLabelTable(this.db);
  }

  /** Counts the CPV label votes again from the stored TED notices, in one transaction (`pdi reindex`). */
  relearnCpvLabels(): void {
    this.db.transaction(() => relearnCpvLabels(this.db, this.batches('ted')))();
  }

  reject(items: { source_id: string; source: SourceName; error: string }[]): void {
    const put = this.db.prepare('INSERT OR REPLACE INTO rejected (source_id, source, error, at) VALUES (?, ?, ?, ?)');
    const at = new Date().toISOString();
    this.db.transaction(() => {
      for (const it of items) put.run(it.source_id, it.source, it.error, at);
    })();
  }

  rejectedCount(source: SourceName): number {
    return this.db.prepare('SELECT count(*) FROM rejected WHERE source = ?').pluck().get(source) as number;
  }

  /** How many of a source's records have no vector cached under `model` (embedAll's cache key). */
  uncached(source: SourceName, model: string): number {
    return this.db
      .prepare(
        `SELECT count(*) FROM documents d WHERE d.source = ?
          AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ? AND e.content_hash = d.content_hash)`,
      )
      .pluck()
      .get(source, model) as number;
  }

  count(source: SourceName): number {
    return this.db.prepare('SELECT count(*) FROM documents WHERE source = ?').pluck().get(source) as number;
  }

  /** A source's records in source_id order, `size` at a time (keyset paging: constant memory). */
  *batches(source: SourceName, size = 500): Generator<StoredRecord[]> {
    const page = this.db.prepare(
      `SELECT doc, content_hash, original_sha, original_type, indexed_at FROM documents
        WHERE source = ? AND source_id > ? ORDER BY source_id LIMIT ?`,
    );
    let after = '';
    for (;;) {
      const rows = page.all(source, after, size) as {
        doc: string;
        content_hash: string;
        original_sha: string | null;
        original_type: string | null;
        indexed_at: string;
      }[];
      if (rows.length === 0) return;
      const batch = rows.map((r) => ({
        doc: JSON.parse(r.doc) as NormalizedDocument,
        content_hash: r.content_hash,
        original: r.original_sha ? { sha256: r.original_sha, content_type: r.original_type ?? 'application/octet-stream' } : null,
        indexed_at: r.indexed_at,
      }));
      after = batch[batch.length - 1].doc.source_id;
      yield batch;
    }
  }

  close(): void {
    this.db.close();
  }
}
