// The one filter value (lib/search/filters.ts) as SQL over a table set's stored `_docs` columns, the
// embedded counterpart of elasticsearch/filter-query.ts. `source` picks the table sets and since/until
// the row-id window (keys.ts ridWindow), so neither is here; the ΑΦΜ and CPV keys are read from the
// stored JSON as index-mappings/analysis.ts analysisKeysOf reads them (analysis-sql.ts).
import type { Filters } from '../filters.js';
import { CPV_CODE, cpvCodesOf, PARTY_AFM, partiesWithAfm } from './analysis-sql.js';

/** Conditions on a `_docs` row named `d`, with their named parameters (all `@f_…`); null when none. */
export interface FilterSql {
  cond: string;
  params: Record<string, string | number>;
}

export function filterSql(f: Filters): FilterSql | null {
  const conds: string[] = [];
  const params: Record<string, string | number> = {};
  for (const role of ['buyer', 'supplier'] as const) {
    if (f[role] === undefined) continue;
    conds.push(`EXISTS (SELECT 1 FROM ${partiesWithAfm('d', role)} AND ${PARTY_AFM} = @f_${role})`);
    params[`f_${role}`] = f[role];
  }
  if (f.party !== undefined) {
    conds.push(`EXISTS (SELECT 1 FROM ${partiesWithAfm('d', null)} AND ${PARTY_AFM} = @f_party)`);
    params.f_party = f.party;
  }
  if (f.cpv !== undefined) {
    conds.push(`EXISTS (SELECT 1 FROM ${cpvCodesOf('d')} AND substr(${CPV_CODE}, 1, ${f.cpv.length}) = @f_cpv)`);
    params.f_cpv = f.cpv;
  }
  if (f.amount_min !== undefined || f.amount_max !== undefined) conds.push(`d.amount ->> 'currency' = 'EUR'`);
  if (f.amount_min !== undefined) {
    conds.push(`d.amount ->> 'value' >= @f_amount_min`);
    params.f_amount_min = f.amount_min;
  }
  if (f.amount_max !== undefined) {
    conds.push(`d.amount ->> 'value' <= @f_amount_max`);
    params.f_amount_max = f.amount_max;
  }
  for (const column of ['procedure_type', 'region', 'doc_category'] as const) {
    if (f[column] === undefined) continue;
    conds.push(`d.${column} = @f_${column}`);
    params[`f_${column}`] = f[column];
  }
  if (f.single_bid) conds.push('d.tenders_received = 1');
  return conds.length ? { cond: conds.join(' AND '), params } : null;
}
