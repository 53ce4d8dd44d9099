// Entity resolution off the event loop. better-sqlite3 is synchronous: a lookup is small, but a report's
// page of 5,000 matches (their records read and parsed) on the main thread would hold every other
// request of the API behind it. Entities are resolved on the reader threads that serve the embedded engine's
// searches (read-pool.ts): one pool, one queue fair between keys, the same abort and deadline as a
// search. With Elasticsearch (no reader threads of the engine) the pool is one of entities only.
import type { Logger } from './logger.js';
import type { Sqlite } from './sqlite.js';
import { EntityIndex, type EntityAggregate, type EntityPage, type EntityQuery, type NamedKey } from './entities.js';
import { BucketLabels, type BucketLabel, type LabelRequest } from './bucket-labels.js';
import { EmbeddedProvider } from './search/embedded.js';
import { ReadPool } from './search/embedded/read-pool.js';
import type { ReadOptions, SearchProvider } from './search/provider.js';

/** Resolves entities; ReadOptions as a search takes them (the caller's signal, the key's turn). */
export interface EntityReads {
  resolve(query: EntityQuery, page?: EntityPage, opts?: ReadOptions): Promise<EntityAggregate>;
  /** The identifiers a free text names (EntityIndex.namedIn), each with its newest `limit` documents. */
  named(text: string, limit: number, opts?: ReadOptions): Promise<NamedKey[]>;
  /** The labels of an aggregate's bucket keys (bucket-labels.ts), read from the same database. */
  labels(req: LabelRequest, opts?: ReadOptions): Promise<BucketLabel[]>;
}

export interface EntityReadersOptions {
  /** The engine, whose reader threads resolve entities too when they open this database. */
  search?: SearchProvider;
  /** Threads of a pool of entities only (no engine pool to share). */
  size?: number;
  log?: Logger;
}

/**
 * `resolve` runs EntityIndex.resolve on a reader thread. A database without a file (`:memory:`, tests
 * and benches) is resolved on this thread.
 */
export class EntityReaders implements EntityReads {
  private readonly pool: ReadPool | null;
  /** A pool of our own (closed with us), rather than the engine's. */
  private readonly owned: boolean;
  private readonly inThread: { entities: EntityIndex; labels: BucketLabels } | null;

  constructor(db: Sqlite, opts: EntityReadersOptions = {}) {
    this.inThread = db.memory ? { entities: new EntityIndex(db), labels: new BucketLabels(db) } : null;
    const shared = opts.search instanceof EmbeddedProvider ? opts.search.readPool : null;
    if (this.inThread) {
      this.pool = null;
      this.owned = false;
    } else if (shared && shared.entities === db.name) {
      this.pool = shared;
      this.owned = false;
    } else {
      const reader = { index: null, entities: db.name, logLevel: opts.log?.level ?? null };
      this.pool = new ReadPool({ reader, size: opts.size ?? 2, onCounters: () => {}, log: opts.log });
      this.owned = true;
    }
  }

  resolve(query: EntityQuery, page: EntityPage = { limit: 20, offset: 0 }, opts: ReadOptions = {}): Promise<EntityAggregate> {
    if (this.inThread) return Promise.resolve().then(() => this.inThread!.entities.resolve(query, page));
    return this.pool!.call<EntityAggregate>('entity', { query, page }, opts);
  }

  named(text: string, limit: number, opts: ReadOptions = {}): Promise<NamedKey[]> {
    if (this.inThread) return Promise.resolve().then(() => this.inThread!.entities.namedIn(text, limit));
    return this.pool!.call<NamedKey[]>('named', { text, limit }, opts);
  }

  labels(req: LabelRequest, opts: ReadOptions = {}): Promise<BucketLabel[]> {
    if (this.inThread) return Promise.resolve().then(() => this.inThread!.labels.labels(req));
    return this.pool!.call<BucketLabel[]>('labels', req, opts);
  }

  async close(): Promise<void> {
    if (this.owned) await this.pool!.close();
  }
}
