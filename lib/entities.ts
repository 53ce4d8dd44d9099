// Entity resolution over the entity index (entity-index.ts): an ΑΦΜ, a name or an ΑΔΑ → its entity key,
// whose aggregates (kept at write time, entity-aggregates.ts) and ordered documents GET /v1/entity
// returns (decisions.md "Entity resolution"). Shared by the API, the MCP tool and reports. Every read
// is a lookup: what an entity of 30,000 documents costs is what one of 3 costs.
import { ValidationError } from './errors.js';
import { extractIdentifiers, isValidAfm, normalizeAda, normalizeAfm } from './identifiers.js';
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
/** Counterparties returned at most, those with the most shared documents first. */
export const MAX_COUNTERPARTIES = 50;
/** Names (and ΑΦΜs of a name) returned at most, the most frequent first. */
export const MAX_NAMES = 20;
/** Name keys holding every word of a name query weighed when none is the same name, the shortest first. */
const NAME_CANDIDATES = 200;

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

/** An entity's awards and contracts published in a year, and the contract value they count for. */
export interface YearTotal {
  year: number;
  contracts: number;
  value: number;
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
  /** Per year, oldest first: only when asked (a report's totals_by_year), never in the API's answer. */
  years?: YearTotal[];
}

/** What a report states of an entity's documents however many it reads: the entity's aggregates. */
export type EntityTotals = Pick<EntityAggregate, 'total' | 'sources' | 'first_seen' | 'last_seen' | 'total_contract_value'> & { years: YearTotal[] };

export function totalsOf(a: EntityAggregate): EntityTotals {
  return {
    total: a.total,
    sources: a.sources,
    first_seen: a.first_seen,
    last_seen: a.last_seen,
    total_contract_value: a.total_contract_value,
    years: a.years ?? [],
  };
}

/** An identifier a free text names that the index knows, and its documents, the most recent first. */
export interface NamedKey {
  kind: 'afm' | 'ada' | 'name';
  key: string;
  source_ids: string[];
}

/**
 * The longest run of a text's words read as a name (a name key of more words is not looked for). One
 * word alone is never a name: too many names are a common word (`ΤΕΧΝΙΚΗ`), and a question is mostly
 * common words.
 */
const NAME_RUN = { min: 2, max: 8 };

/** A page of matches; `years` asks for the per-year totals too. */
export interface EntityPage {
  limit: number;
  offset: number;
  years?: boolean;
}

type KeyKind = 'afm' | 'ada' | 'name';
/** The key a query resolves to, and the relevance its documents have for the query. */
interface Target {
  kind: KeyKind;
  key: string;
  relevance: number;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
/** The relevance levels a key's documents have (entity-aggregates.ts relevanceIn). */
const LEVELS = [1, 0.8];

/** Reads the entity index of a document store's database (DocumentStore.db). */
export class EntityIndex {
  private readonly s;
  /** Runs its reads in one read transaction: one snapshot, whatever ingest commits meanwhile. */
  private readonly snapshot;

  constructor(db: Sqlite) {
    const ofKey = 'WHERE kind = ? AND key = ?';
    this.s = {
      counts: db.prepare(`SELECT source, documents FROM entity_counts ${ofKey} ORDER BY source`),
      hasKey: db.prepare(`SELECT 1 FROM entity_counts ${ofKey} LIMIT 1`).pluck(),
      seen: LEVELS.map(() =>
        ['DESC', 'ASC'].map((dir) =>
          db.prepare(`SELECT published_at FROM entity_keys ${ofKey} AND relevance = ? ORDER BY relevance DESC, published_at ${dir} LIMIT 1`).pluck(),
        ),
      ),
      years: db.prepare(`SELECT year, contracts, value FROM entity_years ${ofKey} ORDER BY year`),
      identity: db.prepare(`SELECT value FROM entity_identity ${ofKey} AND field = ? ORDER BY n DESC, value LIMIT ${MAX_NAMES}`).pluck(),
      counterparties: db.prepare(
        `SELECT party, role, documents, name FROM entity_counterparties ${ofKey} ORDER BY documents DESC, name, party, role LIMIT ${MAX_COUNTERPARTIES}`,
      ),
      // The page is cut from the key's index alone, then its records read: skipping 30,000 matches
      // reads 30,000 index entries, not 30,000 records.
      page: db.prepare(`WITH p AS MATERIALIZED (SELECT source_id, relevance, published_at FROM entity_keys ${ofKey}
          ORDER BY relevance DESC, published_at DESC, source_id LIMIT ? OFFSET ?)
        SELECT p.source_id, p.relevance, d.record FROM p JOIN entity_docs d ON d.source_id = p.source_id
        ORDER BY p.relevance DESC, p.published_at DESC, p.source_id`),
      decisionParties: db.prepare(`SELECT p.role, p.afm, p.name FROM entity_parties p JOIN entity_keys k ON k.source_id = p.source_id
        WHERE k.kind = 'ada' AND k.key = ? AND p.source_id = ? ORDER BY p.rowid`),
      nameKeys: db.prepare('SELECT key FROM entity_name_words WHERE entity_name_words MATCH ? ORDER BY rank LIMIT ?').pluck(),
      isNameKey: db.prepare('SELECT 1 FROM entity_name_keys WHERE key = ?').pluck(),
      newest: db.prepare(`SELECT source_id FROM entity_keys ${ofKey} ORDER BY published_at DESC, source_id LIMIT ?`).pluck(),
    };
    this.snapshot = db.transaction((query: EntityQuery, page: EntityPage) => this.read(query, page));
  }

  /** The entity's aggregates and a page of its documents, in one snapshot. */
  resolve(query: EntityQuery, page: EntityPage = { limit: 20, offset: 0 }): EntityAggregate {
    return this.snapshot(query, page);
  }

  /**
   * The identifiers `text` names that the index knows, in the order the text names them: each valid
   * ΑΦΜ and each ΑΔΑ, and each run of words that is a party's name (lib/names.ts nameKey: any case,
   * accents, script or legal form), the longest first, runs not overlapping. Each with its newest
   * `limit` documents.
   */
  namedIn(text: string, limit: number): NamedKey[] {
    const { afm, ada } = extractIdentifiers(text);
    const keys: { kind: NamedKey['kind']; key: string }[] = [
      ...afm.map((key) => ({ kind: 'afm' as const, key })),
      ...ada.map((key) => ({ kind: 'ada' as const, key })),
    ];
    const words = nameKeyWords(text);
    for (let i = 0; i < words.length; ) {
      let n = Math.min(NAME_RUN.max, words.length - i);
      while (n >= NAME_RUN.min && !this.s.isNameKey.get(words.slice(i, i + n).join(' '))) n--;
      if (n < NAME_RUN.min) i++;
      else {
        keys.push({ kind: 'name', key: words.slice(i, i + n).join(' ') });
        i += n;
      }
    }
    return keys.map((k) => ({ ...k, source_ids: this.s.newest.all(k.kind, k.key, limit) as string[] })).filter((k) => k.source_ids.length > 0);
  }

  private read(query: EntityQuery, page: EntityPage): EntityAggregate {
    const target = this.target(query);
    const { kind, key } = target ?? { kind: 'afm', key: '' };
    const sources: Record<string, number> = {};
    let total = 0;
    for (const r of this.s.counts.all(kind, key) as { source: string; documents: number }[]) {
      sources[r.source] = r.documents;
      total += r.documents;
    }
    const dates = this.s.seen
      .flatMap((level, i) => level.map((stmt) => stmt.get(kind, key, LEVELS[i]) as string | undefined))
      .filter((d): d is string => d !== undefined)
      .sort();
    const years = this.s.years.all(kind, key) as YearTotal[];
    const cents = years.reduce((sum, y) => sum + y.value, 0);
    const matches = (this.s.page.all(kind, key, page.limit, page.offset) as { source_id: string; relevance: number; record: string }[]).map((m) => ({
      ...(JSON.parse(m.record) as Record<string, unknown>),
      relevance: round3(m.relevance * (target?.relevance ?? 1)),
    }));
    return {
      identifier: query.identifier,
      type: query.type,
      valid: query.type === 'afm' ? isValidAfm(query.afm) : null,
      ...this.identity(query, kind, key),
      total,
      sources,
      first_seen: dates[0] ?? null,
      last_seen: dates.at(-1) ?? null,
      total_contract_value: cents / 100,
      counterparties: (this.s.counterparties.all(kind, key) as { party: string; role: Role; documents: number; name: string | null }[]).map((c) => ({
        name: c.name,
        afm: c.party.startsWith('name:') ? null : c.party,
        role: c.role,
        documents: c.documents,
      })),
      matches,
      limit: page.limit,
      offset: page.offset,
      ...(page.years ? { years: years.filter((y) => y.contracts > 0).map((y) => ({ ...y, value: y.value / 100 })) } : {}),
    };
  }

  /**
   * The key a query is: its ΑΦΜ, its ΑΔΑ, or the name key the same after folding; a name no party has
   * resolves to the shortest name holding every word of it (then the one of most documents, then by
   * key), at 0.9 times the share of that name's words the query covers.
   */
  private target(query: EntityQuery): Target | null {
    if (query.type === 'afm') return { kind: 'afm', key: query.afm, relevance: 1 };
    if (query.type === 'ada') return { kind: 'ada', key: query.ada, relevance: 1 };
    const wanted = query.words.join(' ');
    if (this.s.hasKey.get('name', wanted)) return { kind: 'name', key: wanted, relevance: 1 };
    // bm25 ranks shorter keys first among keys holding each word once: the shortest are in the first.
    const candidates = (this.s.nameKeys.all([...new Set(query.words)].map((w) => `"${w}"`).join(' AND '), NAME_CANDIDATES) as string[])
      .filter((key) => this.s.hasKey.get('name', key))
      .map((key) => ({ key, words: key.split(' ').length, documents: this.totalOf(key) }))
      .sort((a, b) => a.words - b.words || b.documents - a.documents || (a.key < b.key ? -1 : 1));
    const best = candidates[0];
    if (!best) return null;
    return { kind: 'name', key: best.key, relevance: round3(0.9 * Math.min(1, query.words.length / best.words)) };
  }

  private totalOf(key: string): number {
    return (this.s.counts.all('name', key) as { documents: number }[]).reduce((sum, r) => sum + r.documents, 0);
  }

  /** The names the entity goes by and its ΑΦΜ, from the parties that are the entity. */
  private identity(query: EntityQuery, kind: KeyKind, key: string): { names: string[]; afm: string[] } {
    if (query.type === 'ada') {
      // An ΑΔΑ is a decision: its parties' names, and the ΑΦΜ of the body that issued it.
      const parties = this.s.decisionParties.all(query.ada, `diavgeia:${query.ada}`) as { role: Role | null; afm: string | null; name: string | null }[];
      return {
        names: [...new Set(parties.map((p) => p.name).filter((n): n is string => n !== null))].slice(0, MAX_NAMES),
        afm: [...new Set(parties.filter((p) => p.role === 'buyer' && p.afm !== null).map((p) => p.afm!))],
      };
    }
    return {
      names: this.s.identity.all(kind, key, 'name') as string[],
      afm: query.type === 'afm' ? [query.afm] : (this.s.identity.all(kind, key, 'afm') as string[]),
    };
  }
}
