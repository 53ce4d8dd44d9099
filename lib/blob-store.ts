// Originals of documents, content-addressed by SHA-256, behind an interface an object store (S3, GCS)
// could implement.
//
// The local implementation keeps them in one SQLite file (PDI_DATA_DIR/blobs.db), not one file per blob:
// originals are small (a few KB of JSON or XML), and creating a file per blob cost 0.36–1 ms here (open +
// rename, plus mkdir for sharded folders) against ~20 µs for an insert, which capped the ingest pipeline
// (bench/ingest, docs/benchmarks-history.md "Ingest pipeline"). SQLite's own measurements favour
// in-database storage for blobs under ~100 KB as well.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { openSqlite, type Sqlite } from './sqlite.js';

export interface BlobStore {
  /**
   * Stores each item's bytes and returns their SHA-256 hex digests, in order; storing the same bytes
   * twice is a no-op. Takes a batch because the ingest pipeline stores a page at a time (one
   * transaction here; concurrent uploads for an object store).
   */
  put(items: Buffer[]): Promise<string[]>;
  /** The bytes, or null when no blob has that digest. */
  get(sha256: string): Promise<Buffer | null>;
  close(): void;
}

const DIGEST = /^[0-9a-f]{64}$/;

export class SqliteBlobStore implements BlobStore {
  private readonly db: Sqlite;
  private readonly insert;
  private readonly select;

  constructor(file: string) {
    this.db = openSqlite(file);
    this.db.exec('CREATE TABLE IF NOT EXISTS blobs (sha256 TEXT PRIMARY KEY, bytes BLOB NOT NULL)');
    this.insert = this.db.prepare('INSERT OR IGNORE INTO blobs (sha256, bytes) VALUES (?, ?)');
    this.select = this.db.prepare('SELECT bytes FROM blobs WHERE sha256 = ?').pluck();
  }

  static pathIn(dataDir: string): string {
    return path.join(dataDir, 'blobs.db');
  }

  async put(items: Buffer[]): Promise<string[]> {
    const digests = items.map((bytes) => createHash('sha256').update(bytes).digest('hex'));
    // One transaction per batch: a commit per blob cost ~5% of the whole ingest pipeline.
    this.db.transaction(() => items.forEach((bytes, i) => this.insert.run(digests[i], bytes)))();
    return digests;
  }

  async get(sha256: string): Promise<Buffer | null> {
    if (!DIGEST.test(sha256)) return null;
    return (this.select.get(sha256) as Buffer | undefined) ?? null;
  }

  close(): void {
    this.db.close();
  }
}
