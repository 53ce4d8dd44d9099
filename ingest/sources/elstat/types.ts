// ELSTAT publishes no API (docs/upstream-sources.md §1.8); Greece's official series come from Eurostat's
// dissemination API, which ELSTAT feeds: `GET /eurostat/api/dissemination/statistics/1.0/data/{dataset}
// ?geo=EL&…` answers JSON-stat 2.0. The retired `wdds/rest/data/v1.1` service answered a JSON-stat 1.x
// bundle (`{"<dataset>":{…,"dimension":{"id":[…],"size":[…]}}}`); parse() reads both.

/** A Eurostat query: one dataset, filtered to Greece and to the series we want. */
export interface Indicator {
  dataset: string;
  /** Dimension filters (`unit`, `na_item`, …); repeated values become repeated parameters. */
  filters: Record<string, string | string[]>;
  /** How many of the latest periods to ask for (`lastTimePeriod`). */
  lastTimePeriod: number;
}

/**
 * Default indicators: GDP (current prices and volume growth), monthly unemployment rate, HICP annual
 * inflation, nights spent in tourist accommodation.
 */
export const DEFAULT_INDICATORS: Indicator[] = [
  { dataset: 'nama_10_gdp', filters: { na_item: 'B1GQ', unit: ['CP_MEUR', 'CLV_PCH_PRE'] }, lastTimePeriod: 12 },
  { dataset: 'une_rt_m', filters: { s_adj: 'SA', age: 'TOTAL', sex: 'T', unit: 'PC_ACT' }, lastTimePeriod: 24 },
  { dataset: 'prc_hicp_manr', filters: { coicop: 'CP00', unit: 'RCH_A' }, lastTimePeriod: 24 },
  { dataset: 'tour_occ_nim', filters: { c_resid: 'TOTAL', unit: 'NR', nace_r2: 'I551-I553' }, lastTimePeriod: 24 },
];

/**
 * Sector slug of a dataset, by Eurostat code prefix. Where one exists, the slug is the one the CPV-based
 * sectors of the procurement sources use (`hospitality`, `energy`); `economy`, `labour` and `population`
 * have no procurement counterpart.
 */
export const SECTORS: Array<[RegExp, string]> = [
  [/^(nama|namq|gov|ei_|prc_|tec)/, 'economy'],
  [/^(une|lfs|jvs)/, 'labour'],
  [/^tour_/, 'hospitality'],
  [/^(demo|proj)/, 'population'],
  [/^(nrg|ten)/, 'energy'],
];

export interface SeriesDimension {
  id: string;
  label: string;
  code: string;
  codeLabel: string;
}

export interface Observation {
  period: string;
  value: number | null;
  status: string | null;
}

/** One series for Greece: every dimension fixed but time. */
export interface ElstatSeries {
  /** Eurostat dataset code, lower case (`nama_10_gdp`). */
  dataset: string;
  label: string;
  format: 'json-stat-2.0' | 'json-stat-1.x';
  /** The dataset's last update (ISO UTC) when the body says. */
  updated: string | null;
  dimensions: SeriesDimension[];
  observations: Observation[];
  /** Status code → label (`p` → `provisional`). */
  statusLabels: Record<string, string>;
}

/** Resume state: per query (dataset and filters), the `updated` stamp of the last release ingested. */
export interface ElstatCheckpoint {
  updated: Record<string, string>;
}

export interface ElstatOptions {
  indicators?: Indicator[];
}
