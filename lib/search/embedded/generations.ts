// Which table set serves each source (the `generations` table, schema.ts): the serving sets, a new
// source's first set, the sets a rebuild stages and swaps in, and the dropping of what a rebuild retired
// or a crash left. Called inside the transaction its caller holds, but for pruneRetired.
import type { Statement } from 'better-sqlite3';
import { SOURCE_NAMES, type SourceName } from '../../../index-mappings/sources.js';
import type { Logger } from '../../logger.js';
import type { Sqlite } from '../../sqlite.js';
import type { IndexFile } from './index-file.js';
import { createTableSet, dropTableSet, existingTableSets, tableSetName, tableSetTextVersion } from './schema.js';
import { TableSet, type Tuning } from './table-set.js';
import { TEXT_VERSION } from './text.js';

export class Generations {
  private readonly sets = new Map<string, TableSet>();
  private servingStatement: Statement | null = null;

  constructor(
    private readonly file: IndexFile,
    private readonly tuning: Tuning,
    private readonly log?: Logger,
  ) {}

  /** The serving table sets, in source catalogue order. */
  serving(source?: SourceName): TableSet[] {
    this.servingStatement ??= this.file.open().prepare(`SELECT source, gen FROM generations WHERE state = 'serving'`);
    const rows = this.servingStatement.all() as { source: SourceName; gen: number }[];
    return rows
      .filter((r) => source === undefined || r.source === source)
      .sort((a, b) => SOURCE_NAMES.indexOf(a.source) - SOURCE_NAMES.indexOf(b.source))
      .map((r) => this.tableSet(r.source, r.gen));
  }

  private tableSet(source: SourceName, gen: number): TableSet {
    const name = tableSetName(source, gen);
    let set = this.sets.get(name);
    if (!set) {
      const db = this.file.open();
      set = new TableSet(db, name, source, gen, tableSetTextVersion(db, name), this.tuning, (msg, extra) => this.log?.warn({ ...extra }, msg));
      this.sets.set(name, set);
    }
    return set;
  }

  /** The first set of a source that has none, serving at once (the first write of it). */
  createServing(source: SourceName): TableSet {
    return this.create(source, 'serving');
  }

  /**
   * A new set of `source` for a rebuild to load, not served until swapIn. One rebuild at a time (pdi
   * reindex's lock guarantees it), so a staging set left by a crashed run is stale and goes.
   */
  stage(source: SourceName): TableSet {
    const stale = this.file.open().prepare(`SELECT gen FROM generations WHERE source = ? AND state = 'staging'`).pluck().all(source) as number[];
    for (const gen of stale) this.drop(source, gen);
    return this.create(source, 'staging');
  }

  private create(source: SourceName, state: 'serving' | 'staging'): TableSet {
    const db = this.file.open();
    const gen = db.prepare(`SELECT coalesce(max(gen), 0) + 1 FROM generations WHERE source = ?`).pluck().get(source) as number;
    createTableSet(db, tableSetName(source, gen), TEXT_VERSION);
    db.prepare(`INSERT INTO generations (source, gen, state, created_at) VALUES (?, ?, ?, ?)`).run(source, gen, state, new Date().toISOString());
    return this.tableSet(source, gen);
  }

  /** A staged set serves its source from now on; the set that served it is retired (pruneRetired drops it). */
  swapIn(set: TableSet): void {
    const db = this.file.open();
    db.prepare(`UPDATE generations SET state = 'retired' WHERE source = ? AND state = 'serving'`).run(set.source);
    db.prepare(`UPDATE generations SET state = 'serving' WHERE source = ? AND gen = ?`).run(set.source, set.gen);
  }

  drop(source: string, gen: number): void {
    const name = tableSetName(source, gen);
    dropTableSet(this.file.open(), name);
    this.file.open().prepare('DELETE FROM generations WHERE source = ? AND gen = ?').run(source, gen);
    this.sets.delete(name);
  }

  /** Drops what pruneRetired would, when there is any (read only otherwise): for a file just opened. */
  pruneIfLeftovers(db: Sqlite): void {
    if (retired(db).length > 0 || orphanTableSets(db).length > 0) this.pruneRetired();
  }

  /** Drops generations a rebuild retired, and orphan table sets, in a write transaction of its own. */
  pruneRetired(): void {
    try {
      this.file.write(() => {
        const db = this.file.open();
        for (const r of retired(db)) this.drop(r.source, r.gen);
        for (const name of orphanTableSets(db)) dropTableSet(db, name);
      });
    } catch (err) {
      this.log?.warn({ err }, 'could not prune retired generations; will retry on the next rebuild or open');
    }
  }

  /** Forgets the sets and statements of a connection that is closing. */
  forget(): void {
    this.sets.clear();
    this.servingStatement = null;
  }
}

function retired(db: Sqlite): { source: string; gen: number }[] {
  return db.prepare(`SELECT source, gen FROM generations WHERE state = 'retired'`).all() as { source: string; gen: number }[];
}

/** Table sets no generation row knows (a crash mid-create). */
function orphanTableSets(db: Sqlite): string[] {
  const known = new Set(
    (db.prepare('SELECT source, gen FROM generations').all() as { source: string; gen: number }[]).map((r) => tableSetName(r.source, r.gen)),
  );
  return existingTableSets(db).filter((name) => !known.has(name));
}
