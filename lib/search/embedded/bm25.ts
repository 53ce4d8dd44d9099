// A bit-exact replica of FTS5's bm25() (sqlite/ext/fts5/fts5_aux.c, fts5Bm25Function) for one-phrase
// queries, so documents ranked from a common-term list (HotLists.top, hot-lists.ts) get exactly the score FTS5 would give
// them, and pages served from a list join seamlessly with pages ranked by FTS5 itself.
//
// FTS5:  score = -1 * idf * (f * (k1 + 1)) / (f + k1 * (1 - b + b * D / avgdl))
//        idf   = log((N - n + 0.5) / (n + 0.5)), or 1e-6 when <= 0
// with f the column-weighted count of the term in the row, D the row's token count (all columns),
// N and the token total from the table's averages record, n the rows containing the term. The same
// IEEE operations in the same order give the same doubles; the logarithm comes from SQLite's own ln()
// (the same libm log() FTS5 calls), not Math.log, whose last bit may differ.
// k1, b and the column weights: index-mappings/ranking.ts.
import type { Database, Statement } from 'better-sqlite3';
import { BM25_B as B, BM25_K1 as K1 } from '../../../index-mappings/ranking.js';

export interface TableTotals {
  /** Rows in the FTS table (FTS5's xRowCount). */
  rows: number;
  /** Tokens in all columns of all rows (FTS5's xColumnTotalSize(-1)). */
  tokens: number;
}

/** Decodes FTS5's averages record (rowid 1 of `<table>_data`): a varint row count, then one varint
 * token total per column. SQLite varints: 7 bits per byte, high bit set = more, 9th byte 8 bits. */
export function decodeAverages(block: Buffer | null | undefined): TableTotals {
  if (!block || block.length === 0) return { rows: 0, tokens: 0 };
  const values: number[] = [];
  let i = 0;
  while (i < block.length) {
    let v = 0;
    for (let k = 1; ; k++) {
      const byte = block[i++];
      if (k === 9) {
        v = v * 256 + byte;
        break;
      }
      v = v * 128 + (byte & 0x7f);
      if (!(byte & 0x80)) break;
    }
    values.push(v);
  }
  const [rows = 0, ...columns] = values;
  return { rows, tokens: columns.reduce((a, b) => a + b, 0) };
}

export function avgdl(t: TableTotals): number {
  return t.tokens / t.rows;
}

/** FTS5's idf for a phrase found in `n` of `rows` rows. */
const lnStatements = new WeakMap<Database, Statement>();

export function idf(db: Database, rows: number, n: number): number {
  let ln = lnStatements.get(db);
  if (!ln) lnStatements.set(db, (ln = db.prepare('SELECT ln(?)').pluck()));
  const x = ln.get((rows - n + 0.5) / (n + 0.5)) as number | null;
  return x !== null && x > 0 ? x : 1e-6;
}

/** FTS5's bm25() value (negative; smaller is better) for a one-phrase query. */
export function bm25Score(idfValue: number, f: number, docTokens: number, avg: number): number {
  let score = 0.0;
  score += idfValue * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * docTokens) / avg)));
  return -1.0 * score;
}

/**
 * The part of the score that orders documents for one term, as a real number: score decreases as
 * `cost` grows (score = idf * (k1+1) / (1 + k1 * cost)). Used for bounds, never for ordering.
 */
export function cost(f: number, docTokens: number, avg: number): number {
  return (1 - B + (B * docTokens) / avg) / f;
}
