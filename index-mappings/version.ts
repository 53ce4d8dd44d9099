// The version of the index contract (settings.ts + mapping.ts + the layout of index-names.ts). Physical
// index names carry it (`...-m<MAPPING_VERSION>-...`) and every index records it in `_meta`.
//
// Bump it on any change an existing index cannot take in place: a field added, removed or retyped, an
// analyzer or normalizer changed, `dynamic` rules, the layout, or the embedding model or dimension.
// After a bump, `pdi reindex` rebuilds every source; the serving indices keep answering until then.
// A change that only touches query-time behaviour (boosts, query builders) needs no bump.
// 4: the English analysis folds Greek (tonos, dialytika, final sigma) as the Greek analysis does.
// 5: one searched field (mapping.ts SEARCH_TEXT_FIELD) holds title (written ranking.ts TITLE_WEIGHT times),
//    content, summary and entity names; those fields are no longer searched themselves.
// 6: one physical index for all sources (index-names.ts); `_meta` no longer names a source.
// 7: SEARCH_LATIN_FIELD, the Latin keys of the Greek words of titles and entity names.
// 8: parties (nested role, name, afm), procedure_type, tenders_received and act_date.
// 9: GENERATION_FIELD, and document ids carry their generation (one-source rebuilds in place).
// 10: cpv_labels_en, the English labels of a document's CPV codes (searched through SEARCH_TEXT_FIELD).
// 11: cpv_labels_el, their Greek labels, and both from the official CPV vocabulary for every source.
// 12: ANALYSIS_FIELD (analysis.ts), the keys filters, aggregates and facets read.
// 13: SNIPPET_TEXT_FIELD, the stored text a result's snippet is cut from.
export const MAPPING_VERSION = 13;
