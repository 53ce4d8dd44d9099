// Entity aggregates kept at write time: for every entity key (an ΑΦΜ, an ΑΔΑ, a name key) its documents
// per source, its contracts and their value per year, the names and ΑΦΜs it goes by and its
// counterparties. A document's share is added when it is stored and taken away when it changes, in the
// transaction that writes it (entity-index.ts), so a lookup (lib/entities.ts) reads them and never
// aggregates the entity's documents.
import { CONTRACT_CATEGORIES, countedContractValues, toCents } from '../../lib/contract-value.js';
import type { Role } from '../../lib/entities.js';
import type { Sqlite } from '../../lib/sqlite.js';

export type KeyKind = 'afm' | 'ada' | 'name';

export interface KeyedParty {
  role: Role | null;
  afm: string | null;
  name: string | null;
  /** lib/names.ts nameKey of the name, null without one. */
  name_key: string | null;
}

/** What the entity index holds of a document: all its share of the aggregates depends on. */
export interface EntityDoc {
  source_id: string;
  source: string;
  published_at: string;
  category: string;
  amount: number | null;
  currency: string | null;
  parties: KeyedParty[];
  /** Its keys, sorted by kind then key. */
  keys: { kind: KeyKind; key: string }[];
}

export const AGGREGATE_TABLES = [
  'entity_counts',
  'entity_years',
  'entity_identity',
  'entity_counterparties',
  'entity_counterparty_names',
  'entity_values',
  'entity_value_adas',
];

export const AGGREGATES_SCHEMA = `
  -- Documents per source of a key.
  CREATE TABLE IF NOT EXISTS entity_counts (
    kind TEXT NOT NULL, key TEXT NOT NULL, source TEXT NOT NULL, documents INTEGER NOT NULL,
    PRIMARY KEY (kind, key, source)
  ) WITHOUT ROWID;
  -- Awards and contracts per year of publication, and the contract value (in cents) they count for.
  CREATE TABLE IF NOT EXISTS entity_years (
    kind TEXT NOT NULL, key TEXT NOT NULL, year INTEGER NOT NULL, contracts INTEGER NOT NULL, value INTEGER NOT NULL,
    PRIMARY KEY (kind, key, year)
  ) WITHOUT ROWID;
  -- How often the parties that are the entity go by a name (field 'name') or an ΑΦΜ (field 'afm').
  CREATE TABLE IF NOT EXISTS entity_identity (
    kind TEXT NOT NULL, key TEXT NOT NULL, field TEXT NOT NULL, value TEXT NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (kind, key, field, value)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS entity_identity_by_n ON entity_identity (kind, key, field, n DESC, value);
  -- Counterparties (an ΑΦΜ, or 'name:' and a name key) by role, the documents naming both, the name
  -- they go by most often.
  CREATE TABLE IF NOT EXISTS entity_counterparties (
    kind TEXT NOT NULL, key TEXT NOT NULL, party TEXT NOT NULL, role TEXT NOT NULL, documents INTEGER NOT NULL, name TEXT,
    PRIMARY KEY (kind, key, party, role)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS entity_counterparties_by_documents ON entity_counterparties (kind, key, documents DESC, name, party, role);
  CREATE TABLE IF NOT EXISTS entity_counterparty_names (
    kind TEXT NOT NULL, key TEXT NOT NULL, party TEXT NOT NULL, role TEXT NOT NULL, name TEXT NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (kind, key, party, role, name)
  ) WITHOUT ROWID;
  -- A key's valued contracts (lib/contract-value.ts): amount, ΑΔΑs, and the cents each counts for.
  CREATE TABLE IF NOT EXISTS entity_values (
    kind TEXT NOT NULL, key TEXT NOT NULL, source_id TEXT NOT NULL, amount REAL NOT NULL, adas TEXT NOT NULL,
    year INTEGER NOT NULL, counted INTEGER NOT NULL,
    PRIMARY KEY (kind, key, source_id)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS entity_value_adas (
    kind TEXT NOT NULL, key TEXT NOT NULL, ada TEXT NOT NULL, source_id TEXT NOT NULL,
    PRIMARY KEY (kind, key, ada, source_id)
  ) WITHOUT ROWID;
`;

/** A document's relevance in a key: 1 where it is the entity's own (a party, the decision itself), else 0.8. */
export function relevanceIn(doc: EntityDoc, kind: KeyKind, key: string): number {
  if (kind === 'afm') return doc.parties.some((p) => p.afm === key) ? 1 : 0.8;
  if (kind === 'ada') return doc.source_id === `diavgeia:${key}` ? 1 : 0.8;
  return 1;
}

/** The parties of a document that are the entity of a key (none for an ΑΔΑ: a decision is no party). */
export function selfIn(doc: EntityDoc, kind: KeyKind, key: string): KeyedParty[] {
  if (kind === 'afm') return doc.parties.filter((p) => p.afm === key);
  if (kind === 'name') return doc.parties.filter((p) => p.name_key === key);
  return [];
}

/**
 * The counterparties a document gives the entity: its buyers where the entity supplies, its suppliers
 * where it buys; once per party and role, with the name the first such party has.
 */
export function counterpartiesIn(doc: EntityDoc, self: KeyedParty[]): { party: string; role: Role; name: string | null }[] {
  const roles = new Set(self.map((p) => p.role));
  const out = new Map<string, { party: string; role: Role; name: string | null }>();
  for (const p of doc.parties) {
    if (p.role === null || self.includes(p) || !roles.has(p.role === 'buyer' ? 'supplier' : 'buyer')) continue;
    const party = p.afm ?? (p.name_key === null ? null : `name:${p.name_key}`);
    if (party === null || out.has(`${party} ${p.role}`)) continue;
    out.set(`${party} ${p.role}`, { party, role: p.role, name: p.name });
  }
  return [...out.values()];
}

/** Whether a document's amount is contract value (lib/contract-value.ts). */
const valued = (d: EntityDoc) => CONTRACT_CATEGORIES.has(d.category) && d.amount !== null && d.amount > 0 && d.currency === 'EUR';
const adasOf = (d: EntityDoc) => d.keys.filter((k) => k.kind === 'ada').map((k) => k.key);
const yearOf = (d: EntityDoc) => Number(d.published_at.slice(0, 4));

interface ValueRow {
  source_id: string;
  amount: number;
  adas: string;
  year: number;
  counted: number;
}

/** Moves the aggregates of a document's keys; its statements prepared once per write. */
export class AggregateWriter {
  private readonly s;

  constructor(db: Sqlite) {
    const upsert = (table: string, keys: string[], col: string, extra = '') =>
      db.prepare(
        `INSERT INTO ${table} (${[...keys, col].join(', ')}${extra ? `, ${extra}` : ''}) VALUES (${[...keys, col].map(() => '?').join(', ')}${extra ? ', NULL' : ''})
       ON CONFLICT DO UPDATE SET ${col} = ${col} + excluded.${col}`,
      );
    const prune = (table: string, keys: string[], where: string) =>
      db.prepare(`DELETE FROM ${table} WHERE ${keys.map((k) => `${k} = ?`).join(' AND ')} AND ${where}`);
    const cp = ['kind', 'key', 'party', 'role'];
    this.s = {
      count: upsert('entity_counts', ['kind', 'key', 'source'], 'documents'),
      pruneCount: prune('entity_counts', ['kind', 'key', 'source'], 'documents = 0'),
      identity: upsert('entity_identity', ['kind', 'key', 'field', 'value'], 'n'),
      pruneIdentity: prune('entity_identity', ['kind', 'key', 'field', 'value'], 'n = 0'),
      counterparty: upsert('entity_counterparties', cp, 'documents', 'name'),
      pruneCounterparty: prune('entity_counterparties', cp, 'documents = 0'),
      counterpartyName: upsert('entity_counterparty_names', [...cp, 'name'], 'n'),
      pruneCounterpartyName: prune('entity_counterparty_names', [...cp, 'name'], 'n = 0'),
      // The most frequent name, the first in code point order among equals.
      renameCounterparty: db.prepare(`UPDATE entity_counterparties SET name = (SELECT name FROM entity_counterparty_names
        WHERE kind = @kind AND key = @key AND party = @party AND role = @role ORDER BY n DESC, name LIMIT 1)
        WHERE kind = @kind AND key = @key AND party = @party AND role = @role`),
      year: db.prepare(`INSERT INTO entity_years (kind, key, year, contracts, value) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT DO UPDATE SET contracts = contracts + excluded.contracts, value = value + excluded.value`),
      pruneYear: prune('entity_years', ['kind', 'key', 'year'], 'contracts = 0 AND value = 0'),
      valueOf: db.prepare('SELECT source_id, amount, adas, year, counted FROM entity_values WHERE kind = ? AND key = ? AND source_id = ?'),
      dropValue: db.prepare('DELETE FROM entity_values WHERE kind = ? AND key = ? AND source_id = ?'),
      dropValueAda: db.prepare('DELETE FROM entity_value_adas WHERE kind = ? AND key = ? AND ada = ? AND source_id = ?'),
      putValue: db.prepare('INSERT INTO entity_values (kind, key, source_id, amount, adas, year, counted) VALUES (?, ?, ?, ?, ?, ?, 0)'),
      putValueAda: db.prepare('INSERT INTO entity_value_adas (kind, key, ada, source_id) VALUES (?, ?, ?, ?)'),
      valuesOfAda: db.prepare(`SELECT v.source_id, v.amount, v.adas, v.year, v.counted FROM entity_value_adas a
        JOIN entity_values v ON v.kind = a.kind AND v.key = a.key AND v.source_id = a.source_id WHERE a.kind = ? AND a.key = ? AND a.ada = ?`),
      setCounted: db.prepare('UPDATE entity_values SET counted = ? WHERE kind = ? AND key = ? AND source_id = ?'),
    };
  }

  /** Adds (sign 1) or takes away (sign -1) a document's share of its keys' counts, names and counterparties. */
  apply(doc: EntityDoc, sign: 1 | -1): void {
    const s = this.s;
    const contract = CONTRACT_CATEGORIES.has(doc.category);
    for (const { kind, key } of doc.keys) {
      s.count.run(kind, key, doc.source, sign);
      if (sign < 0) s.pruneCount.run(kind, key, doc.source);
      if (contract) {
        s.year.run(kind, key, yearOf(doc), sign, 0);
        if (sign < 0) s.pruneYear.run(kind, key, yearOf(doc));
      }
      const self = selfIn(doc, kind, key);
      for (const p of self) {
        for (const [field, value] of [
          ['name', p.name],
          ['afm', kind === 'name' ? p.afm : null],
        ] as const) {
          if (value === null) continue;
          s.identity.run(kind, key, field, value, sign);
          if (sign < 0) s.pruneIdentity.run(kind, key, field, value);
        }
      }
      for (const c of counterpartiesIn(doc, self)) {
        s.counterparty.run(kind, key, c.party, c.role, sign);
        if (c.name !== null) {
          s.counterpartyName.run(kind, key, c.party, c.role, c.name, sign);
          if (sign < 0) s.pruneCounterpartyName.run(kind, key, c.party, c.role, c.name);
        }
        if (sign < 0) s.pruneCounterparty.run(kind, key, c.party, c.role);
        s.renameCounterparty.run({ kind, key, party: c.party, role: c.role });
      }
    }
  }

  /**
   * Moves the contract value of every key the document was or is in, after its change from `before`
   * (null: new) to `after`. Only the procurements it touches are counted again: the valued contracts of
   * the key linked to it through shared ΑΔΑs, however many contracts the key holds.
   */
  revalue(before: EntityDoc | null, after: EntityDoc): void {
    const s = this.s;
    const keys = new Map<string, { kind: KeyKind; key: string }>();
    for (const k of [...(before?.keys ?? []), ...after.keys]) keys.set(`${k.kind} ${k.key}`, k);
    const has = (d: EntityDoc | null, k: { kind: KeyKind; key: string }) => d !== null && valued(d) && d.keys.some((x) => x.kind === k.kind && x.key === k.key);
    for (const k of keys.values()) {
      const was = has(before, k);
      const is = has(after, k);
      if (!was && !is) continue;
      const { kind, key } = k;
      const years = new Map<number, number>();
      const move = (year: number, cents: number) => years.set(year, (years.get(year) ?? 0) + cents);
      const seeds = new Set<string>();
      if (was) {
        const old = s.valueOf.get(kind, key, before!.source_id) as ValueRow;
        move(old.year, -old.counted);
        for (const ada of JSON.parse(old.adas) as string[]) {
          seeds.add(ada);
          s.dropValueAda.run(kind, key, ada, old.source_id);
        }
        s.dropValue.run(kind, key, old.source_id);
      }
      const linked = new Map<string, ValueRow>();
      if (is) {
        const adas = adasOf(after);
        s.putValue.run(kind, key, after.source_id, after.amount, JSON.stringify(adas), yearOf(after));
        for (const ada of adas) {
          seeds.add(ada);
          s.putValueAda.run(kind, key, ada, after.source_id);
        }
        linked.set(after.source_id, { source_id: after.source_id, amount: after.amount!, adas: JSON.stringify(adas), year: yearOf(after), counted: 0 });
      }
      // The procurements touched: every valued contract reachable through shared ΑΔΑs.
      const frontier = [...seeds];
      for (let ada = frontier.pop(); ada !== undefined; ada = frontier.pop()) {
        for (const row of s.valuesOfAda.all(kind, key, ada) as ValueRow[]) {
          if (linked.has(row.source_id)) continue;
          linked.set(row.source_id, row);
          for (const a of JSON.parse(row.adas) as string[])
            if (!seeds.has(a)) {
              seeds.add(a);
              frontier.push(a);
            }
        }
      }
      const counted = countedContractValues(
        [...linked.values()].map((r) => ({ id: r.source_id, category: 'contract', amount: r.amount, currency: 'EUR', adas: JSON.parse(r.adas) as string[] })),
      );
      for (const r of linked.values()) {
        const cents = toCents(counted.get(r.source_id) ?? 0);
        if (cents === r.counted) continue;
        s.setCounted.run(cents, kind, key, r.source_id);
        move(r.year, cents - r.counted);
      }
      for (const [year, cents] of years) {
        if (cents === 0) continue;
        s.year.run(kind, key, year, 0, cents);
        s.pruneYear.run(kind, key, year);
      }
    }
  }
}
