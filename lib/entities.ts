// Entity resolution over the entity index (entity-index.ts): an ΑΦΜ, a name or an ΑΔΑ → the documents
// of every source that name it, with the aggregate GET /v1/entity returns (decisions.md "Entity
// resolution"). Shared by the API, reports (an entity's aggregate) and monitoring (which documents match).
import { contractValue } from './contract-value.js';
import { ValidationError } from './errors.js';
import { isValidAfm, normalizeAda, normalizeAfm } from './identifiers.js';
import { nameKeyWords } from './names.js';
import type { Sqlite } from './sqlite.js';

/** A party's role in a procurement document. */
export type Role = 'buyer' | 'supplier';

export const ENTITY_TYPES = ['afm', 'name', 'ada'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

/** A checked identifier: the 9 digits of an ΑΦΜ, the Greek-lettered ΑΔΑ, or the words of a name's key. */
export type EntityQuery =
  | { type: 'afm'; identifier: string; afm: string }
  | { type: 'ada'; identifier: string; ada: string }
  | { type: 'name'; identifier: string; words: string[] };

export const MAX_NAME_LENGTH = 500;
/** Matches considered at most (the most relevant); `total` says how many were, so never more. */
export const MAX_MATCHES = 10_000;
/** Counterparties returned at most, those with the most shared documents first. */
export const MAX_COUNTERPARTIES = 50;
/** Names (and ΑΦΜs of a name) returned at most, the most frequent first. */
export const MAX_NAMES = 20;
/** Entities whose aggregate a reader keeps (until the next write to the database), the most recent. */
const CACHED_QUERIES = 64;

/** Validates an identifier of a type (default afm); a 422 naming the parameter otherwise. */
export function parseEntityQuery(identifier: string, type: string = 'afm'): EntityQuery {
  if (!(ENTITY_TYPES as readonly string[]).includes(type)) throw new ValidationError(`type must be one of ${ENTITY_TYPES.join(', ')}`);
  if (identifier.trim() === '') throw new ValidationError('identifier must not be empty');
  if (type === 'afm') {
    const afm = normalizeAfm(identifier);
    if (afm === null) throw new ValidationError('identifier must be an AFM of 9 digits when type is afm');
    return { type, identifier, afm };
  }
  if (type === 'ada') {
    const ada = normalizeAda(identifier);
    if (ada === null) throw new ValidationError('identifier must be an ADA such as Ω6Η2ΟΡΡ9-Β9Ω when type is ada');
    return { type, identifier, ada };
  }
  if ([...identifier].length > MAX_NAME_LENGTH) throw new ValidationError(`identifier must be at most ${MAX_NAME_LENGTH} characters`);
  const words = nameKeyWords(identifier);
  if (words.length === 0) throw new ValidationError('identifier must hold a letter or a digit when type is name');
  return { type: 'name', identifier, words };
}

export interface Counterparty {
  name: string | null;
  afm: string | null;
  /** The counterparty's role: buyers of a supplier, suppliers of a buyer. */
  role: Role;
  /** Matched documents naming both. */
  documents: number;
}

export interface EntityAggregate {
  identifier: string;
  type: EntityType;
  /** The ΑΦΜ check digit (type afm); null for the other types. */
  valid: boolean | null;
  names: string[];
  /** The ΑΦΜ looked up; for a name, those it goes with, the most frequent first; for an ΑΔΑ, its issuer's. */
  afm: string[];
  total: number;
  sources: Record<string, number>;
  first_seen: string | null;
  last_seen: string | null;
  total_contract_value: number;
  counterparties: Counterparty[];
  /** Metadata records with `relevance` in 0..1, most relevant first, then newest. */
  matches: Record<string, unknown>[];
  limit: number;
  offset: number;
}

interface DocRow { source_id: string; source: string; published_at: string; category: string; amount: number | null; currency: string | null }
interface PartyRow { role: Role | null; afm: string | null; name: string | null; name_key: string | null }
interface Match extends DocRow { relevance: number; parties: PartyRow[]; self: PartyRow[]; adas: string[] }
interface Found { row: DocRow; parties: PartyRow[]; adas: string[] }
interface Resolved {
  aggregate: Pick<EntityAggregate, 'names' | 'afm' | 'total' | 'sources' | 'first_seen' | 'last_seen' | 'total_contract_value' | 'counterparties'>;
  matches: { source_id: string; relevance: number }[];
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Reads the entity index of a document store's database (DocumentStore.db). */
export class EntityIndex {
  private readonly keyDocs;
  private readonly keyParties;
  private readonly keyAdas;
  private readonly nameKeys;
  private readonly recordOf;
  private readonly dataVersion;
  private readonly totalChanges;
  /** Runs its reads in one read transaction: one snapshot, whatever ingest commits meanwhile. */
  private readonly snapshot;
  private readonly cache = new Map<string, Resolved>();
  private cachedAt = '';

  // One statement each for all the documents of a key, not one per document: an ΑΦΜ of 174
  // documents took 190 ms at p50 under 10 clients that way, against 18 ms for a rare-term search.
  constructor(db: Sqlite) {
    const ofKey = 'FROM entity_keys k JOIN';
    const where = 'ON x.source_id = k.source_id WHERE k.kind = ? AND k.key = ?';
    this.keyDocs = db.prepare(`SELECT x.source_id, x.source, x.published_at, x.category, x.amount, x.currency ${ofKey} entity_docs x ${where}`);
    this.keyParties = db.prepare(`SELECT x.source_id, x.role, x.afm, x.name, x.name_key ${ofKey} entity_parties x ${where}`);
    this.keyAdas = db.prepare(`SELECT x.source_id, x.key ${ofKey} entity_keys x ${where} AND x.kind = 'ada'`);
    this.nameKeys = db.prepare('SELECT key FROM entity_name_words WHERE entity_name_words MATCH ? LIMIT ?').pluck();
    this.recordOf = db.prepare('SELECT record FROM entity_docs WHERE source_id = ?').pluck();
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.totalChanges = db.prepare('SELECT total_changes()').pluck();
    this.snapshot = db.transaction((query: EntityQuery) => this.compute(query));
  }

  /** The documents holding a key, each with its parties and ΑΔΑs. */
  private documentsOf(kind: string, key: string): Found[] {
    const found = new Map<string, Found>();
    for (const row of this.keyDocs.all(kind, key) as DocRow[]) found.set(row.source_id, { row, parties: [], adas: [] });
    for (const p of this.keyParties.all(kind, key) as (PartyRow & { source_id: string })[]) {
      const { source_id: id, ...party } = p;
      found.get(id)?.parties.push(party);
    }
    for (const a of this.keyAdas.all(kind, key) as { source_id: string; key: string }[]) found.get(a.source_id)?.adas.push(a.key);
    return [...found.values()];
  }

  /** The entity's documents across sources, aggregated; `page` cuts `matches` only. */
  resolve(query: EntityQuery, page: { limit: number; offset: number } = { limit: 20, offset: 0 }): EntityAggregate {
    const { aggregate, matches } = this.resolved(query);
    return {
      identifier: query.identifier,
      type: query.type,
      valid: query.type === 'afm' ? isValidAfm(query.afm) : null,
      ...aggregate,
      matches: matches.slice(page.offset, page.offset + page.limit).map((m) => ({
        ...(JSON.parse(this.recordOf.get(m.source_id) as string) as Record<string, unknown>),
        relevance: m.relevance,
      })),
      limit: page.limit,
      offset: page.offset,
    };
  }

  /**
   * The aggregate and ordered matches of a query, from the cache while nothing was written to the
   * database since they were computed (by another connection, data_version; or by this one,
   * total_changes): the same entity asked again costs a lookup, not its documents read and aggregated.
   */
  private resolved(query: EntityQuery): Resolved {
    const version = `${this.dataVersion.get()}:${this.totalChanges.get()}`;
    if (version !== this.cachedAt) {
      this.cache.clear();
      this.cachedAt = version;
    }
    const key = query.type === 'afm' ? `afm:${query.afm}` : query.type === 'ada' ? `ada:${query.ada}` : `name:${query.words.join(' ')}`;
    let found = this.cache.get(key);
    if (found) {
      // Least recently used last: re-inserted at the end.
      this.cache.delete(key);
    } else {
      found = this.snapshot(query);
      if (this.cache.size >= CACHED_QUERIES) this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(key, found);
    return found;
  }

  private compute(query: EntityQuery): Resolved {
    const matches = this.match(query);
    const sources: Record<string, number> = {};
    let first: string | null = null;
    let last: string | null = null;
    for (const m of matches) {
      sources[m.source] = (sources[m.source] ?? 0) + 1;
      if (first === null || m.published_at < first) first = m.published_at;
      if (last === null || m.published_at > last) last = m.published_at;
    }
    const { names, afm } = this.identity(query, matches);
    return {
      aggregate: {
        names,
        afm,
        total: matches.length,
        sources,
        first_seen: first,
        last_seen: last,
        total_contract_value: contractValue(matches.map((m) => ({ id: m.source_id, category: m.category, amount: m.amount, currency: m.currency, adas: m.adas }))),
        counterparties: counterparties(matches),
      },
      // Only what a page needs is kept: the parties were for the aggregate.
      matches: matches.map((m) => ({ source_id: m.source_id, relevance: m.relevance })),
    };
  }

  /** The matching documents, most relevant first, then newest, then by id; at most MAX_MATCHES. */
  private match(query: EntityQuery): Match[] {
    const found = new Map<string, Match>();
    const add = (docs: Found[], relevance: (f: Found) => { relevance: number; self: PartyRow[] }) => {
      for (const f of docs) {
        if (found.has(f.row.source_id) || found.size >= MAX_MATCHES) continue;
        found.set(f.row.source_id, { ...f.row, parties: f.parties, adas: f.adas, ...relevance(f) });
      }
    };
    if (query.type === 'afm') {
      // A party of the document (a buyer, a winner, a payee) is the entity itself; an ΑΦΜ found only
      // in the text is a mention.
      add(this.documentsOf('afm', query.afm), (f) => {
        const self = f.parties.filter((p) => p.afm === query.afm);
        return { relevance: self.length > 0 ? 1 : 0.8, self };
      });
    } else if (query.type === 'ada') {
      // The decision itself, then the records that refer to it (KIMDIS contracts, Mitos rules, later decisions).
      add(this.documentsOf('ada', query.ada), (f) => ({ relevance: f.row.source_id === `diavgeia:${query.ada}` ? 1 : 0.8, self: [] }));
    } else {
      // Names whose key holds every word of the query's: the same key is the entity (1), a longer
      // name holding it ranks by the share of its words the query covers.
      const wanted = query.words.join(' ');
      const keys = (this.nameKeys.all([...new Set(query.words)].map((w) => `"${w}"`).join(' AND '), MAX_MATCHES) as string[])
        .map((key) => ({ key, relevance: key === wanted ? 1 : round3(0.9 * Math.min(1, query.words.length / key.split(' ').length)) }))
        .sort((a, b) => b.relevance - a.relevance);
      for (const { key, relevance } of keys) {
        if (found.size >= MAX_MATCHES) break;
        add(this.documentsOf('name', key), (f) => ({ relevance, self: f.parties.filter((p) => p.name_key === key) }));
      }
    }
    return [...found.values()].sort((a, b) => b.relevance - a.relevance
      || (a.published_at < b.published_at ? 1 : a.published_at > b.published_at ? -1 : 0)
      || (a.source_id < b.source_id ? -1 : 1));
  }

  /** The names the entity goes by and its ΑΦΜ, from the parties that are the entity. */
  private identity(query: EntityQuery, matches: Match[]): { names: string[]; afm: string[] } {
    if (query.type === 'ada') {
      // An ΑΔΑ is a decision: its parties' names, and the ΑΦΜ of the body that issued it.
      const decision = matches.find((m) => m.relevance === 1);
      const parties = decision?.parties ?? [];
      return {
        names: [...new Set(parties.map((p) => p.name).filter((n): n is string => n !== null))].slice(0, MAX_NAMES),
        afm: [...new Set(parties.filter((p) => p.role === 'buyer' && p.afm !== null).map((p) => p.afm!))],
      };
    }
    const names = new Map<string, number>();
    const afms = new Map<string, number>();
    for (const m of matches) {
      for (const p of m.self) {
        // Exact matches count for far more than names that only contain the query's words.
        const weight = m.relevance === 1 ? MAX_MATCHES : 1;
        if (p.name !== null) names.set(p.name, (names.get(p.name) ?? 0) + weight);
        if (p.afm !== null) afms.set(p.afm, (afms.get(p.afm) ?? 0) + weight);
      }
    }
    const byCount = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([k]) => k);
    return {
      names: byCount(names).slice(0, MAX_NAMES),
      afm: query.type === 'afm' ? [query.afm] : byCount(afms).slice(0, MAX_NAMES),
    };
  }
}

/** Buyers in the documents where the entity supplies, suppliers where it buys. */
function counterparties(matches: Match[]): Counterparty[] {
  const found = new Map<string, Counterparty & { names: Map<string, number> }>();
  for (const m of matches) {
    const roles = new Set(m.self.map((p) => p.role).filter((r): r is Role => r !== null));
    const seen = new Set<string>();
    for (const p of m.parties) {
      if (p.role === null || m.self.includes(p) || !roles.has(p.role === 'buyer' ? 'supplier' : 'buyer')) continue;
      const key = p.afm ?? `name:${p.name_key}`;
      if (p.afm === null && p.name_key === null) continue;
      if (seen.has(key)) continue;
      seen.add(key);
      const c = found.get(key) ?? { name: null, afm: p.afm, role: p.role, documents: 0, names: new Map() };
      c.documents++;
      if (p.name !== null) c.names.set(p.name, (c.names.get(p.name) ?? 0) + 1);
      found.set(key, c);
    }
  }
  return [...found.values()]
    .map(({ names, ...c }) => ({ ...c, name: [...names].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? null }))
    .sort((a, b) => b.documents - a.documents || String(a.name).localeCompare(String(b.name)))
    .slice(0, MAX_COUNTERPARTIES);
}
