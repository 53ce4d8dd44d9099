// Index settings: shards and the analysis chain. The one home of analyzer and normalizer names.
//
// Only standard Elasticsearch filter types are used (`lowercase` with `language: greek`, `stemmer`,
// `asciifolding`, `stop`), so these settings work unchanged on a full Elasticsearch distribution. The
// integ-test distribution the tests run lacks the analysis-common module; scripts/elasticsearch.sh
// installs a stand-in plugin providing exactly these types (scripts/elasticsearch-analysis-shim/).

/** Analyzer for Greek text (and the Latin words in it). */
export const GREEK_ANALYZER = 'pdi_greek';
/** Analyzer for English text: the `.en` sub-fields. */
export const ENGLISH_ANALYZER = 'pdi_english';
/** Keyword normalizer: case, Greek tonos/dialytika/final sigma and Latin accents folded. */
export const FOLDED_NORMALIZER = 'pdi_folded';

/**
 * Lucene's Greek stop set (`_greek_`), word for word, in the folded form the filter sees (after the
 * Greek lowercase filter: no tonos, σ for ς). Spelled out because the query builder must know which
 * words the Greek analysis drops (lib/search/elasticsearch/queries.ts buildTextQuery).
 */
export const GREEK_STOP_WORDS: readonly string[] = (
  'ο η το οι τα του τησ των τον την και κι κ ειμαι εισαι ειναι ειμαστε ειστε στο στον στη στην μα αλλα απο ' +
  'για προσ με σε ωσ παρα αντι κατα μετα θα να δε δεν μη μην επι ενω εαν αν τοτε που πωσ ποιοσ ποια ποιο ' +
  'ποιοι ποιεσ ποιων ποιουσ αυτοσ αυτη αυτο αυτοι αυτων αυτουσ αυτεσ αυτα εκεινοσ εκεινη εκεινο εκεινοι ' +
  'εκεινεσ εκεινα εκεινων εκεινουσ οπωσ ομωσ ισωσ οσο οτι'
).split(' ');

/** Lucene's English stop set (`_english_`), word for word, for the same reason. */
export const ENGLISH_STOP_WORDS: readonly string[] = (
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these ' + 'they this to was will with'
).split(' ');

/**
 * Hits one search may skip or return (from + size, or size after search_after): the step of a deep
 * walk (lib/search/elasticsearch/paging.ts). Ten times Elasticsearch's default, so a jump deep into a large
 * result set takes a tenth of the passes, each scoring every match once. Pages within the first
 * 10,000 hits still use plain from/size.
 */
export const MAX_RESULT_WINDOW = 100_000;

/** Shards and replicas of a new index (PDI_ES_SHARDS, PDI_ES_REPLICAS; docs/operations.md sizing). */
export interface ShardLayout {
  shards: number;
  /** null: one replica as soon as there is a second node to hold it; a single node stays green. */
  replicas: number | null;
}

export function buildSettings(layout: ShardLayout = { shards: 1, replicas: null }): Record<string, unknown> {
  return {
    index: {
      number_of_shards: layout.shards,
      max_result_window: MAX_RESULT_WINDOW,
      ...(layout.replicas === null ? { auto_expand_replicas: '0-1' } : { number_of_replicas: layout.replicas }),
      // No refresh_interval: left to Elasticsearch's default, which refreshes every second while the
      // shard is being searched and skips refreshes once nobody searched it for 30 s ("search idle").
      // An ingest with no readers then writes fewer, larger segments, with fewer vector graphs to build
      // and merge (real-model ingest 44 -> 59 docs/s here); the first search after idle refreshes and
      // waits for it, so a new document is still visible to the next search. Rebuilds load with
      // refreshes off and refresh at the end.
    },
    analysis: {
      filter: {
        // GreekLowerCaseFilter: lower-cases and removes tonos and dialytika, and maps final sigma to
        // sigma, so απόφαση, ΑΠΌΦΑΣΗ and αποφαση are one term.
        pdi_greek_lowercase: { type: 'lowercase', language: 'greek' },
        // Lucene's Greek stop set is stored in that folded form, hence after the lowercase filter.
        pdi_greek_stop: { type: 'stop', stopwords: [...GREEK_STOP_WORDS] },
        // GreekStemFilter expects folded input; συμβάσεις and σύμβαση both become συμβασ.
        pdi_greek_stemmer: { type: 'stemmer', language: 'greek' },
        pdi_asciifolding: { type: 'asciifolding', preserve_original: false },
        pdi_english_possessive: { type: 'stemmer', language: 'possessive_english' },
        pdi_english_stop: { type: 'stop', stopwords: [...ENGLISH_STOP_WORDS] },
        // Porter, as Elasticsearch's own `english` analyzer uses.
        pdi_english_stemmer: { type: 'stemmer', language: 'english' },
      },
      analyzer: {
        [GREEK_ANALYZER]: {
          type: 'custom',
          tokenizer: 'standard',
          filter: ['pdi_greek_lowercase', 'pdi_asciifolding', 'pdi_greek_stop', 'pdi_greek_stemmer'],
        },
        [ENGLISH_ANALYZER]: {
          type: 'custom',
          tokenizer: 'standard',
          // The Greek lower-casing here too (on Latin letters it is plain lower-casing): a Greek stop
          // word, which the Greek analysis drops, is found through this analysis, and it must fold as
          // Greek does (ΤΗΣ, της and τησ one term), or a query's hits depended on how it was typed.
          filter: ['pdi_english_possessive', 'pdi_greek_lowercase', 'pdi_asciifolding', 'pdi_english_stop', 'pdi_english_stemmer'],
        },
      },
      normalizer: {
        [FOLDED_NORMALIZER]: { type: 'custom', filter: ['pdi_greek_lowercase', 'pdi_asciifolding'] },
      },
    },
  };
}
