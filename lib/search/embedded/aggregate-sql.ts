// Aggregates on the embedded engine (lib/search/aggregate.ts): SQL over the stored columns of the
// serving table sets, inside the caller's read transaction (one snapshot for the whole plan), never a
// document read into JavaScript. The matched documents' columns are copied once into a temporary table;
// the contract value of each (lib/contract-value.ts) is settled there in SQL: awards and contracts
// linked through shared ΑΔΑs (a recursive walk), each procurement counted at its largest amount.
import type { Database } from 'better-sqlite3';
import { GROUPINGS, type Grouping } from '../../../index-mappings/analysis.js';
import { CONTRACT_CATEGORIES } from '../../contract-value.js';
import type { BucketsRequest, RawBucket } from '../aggregate.js';
import { keyRows } from './analysis-sql.js';
import type { FilterSql } from './filter-sql.js';
import type { RidWindow } from './keys.js';

/** A serving table set as an aggregate reads it: its tables, and its MATCH string (null: no text asked). */
export interface AggregatedSet {
  docs: string;
  fts: string;
  match: string | null;
}

const CATEGORIES = [...CONTRACT_CATEGORIES].map((c) => `'${c}'`).join(', ');

/** The temporary tables one aggregate fills and reads, dropped when it ends. */
const TEMP = ['agg_m', 'agg_v', 'agg_va', 'agg_counted', ...GROUPINGS.map((g) => `agg_k_${g}`)];

/** One aggregate's matched documents and contract values, and the bucket requests answered over them. */
export class EmbeddedAggregation {
  private readonly keyed = new Set<Grouping>();

  constructor(
    private readonly db: Database,
    sets: AggregatedSet[],
    window: RidWindow,
    filter: FilterSql | null,
    metrics: 'documents' | 'all',
  ) {
    this.dropTemp();
    db.exec(`CREATE TEMP TABLE agg_m (id TEXT PRIMARY KEY, source TEXT, published_at TEXT, doc_category TEXT, amount TEXT, tenders_received INTEGER,
      parties TEXT, cpv TEXT, region TEXT, procedure_type TEXT, entities TEXT) WITHOUT ROWID`);
    for (const set of sets) {
      const text = set.match === null ? '' : ` AND d.rid IN (SELECT rowid FROM ${set.fts} WHERE ${set.fts} MATCH @match)`;
      db.prepare(
        `INSERT INTO temp.agg_m SELECT d.source_id, d.source, d.published_at, d.doc_category, d.amount, d.tenders_received, d.parties, d.cpv, d.region,
           d.procedure_type, d.entities FROM ${set.docs} d WHERE d.rid >= @from AND d.rid < @to${filter ? ` AND ${filter.cond}` : ''}${text}`,
      ).run({ ...filter?.params, from: window.from, to: window.to, ...(set.match === null ? {} : { match: set.match }) });
    }
    if (metrics === 'all') this.countValues();
  }

  /**
   * agg_counted: the awards and contracts with an EUR amount that count (lib/contract-value.ts), and
   * their cents. Those sharing an ΑΔΑ, directly or through others, are one procurement; of each, the one
   * of the largest amount counts (the first by source_id among equals).
   */
  private countValues(): void {
    const db = this.db;
    db.exec(`CREATE TEMP TABLE agg_v (id TEXT PRIMARY KEY, amount REAL, cents INTEGER) WITHOUT ROWID;
      INSERT INTO temp.agg_v SELECT id, amount ->> 'value', CAST(round((amount ->> 'value') * 100) AS INTEGER) FROM temp.agg_m
        WHERE doc_category IN (${CATEGORIES}) AND amount ->> 'currency' = 'EUR' AND amount ->> 'value' > 0;
      CREATE TEMP TABLE agg_va (ada TEXT, id TEXT, PRIMARY KEY (ada, id)) WITHOUT ROWID;
      INSERT OR IGNORE INTO temp.agg_va SELECT j.value, v.id FROM temp.agg_v v JOIN temp.agg_m m ON m.id = v.id, json_each(m.entities, '$.ada') j;
      CREATE INDEX temp.agg_va_id ON agg_va (id);
      CREATE TEMP TABLE agg_counted (id TEXT PRIMARY KEY, cents INTEGER) WITHOUT ROWID;
      WITH RECURSIVE reach (id, other) AS (
        SELECT DISTINCT id, id FROM temp.agg_va
        UNION
        SELECT r.id, b.id FROM reach r JOIN temp.agg_va a ON a.id = r.other JOIN temp.agg_va b ON b.ada = a.ada
      )
      INSERT INTO temp.agg_counted SELECT v.id, v.cents FROM temp.agg_v v WHERE v.id NOT IN (
        SELECT r.id FROM reach r JOIN temp.agg_v w ON w.id = r.other JOIN temp.agg_v me ON me.id = r.id
        WHERE w.amount > me.amount OR (w.amount = me.amount AND w.id < me.id)
      );`);
  }

  /** agg_k_<grouping>: a row per matched document and each of its keys (analysis-sql.ts keyRows). */
  private keys(grouping: Grouping): string {
    const table = `agg_k_${grouping}`;
    if (!this.keyed.has(grouping)) {
      this.db.exec(`CREATE TEMP TABLE ${table} (id TEXT, key TEXT, PRIMARY KEY (key, id)) WITHOUT ROWID;
        INSERT OR IGNORE INTO temp.${table} ${keyRows(grouping, 'temp.agg_m')};
        CREATE INDEX temp.${table}_id ON ${table} (id, key);`);
      this.keyed.add(grouping);
    }
    return `temp.${table}`;
  }

  /** Every bucket of the request's groups (one row, the totals, when it has none) within its scope. */
  answer(r: BucketsRequest): RawBucket[] {
    const params: Record<string, string> = {};
    const cols = r.groups.map((_, i) => `k${i}`);
    const joins = r.groups.map((g, i) => ` JOIN ${this.keys(g)} k${i} ON k${i}.id = m.id`).join('');
    const scope = r.scope.map((s, i) => {
      params[`scope${i}`] = JSON.stringify(s.keys);
      return `${s.exclude ? 'NOT ' : ''}EXISTS (SELECT 1 FROM ${this.keys(s.grouping)} s WHERE s.id = m.id AND s.key IN (SELECT value FROM json_each(@scope${i})))`;
    });
    const select = cols.map((c) => `${c}.key AS ${c}`);
    const by = cols.length ? ` GROUP BY ${cols.join(', ')}` : '';
    const values = r.metrics === 'all';
    const partition = cols.length ? `PARTITION BY ${cols.join(', ')} ` : '';
    const on = cols.length ? cols.map((c) => `s.${c} IS d.${c}`).join(' AND ') : '1';
    const sql = `WITH g AS (SELECT ${[...select, 'm.*'].join(', ')} FROM temp.agg_m m${joins}${scope.length ? ` WHERE ${scope.join(' AND ')}` : ''}),
      d AS (SELECT ${[...cols, ''].join(', ')}count(*) AS documents, min(published_at) AS first, max(published_at) AS last,
        count(tenders_received) AS tendersStated, coalesce(sum(tenders_received), 0) AS tendersSum, coalesce(sum(tenders_received = 1), 0) AS singleBid
        FROM g${by})${
          values
            ? `,
      v AS (SELECT ${[...cols, ''].join(', ')}c.cents, row_number() OVER (${partition}ORDER BY c.cents) AS rn, count(*) OVER (${partition}) AS n
        FROM g JOIN temp.agg_counted c ON c.id = g.id),
      s AS (SELECT ${[...cols, ''].join(', ')}count(*) AS contracts, sum(cents) AS valueCents,
        avg(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN cents END) AS medianCents FROM v${by})
      SELECT d.*, coalesce(s.contracts, 0) AS contracts, coalesce(s.valueCents, 0) AS valueCents, s.medianCents FROM d LEFT JOIN s ON ${on}`
            : `
      SELECT d.*, 0 AS contracts, 0 AS valueCents, NULL AS medianCents FROM d`
        }`;
    const rows = this.db.prepare(sql).all(params) as Record<string, unknown>[];
    return rows.map((row) => {
      const keys = cols.map((c) => String(row[c]));
      for (const c of cols) delete row[c];
      return { ...(row as unknown as Omit<RawBucket, 'keys'>), keys };
    });
  }

  /** Drops the temporary tables (also those a failed aggregate may have left on this connection). */
  dropTemp(): void {
    for (const table of TEMP) this.db.exec(`DROP TABLE IF EXISTS temp.${table}`);
  }
}
