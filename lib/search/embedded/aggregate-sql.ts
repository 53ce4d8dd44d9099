// Aggregates on the embedded engine (lib/search/aggregate.ts): SQL over the side tables of the serving
// table sets (facts.ts), inside the caller's read transaction (one snapshot for the whole plan), never a
// document read into JavaScript. The matched documents' facts are copied once into a temporary table,
// where each award or contract carries its value in cents; the contract-value rule
// (lib/contract-value.ts) then takes the value out of those another document of their procurement
// outvalues. A step's requests are answered from one pass where they can be (answerStep).
import type { Database } from 'better-sqlite3';
import { GROUPINGS, type Grouping } from '../../../index-mappings/analysis.js';
import { CONTRACT_CATEGORIES, firstOfEachProcurement } from '../../contract-value.js';
import { medianOf, type BucketsRequest, type RawBucket } from '../aggregate.js';
import type { SideTables } from './facts.js';
import type { FilterSql } from './filter-sql.js';
import type { RidWindow } from './keys.js';

/** A serving table set as an aggregate reads it: its source, tables, and MATCH string (null: no text asked). */
export interface AggregatedSet {
  source: string;
  fts: string;
  side: Pick<SideTables, 'facts' | 'keys'>;
  match: string | null;
}

const CATEGORIES = [...CONTRACT_CATEGORIES].map((c) => `'${c}'`).join(', ');

/** The temporary tables one aggregate fills and reads, dropped when it ends. */
const TEMP = ['agg_m', 'agg_roll', 'agg_v', ...GROUPINGS.map((g) => `agg_k_${g}`)];

/** Groupings with one key or none per document: the SQL expression of it over `agg_m m`. */
const SINGLE_KEY: Partial<Record<Grouping, string>> = {
  year: 'substr(m.published_at, 1, 4)',
  month: 'substr(m.published_at, 1, 7)',
  source: 'm.source',
  region: 'm.region',
  procedure_type: 'm.procedure_type',
  doc_category: 'm.doc_category',
};

/** Groupings with several keys per document, each a `_keys` kind of the same name. */
type MultiGrouping = 'buyer' | 'supplier' | 'cpv' | 'cpv_division' | 'cpv_group';

/** The document metrics of a bucket over rows `g` (agg_m's columns), RawBucket's names. */
const DOCUMENT_METRICS = `count(*) AS documents, min(published_at) AS first, max(published_at) AS last, count(tenders_received) AS tendersStated,
  coalesce(sum(tenders_received), 0) AS tendersSum, coalesce(sum(tenders_received = 1), 0) AS singleBid`;

/** The metrics of buckets of agg_roll rolled up (the totals of no rows are zeros). */
const ROLLED_UP = `total(documents) AS documents, min(first) AS first, max(last) AS last, total(tendersStated) AS tendersStated,
  total(tendersSum) AS tendersSum, total(singleBid) AS singleBid, total(contracts) AS contracts, total(valueCents) AS valueCents`;

/** One aggregate's matched documents and contract values, and the bucket requests answered over them. */
export class EmbeddedAggregation {
  private readonly keyed = new Set<Grouping>();
  /** Each set's matched documents are the rows `lo` to `hi` of agg_m. */
  private readonly ranges: { set: AggregatedSet; lo: number; hi: number }[] = [];

  constructor(
    private readonly db: Database,
    sets: AggregatedSet[],
    window: RidWindow,
    filter: FilterSql | null,
    private readonly metrics: 'documents' | 'all',
  ) {
    this.dropTemp();
    // value: an award's or contract's amount in EUR cents (lib/contract-value.ts), until countValues.
    db.exec(`CREATE TEMP TABLE agg_m (n INTEGER PRIMARY KEY, rid INTEGER NOT NULL, sid TEXT NOT NULL, source TEXT NOT NULL,
      published_at TEXT NOT NULL, doc_category TEXT NOT NULL, procedure_type TEXT, region TEXT, tenders_received INTEGER, eur REAL, value INTEGER)`);
    const last = db.prepare('SELECT coalesce(max(n), 0) FROM temp.agg_m').pluck();
    for (const set of sets) {
      const { facts } = set.side;
      const text = set.match === null ? '' : ` AND f.rid IN (SELECT rowid FROM ${set.fts} WHERE ${set.fts} MATCH @match)`;
      const valued = `f.doc_category IN (${CATEGORIES}) AND f.eur > 0`;
      const lo = (last.get() as number) + 1;
      db.prepare(
        `INSERT INTO temp.agg_m (rid, sid, source, published_at, doc_category, procedure_type, region, tenders_received, eur, value)
         SELECT f.rid, f.source_id, @source, f.published_at, f.doc_category, f.procedure_type, f.region, f.tenders_received,
           CASE WHEN ${valued} THEN f.eur END, CASE WHEN ${valued} THEN CAST(round(f.eur * 100) AS INTEGER) END
         FROM ${facts} f WHERE f.rid >= @from AND f.rid < @to${filter ? ` AND ${filter.cond(set.side, 'f.rid')}` : ''}${text}`,
      ).run({ ...filter?.params, source: set.source, from: window.from, to: window.to, ...(set.match === null ? {} : { match: set.match }) });
      this.ranges.push({ set, lo, hi: last.get() as number });
    }
    if (metrics === 'all') this.countValues();
  }

  /**
   * Takes the value out of the awards and contracts another of their procurement outvalues (lib/
   * contract-value.ts firstOfEachProcurement, the rule Elasticsearch's aggregations apply too). Only the
   * matched valued documents that share an ΑΔΑ are read, as ranks and numbered ΑΔΑs; one that shares
   * none counts alone.
   */
  private countValues(): void {
    const db = this.db;
    const holders = new Map<string, number[]>();
    for (const { set, lo, hi } of this.ranges) {
      const links = db
        .prepare(
          `SELECT m.n, k.key FROM temp.agg_m m CROSS JOIN ${set.side.keys} k ON k.rid = m.rid AND k.kind = 'ada' WHERE m.n BETWEEN ? AND ? AND m.value IS NOT NULL`,
        )
        .raw()
        .all(lo, hi) as [number, string][];
      for (const [n, ada] of links) {
        const ns = holders.get(ada);
        if (ns) ns.push(n);
        else holders.set(ada, [n]);
      }
    }
    const shared = [...holders.values()].filter((ns) => ns.length > 1);
    if (shared.length === 0) return;
    // In rank order: the largest amount first, then by source_id.
    const linked = new Set(shared.flat());
    const ranked = (db.prepare('SELECT n FROM temp.agg_m WHERE value IS NOT NULL ORDER BY eur DESC, sid').pluck().all() as number[]).filter((n) =>
      linked.has(n),
    );
    const rank = new Map(ranked.map((n, i) => [n, i]));
    const first = firstOfEachProcurement(
      ranked.length,
      shared.flatMap((ns, ada) => ns.map((n) => [rank.get(n)!, ada] as const)),
    );
    const outvalued = ranked.filter((_, i) => !first[i]);
    db.prepare('UPDATE temp.agg_m SET value = NULL WHERE n IN (SELECT value FROM json_each(?))').run(JSON.stringify(outvalued));
  }

  /** agg_k_<grouping>: a row per matched document and each of its keys of a grouping with several. */
  private keys(grouping: MultiGrouping): string {
    const table = `agg_k_${grouping}`;
    if (!this.keyed.has(grouping)) {
      this.db.exec(`CREATE TEMP TABLE ${table} (n INTEGER NOT NULL, key TEXT NOT NULL, PRIMARY KEY (n, key)) WITHOUT ROWID`);
      for (const { set, lo, hi } of this.ranges) {
        this.db
          .prepare(
            `INSERT INTO temp.${table} SELECT m.n, k.key FROM temp.agg_m m CROSS JOIN ${set.side.keys} k ON k.rid = m.rid AND k.kind = ?
             WHERE m.n BETWEEN ? AND ?`,
          )
          .run(grouping, lo, hi);
      }
      this.db.exec(`CREATE INDEX temp.${table}_key ON ${table} (key, n)`);
      this.keyed.add(grouping);
    }
    return `temp.${table}`;
  }

  /**
   * Every request of a plan's step. Requests over every matched document (no scope) whose groupings are
   * each one key per document and prefixes of the longest one's (the first step of year then source:
   * the years, the totals, the pairs) are one pass: the finest buckets, rolled up; others each its own.
   */
  answerStep(rs: BucketsRequest[]): RawBucket[][] {
    const finest = rs.reduce((a, r) => (r.groups.length > a.groups.length ? r : a));
    const rolled =
      rs.length > 1 &&
      finest.groups.every((g) => SINGLE_KEY[g]) &&
      rs.every((r) => r.scope.length === 0 && r.metrics === finest.metrics && r.groups.every((g, i) => g === finest.groups[i]));
    if (!rolled) return rs.map((r) => this.answer(r));
    const values = finest.metrics === 'all';
    const keys = finest.groups.map((g, i) => `${SINGLE_KEY[g]} AS k${i}`);
    this.db.exec(`DROP TABLE IF EXISTS temp.agg_roll;
      CREATE TEMP TABLE agg_roll AS SELECT ${[...keys, ''].join(', ')}${DOCUMENT_METRICS}, ${this.valueMetrics(values)}
      FROM temp.agg_m m GROUP BY ${finest.groups.map((_, i) => `k${i}`).join(', ')}`);
    // The counted contracts alone, for the medians, which do not roll up.
    if (values)
      this.db.exec(
        `DROP TABLE IF EXISTS temp.agg_v; CREATE TEMP TABLE agg_v AS SELECT ${[...keys, ''].join(', ')}m.value FROM temp.agg_m m WHERE m.value IS NOT NULL`,
      );
    return rs.map((r) => {
      const cols = r.groups.map((_, i) => `k${i}`);
      const rows = this.db
        .prepare(
          `SELECT ${[...cols, ''].join(', ')}${ROLLED_UP} FROM temp.agg_roll${cols.length ? ` WHERE ${cols.map((c) => `${c} IS NOT NULL`).join(' AND ')} GROUP BY ${cols.join(', ')}` : ''}`,
        )
        .all() as Record<string, unknown>[];
      const keyed = cols.map((col) => ({ expr: `m.${col}`, col }));
      return this.withMedians(
        rows,
        cols,
        values
          ? this.medians(
              keyed,
              'temp.agg_v m',
              keyed.map((k) => `${k.expr} IS NOT NULL`),
              {},
            )
          : null,
      );
    });
  }

  /** Every bucket of the request's groups (one row, the totals, when it has none) within its scope. */
  answer(r: BucketsRequest): RawBucket[] {
    const params: Record<string, string> = {};
    const cols = r.groups.map((_, i) => `k${i}`);
    // A grouping with several keys per document is a join (driving the scan when it comes first), one
    // with one a column of agg_m.
    const joins: string[] = [];
    const where: string[] = [];
    const keyed = r.groups.map((g, i) => {
      const single = SINGLE_KEY[g];
      if (single) {
        where.push(`${single} IS NOT NULL`);
        return { expr: single, col: `k${i}` };
      }
      const table = this.keys(g as MultiGrouping);
      joins.push(joins.length ? ` CROSS JOIN ${table} j${i} ON j${i}.n = m.n` : `${table} j${i} CROSS JOIN temp.agg_m m ON m.n = j${i}.n`);
      return { expr: `j${i}.key`, col: `k${i}` };
    });
    const from = joins.length ? joins.join('') : 'temp.agg_m m';
    r.scope.forEach((s, i) => {
      params[`scope${i}`] = JSON.stringify(s.keys);
      const keys = `(SELECT value FROM json_each(@scope${i}))`;
      const single = SINGLE_KEY[s.grouping];
      if (single) where.push(s.exclude ? `NOT coalesce(${single} IN ${keys}, 0)` : `${single} IN ${keys}`);
      else where.push(`m.n ${s.exclude ? 'NOT ' : ''}IN (SELECT n FROM ${this.keys(s.grouping as MultiGrouping)} WHERE key IN ${keys})`);
    });
    const values = r.metrics === 'all';
    const rows = this.db
      .prepare(
        `SELECT ${[...keyed.map((k) => `${k.expr} AS ${k.col}`), ''].join(', ')}${DOCUMENT_METRICS},
           ${this.valueMetrics(values)} FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}${cols.length ? ` GROUP BY ${cols.join(', ')}` : ''}`,
      )
      .all(params) as Record<string, unknown>[];
    return this.withMedians(rows, cols, values ? this.medians(keyed, from, where, params) : null);
  }

  /** The counted contracts and their value of a bucket (none asked: zeros). */
  private valueMetrics(values: boolean): string {
    return values ? 'count(m.value) AS contracts, coalesce(sum(m.value), 0) AS valueCents' : '0 AS contracts, 0 AS valueCents';
  }

  /** Each bucket's median value in cents (aggregate.ts medianOf), by its keys joined with NUL, over the counted contracts of `from` passing `where`. */
  private medians(keyed: { expr: string; col: string }[], from: string, where: string[], params: Record<string, string>): Map<string, number> {
    const keys = keyed.map((k) => k.expr);
    const rows = this.db
      .prepare(
        `SELECT ${[...keys, ''].join(', ')}value, count(*) FROM ${from} WHERE ${['value IS NOT NULL', ...where].join(' AND ')}
         GROUP BY ${[...keys, 'value'].join(', ')} ORDER BY ${[...keys, 'value'].join(', ')}`,
      )
      .raw()
      .all(params) as unknown[][];
    const lists = new Map<string, [number, number][]>();
    for (const row of rows) {
      const key = row.slice(0, keys.length).map(String).join('\u0000');
      const list = lists.get(key) ?? [];
      list.push([row[keys.length] as number, row[keys.length + 1] as number]);
      lists.set(key, list);
    }
    return new Map([...lists].map(([key, list]) => [key, medianOf(list)!]));
  }

  /** Rows of keys and metrics as buckets, each with its median (null without counted contracts). */
  private withMedians(rows: Record<string, unknown>[], cols: string[], medians: Map<string, number> | null): RawBucket[] {
    return rows.map((row) => {
      const keys = cols.map((c) => String(row[c]));
      for (const c of cols) delete row[c];
      return { ...(row as unknown as Omit<RawBucket, 'keys' | 'medianCents'>), medianCents: medians?.get(keys.join('\u0000')) ?? null, keys };
    });
  }

  /** The documents of each key of `grouping` (a facet): per set for the keys of several, merged. */
  counts(grouping: Grouping): Map<string, number> {
    const out = new Map<string, number>();
    const add = (rows: [string, number][]) => {
      for (const [key, documents] of rows) out.set(key, (out.get(key) ?? 0) + documents);
    };
    const single = SINGLE_KEY[grouping];
    if (single) add(this.db.prepare(`SELECT ${single}, count(*) FROM temp.agg_m m WHERE ${single} IS NOT NULL GROUP BY 1`).raw().all() as [string, number][]);
    else {
      for (const { set, lo, hi } of this.ranges) {
        const sql = `SELECT k.key, count(*) FROM temp.agg_m m CROSS JOIN ${set.side.keys} k ON k.rid = m.rid AND k.kind = ? WHERE m.n BETWEEN ? AND ? GROUP BY k.key`;
        add(this.db.prepare(sql).raw().all(grouping, lo, hi) as [string, number][]);
      }
    }
    return out;
  }

  /** Drops the temporary tables (also those a failed aggregate may have left on this connection). */
  dropTemp(): void {
    for (const table of TEMP) this.db.exec(`DROP TABLE IF EXISTS temp.${table}`);
  }
}
