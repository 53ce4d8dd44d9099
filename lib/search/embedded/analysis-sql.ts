// The analysis keys (index-mappings/analysis.ts analysisKeysOf) as SQL over a table set's stored
// columns: the parties' ΑΦΜs and the CPV codes read from their JSON with json_each, the year and month
// cut from published_at. What filter-sql.ts selects on and the aggregates group by.
import type { Grouping } from '../../../index-mappings/analysis.js';

/** A party's ΑΦΜ in the rows partiesWithAfm gives. */
export const PARTY_AFM = `p.value ->> 'afm'`;

/** `json_each(…) p WHERE …`: the parties of row `alias` with an ΑΦΜ, of `role` (any when null). */
export function partiesWithAfm(alias: string, role: 'buyer' | 'supplier' | null): string {
  return `json_each(${alias}.parties) p WHERE ${PARTY_AFM} IS NOT NULL${role ? ` AND p.value ->> 'role' = '${role}'` : ''}`;
}

/** A code's 8 digits in the rows cpvCodesOf gives. */
export const CPV_CODE = 'substr(c.value, 1, 8)';

/** `json_each(…) c WHERE …`: the CPV codes of row `alias` that start with 8 digits. */
export function cpvCodesOf(alias: string): string {
  return `json_each(${alias}.cpv) c WHERE c.value GLOB '${'[0-9]'.repeat(8)}*'`;
}

/** Groupings with one key or none per document, and the SQL expression of it over row `alias`. */
function singleKey(grouping: Grouping, alias: string): string | null {
  switch (grouping) {
    case 'year':
      return `substr(${alias}.published_at, 1, 4)`;
    case 'month':
      return `substr(${alias}.published_at, 1, 7)`;
    case 'source':
    case 'region':
    case 'procedure_type':
    case 'doc_category':
      return `${alias}.${grouping}`;
    default:
      return null;
  }
}

/**
 * `SELECT DISTINCT <alias>.id, <key> AS key FROM <table> <alias>, …`: a row per document of `table`
 * (which has `id` and the stored columns) and each of its keys of `grouping`; a document without one
 * has no row.
 */
export function keyRows(grouping: Grouping, table: string, alias = 'm'): string {
  const single = singleKey(grouping, alias);
  if (single !== null) return `SELECT ${alias}.id, ${single} AS key FROM ${table} ${alias} WHERE ${single} IS NOT NULL`;
  if (grouping === 'buyer' || grouping === 'supplier') {
    return `SELECT DISTINCT ${alias}.id, ${PARTY_AFM} AS key FROM ${table} ${alias}, ${partiesWithAfm(alias, grouping)}`;
  }
  const digits = grouping === 'cpv_division' ? 2 : grouping === 'cpv_group' ? 3 : 8;
  return `SELECT DISTINCT ${alias}.id, substr(c.value, 1, ${digits}) AS key FROM ${table} ${alias}, ${cpvCodesOf(alias)}`;
}
