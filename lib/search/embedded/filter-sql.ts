// The one filter value (lib/search/filters.ts) as SQL over a table set's side tables (facts.ts), the
// embedded counterpart of elasticsearch/filter-query.ts. `source` picks the table sets and since/until
// the row-id window (keys.ts ridWindow), so neither is here. Each condition is a set of row ids read
// from an index (`_keys`) or from the narrow `_facts` rows, never from a document's JSON.
import type { Filters } from '../filters.js';
import type { SideTables } from './facts.js';

/** Conditions on a row id, with their named parameters (all `@f_…`); null when none. */
export interface FilterSql {
  /** The conditions on the row id `rid` (an SQL expression: `d.rid`) of the set whose side tables are `side`. */
  cond(side: Pick<SideTables, 'facts' | 'keys'>, rid: string): string;
  params: Record<string, string | number>;
}

/** After every code that starts with a prefix of digits: ':' follows '9'. */
const PAST_DIGITS = ':';

export function filterSql(f: Filters): FilterSql | null {
  const keyConds: ((keys: string) => string)[] = [];
  const factConds: string[] = [];
  const params: Record<string, string | number> = {};
  for (const kind of ['buyer', 'supplier', 'party'] as const) {
    if (f[kind] === undefined) continue;
    keyConds.push((keys) => `SELECT rid FROM ${keys} WHERE kind = '${kind}' AND key = @f_${kind}`);
    params[`f_${kind}`] = f[kind];
  }
  if (f.cpv !== undefined) {
    // A code or a prefix of one: the range of keys that start with it.
    keyConds.push((keys) => `SELECT rid FROM ${keys} WHERE kind = 'cpv' AND key >= @f_cpv AND key < @f_cpv_end`);
    params.f_cpv = f.cpv;
    params.f_cpv_end = f.cpv + PAST_DIGITS;
  }
  // eur is the amount's value when it is in EUR, null otherwise.
  if (f.amount_min !== undefined) {
    factConds.push('eur >= @f_amount_min');
    params.f_amount_min = f.amount_min;
  }
  if (f.amount_max !== undefined) {
    factConds.push('eur <= @f_amount_max');
    params.f_amount_max = f.amount_max;
  }
  for (const column of ['procedure_type', 'region', 'doc_category'] as const) {
    if (f[column] === undefined) continue;
    factConds.push(`${column} = @f_${column}`);
    params[`f_${column}`] = f[column];
  }
  if (f.single_bid) factConds.push('tenders_received = 1');
  if (keyConds.length === 0 && factConds.length === 0) return null;
  return {
    cond: (side, rid) =>
      [
        ...keyConds.map((c) => `${rid} IN (${c(side.keys)})`),
        ...(factConds.length ? [`${rid} IN (SELECT rid FROM ${side.facts} WHERE ${factConds.join(' AND ')})`] : []),
      ].join(' AND '),
    params,
  };
}
