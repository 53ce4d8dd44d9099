// The embedded index's SQLite file: opening it (the settings `meta` records checked, the global tables
// made), its read and write transactions, and the errors of a file built otherwise or damaged.
import fs from 'node:fs';
import * as sqliteVec from 'sqlite-vec';
import { EngineUnavailableError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { Database, openSqlite, type Sqlite } from '../../sqlite.js';
import type { EmbeddingIdentity } from '../provider.js';
import { SCHEMA_VERSION, addDocumentColumns, addSideTables, createGlobalTables, dropTableSet, existingTableSets } from './schema.js';
import { TEXT_VERSION } from './text.js';

/** The index was built with another embedding model, dimension or text version: it must be rebuilt. */
export class EmbeddedIndexMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedIndexMismatchError';
  }
}

/** SQLite's answers for a file that is not (or no longer) a sound database. */
const DAMAGED = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB']);

/** The index file is no sound database: it must be rebuilt, which loses nothing (documents.db holds all). */
export class EmbeddedIndexDamagedError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(
      `The embedded index ${file} is damaged (${reason}). It holds nothing that is not in documents.db: ` +
        'stop the server and run `pdi reindex`, which moves it aside and rebuilds it.',
    );
    this.name = 'EmbeddedIndexDamagedError';
  }
}

function damaged(err: unknown): boolean {
  return DAMAGED.has((err as { code?: string }).code ?? '');
}

export interface IndexFileOptions {
  /** SQLite file, or ':memory:'. */
  file: string;
  dimension: number;
  embeddingModel: string;
  log?: Logger;
  /** Called once the file is open, before any other use of it (generations.ts: what a crash left is dropped). */
  opened?: (db: Sqlite) => void;
}

export class IndexFile {
  /** The model the index records; a rebuild for another one changes it (rebuild.ts). */
  embeddingModel: string;
  private db: Sqlite | null = null;
  /** Writes committed on this connection, which SQLite's data_version does not count. */
  private writes = 0;
  private damageLogged = false;

  constructor(private readonly opts: IndexFileOptions) {
    this.embeddingModel = opts.embeddingModel;
  }

  get file(): string {
    return this.opts.file;
  }

  /** The connection, opened on first use. */
  open(): Sqlite {
    if (this.db) return this.db;
    const { file } = this.opts;
    let db: Sqlite | null = null;
    try {
      db = openSqlite(file);
      sqliteVec.load(db);
      db.pragma('cache_size = -131072'); // 128 MiB
      db.pragma('temp_store = MEMORY');
      // Set-up writes only when needed: a connection that only has to read (a reader thread, the API
      // beside a reindex) must not wait for the write lock held by another process's long transaction.
      const opened = db;
      if (!this.metaMatches(opened)) {
        opened
          .transaction(() => {
            createGlobalTables(opened);
            this.checkMeta(opened);
          })
          .immediate();
      }
      this.db = opened;
      this.opts.opened?.(opened);
      return opened;
    } catch (err) {
      this.db = null;
      db?.close();
      throw damaged(err) ? new EmbeddedIndexDamagedError(file, (err as Error).message) : err;
    }
  }

  /** A read transaction; none for a caller that has gone away (ReadOptions.signal). */
  read<T>(fn: () => T, signal?: AbortSignal): T {
    signal?.throwIfAborted();
    return this.guard(() => this.open().transaction(fn).deferred());
  }

  write<T>(fn: () => T): T {
    try {
      return this.guard(() => this.open().transaction(fn).immediate());
    } finally {
      this.writes += 1;
    }
  }

  /**
   * What the index looks like to this connection's read transaction: SQLite's data_version moves with
   * every commit of another connection (it is read when the transaction takes its snapshot), the
   * write count with this one's.
   */
  version(): string {
    return `${this.open().pragma('data_version', { simple: true }) as number}:${this.writes}`;
  }

  /**
   * SQLite's quick_check of the whole file. Opening reads the schema alone, so damage in the pages of a
   * source's postings or vectors is met only by a read of them: `pdi reindex` of every source checks
   * first, rather than write a new generation into a damaged file. Throws EmbeddedIndexDamagedError.
   */
  checkStorage(): void {
    let result: unknown;
    try {
      result = this.open().pragma('quick_check(1)', { simple: true });
    } catch (err) {
      throw damaged(err) ? new EmbeddedIndexDamagedError(this.opts.file, (err as Error).message) : err;
    }
    if (result !== 'ok') throw new EmbeddedIndexDamagedError(this.opts.file, String(result).replace(/\s+/g, ' '));
  }

  /** The embedder the file records when it holds documents, read without opening it for writing (no set-up, no check). */
  recordedEmbedding(): EmbeddingIdentity | null {
    if (this.opts.file === ':memory:' || !fs.existsSync(this.opts.file)) return null;
    const db = new Database(this.opts.file, { readonly: true, fileMustExist: true });
    try {
      const tables = db.prepare(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('meta', 'generations')`).pluck().get();
      if (tables !== 2) return null;
      const documents = db.prepare(`SELECT coalesce(sum(documents), 0) FROM generations`).pluck().get() as number;
      const meta = storedMeta(db);
      return documents > 0 && meta.embedding_model ? { model: meta.embedding_model, dimension: Number(meta.dimension) } : null;
    } finally {
      db.close();
    }
  }

  close(): void {
    this.db?.close();
    this.db = null;
  }

  private wantedMeta(): Record<string, string> {
    return {
      schema_version: SCHEMA_VERSION,
      text_version: String(TEXT_VERSION),
      embedding_model: this.embeddingModel,
      dimension: String(this.opts.dimension),
    };
  }

  /**
   * The settings whose recorded value this process cannot work with. An older text version is not one:
   * each table set keeps the version it was written with (docText reproduces every version).
   */
  private differingMeta(have: Record<string, string>): string[] {
    const want = this.wantedMeta();
    return Object.keys(want).filter((key) => {
      if (key === 'text_version') return !(Number(have[key]) <= TEXT_VERSION);
      // Schema 2 had every set's vectors in layout 1, which this build still reads (vectors.ts).
      if (key === 'schema_version') return !(Number(have[key]) >= 2 && Number(have[key]) <= Number(SCHEMA_VERSION));
      return have[key] !== want[key];
    });
  }

  /** Whether the global tables exist and record exactly this process's settings (read only). */
  private metaMatches(db: Sqlite): boolean {
    const exists = db.prepare(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('meta', 'generations')`).pluck().get() === 2;
    if (!exists) return false;
    const have = storedMeta(db);
    return Object.entries(this.wantedMeta()).every(([key, value]) => have[key] === value);
  }

  /**
   * Model, dimension and schema version must match the index, and its text version be one this build
   * knows, unless it holds no documents. Then the index records this build's text version, so that an
   * older build, which cannot write the newer sets, refuses it.
   */
  private checkMeta(db: Sqlite): void {
    const want = this.wantedMeta();
    const have = storedMeta(db);
    const differs = this.differingMeta(have);
    if (Object.keys(have).length && differs.length) {
      const documents = db.prepare(`SELECT coalesce(sum(documents), 0) FROM generations`).pluck().get() as number;
      if (documents > 0) {
        throw new EmbeddedIndexMismatchError(
          `The embedded index ${this.opts.file} was built with ${differs.map((k) => `${k}=${have[k]}`).join(', ')}; ` +
            `this process uses ${differs.map((k) => `${k}=${want[k]}`).join(', ')}. Reindex required: ` +
            'remove the index file (or run `pdi reindex` against a new PDI_DATA_DIR) and load the sources again.',
        );
      }
      // An empty index simply adopts the new settings.
      for (const name of existingTableSets(db)) dropTableSet(db, name);
      db.prepare('DELETE FROM generations').run();
    }
    addDocumentColumns(db);
    addSideTables(db);
    const put = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
    for (const [key, value] of Object.entries(want)) put.run(key, value);
  }

  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
        throw new EngineUnavailableError('The embedded index is locked by another writer; try again shortly');
      }
      if (err instanceof EmbeddedIndexDamagedError || damaged(err)) {
        // Said once: every call that meets a damaged page fails the same way. Clients get a 503.
        const why = err instanceof EmbeddedIndexDamagedError ? err : new EmbeddedIndexDamagedError(this.opts.file, (err as Error).message);
        if (!this.damageLogged) this.opts.log?.error({ file: this.opts.file }, why.message);
        this.damageLogged = true;
        // Clients get the message alone; the operator (pdi status, a failed run) also the damage.
        throw new EngineUnavailableError(undefined, why.message);
      }
      throw err;
    }
  }
}

function storedMeta(db: Sqlite): Record<string, string> {
  const rows = db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[];
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}
