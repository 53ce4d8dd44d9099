// data.gov.gr legacy query API (docs/upstream-sources.md §1.4): `GET /api/v1/query/{dataset}?date_from&date_to`
// answers a bare JSON array of flat rows, no paging envelope and no dataset name in the body.

/** One row of a dataset, as the API sends it. */
export type DataGovGrRow = Record<string, unknown>;

export type Granularity = 'day' | 'year';

/** What we know about a dataset: how its rows are dated, labelled and summed. */
export interface DatasetProfile {
  name: string;
  /** Greek label used in titles. */
  title: string;
  /** The field holding each row's reference date (ISO date/time) or year. */
  dateField: string;
  granularity: Granularity;
  /** Whether the endpoint honours date_from/date_to; yearly tables are fetched whole. */
  windowed: boolean;
  /** Fields that name a row in the readable listing (area, route, location). */
  labelFields: string[];
  /** Numeric fields whose per-period totals are meaningful. */
  sumFields: string[];
  sector: string | null;
  /** Fields whose joint presence identifies this dataset in a body that does not name it. */
  signature: string[];
}

/** One document's worth of rows: a dataset's rows for one reference period (a day or a year). */
export interface DataGovGrRecord {
  dataset: string;
  /** `YYYY-MM-DD` (day) or `YYYY` (year); null when the rows carry no usable reference date. */
  period: string | null;
  granularity: Granularity;
  rows: DataGovGrRow[];
}

export interface DataGovGrOptions {
  /** Dataset names to fetch (default DEFAULT_DATASETS). */
  datasets?: string[];
  /** Days per request window for windowed datasets (default 30). */
  windowDays?: number;
  /** How far back a first run starts when neither --since nor a checkpoint says (default 30 days). */
  initialLookbackDays?: number;
}

/** Resume state: per dataset, the last `date_to` fetched (YYYY-MM-DD). */
export interface DataGovGrCheckpoint {
  datasets: Record<string, string>;
}

/**
 * Known datasets. Field names come from public clients of the API (Covid-19-Response-Greece,
 * go-data-gov-gr-sdk, data_gov MySQL schemas); unknown datasets fall back to `genericProfile`.
 */
export const PROFILES: Record<string, DatasetProfile> = {
  mdg_emvolio: {
    name: 'mdg_emvolio',
    title: 'Εμβολιασμοί COVID-19 ανά περιφερειακή ενότητα',
    dateField: 'referencedate',
    granularity: 'day',
    windowed: true,
    labelFields: ['area'],
    sumFields: ['dailydose1', 'dailydose2', 'dailydose3', 'daytotal', 'totaldistinctpersons', 'totaldose1', 'totaldose2', 'totaldose3', 'totalvaccinations'],
    sector: 'health',
    signature: ['referencedate', 'areaid', 'totalvaccinations'],
  },
  efet_inspections: {
    name: 'efet_inspections',
    title: 'Έλεγχοι ΕΦΕΤ σε επιχειρήσεις τροφίμων',
    dateField: 'year',
    granularity: 'year',
    windowed: false,
    labelFields: [],
    sumFields: ['inspections', 'violations', 'violating_organizations', 'penalties'],
    sector: 'health',
    signature: ['year', 'inspections', 'violations', 'penalties'],
  },
  mcp_forest_fires: {
    name: 'mcp_forest_fires',
    title: 'Δασικές πυρκαγιές (Πυροσβεστικό Σώμα)',
    dateField: 'start_time',
    granularity: 'day',
    windowed: true,
    labelFields: ['prefecture', 'municipality', 'location'],
    sumFields: [
      'forest_area_burned',
      'woodland_area_burned',
      'grove_area_burned',
      'agricultural_area_burned',
      'low_vegetation_area_burned',
      'firefighters',
      'fire_trucks',
      'helicopters',
    ],
    sector: 'environment',
    signature: ['start_time', 'forest_area_burned', 'fire_station'],
  },
  internet_traffic: {
    name: 'internet_traffic',
    title: 'Κίνηση διαδικτύου (GR-IX)',
    dateField: 'date',
    granularity: 'day',
    windowed: true,
    labelFields: [],
    sumFields: [],
    sector: 'telecommunications',
    signature: ['date', 'avg_in', 'avg_out', 'max_in', 'max_out'],
  },
  sailing_traffic: {
    name: 'sailing_traffic',
    title: 'Ακτοπλοϊκή κίνηση επιβατών και οχημάτων',
    dateField: 'date',
    granularity: 'day',
    windowed: true,
    labelFields: ['departureportname', 'arrivalportname'],
    sumFields: ['passengercount', 'vehiclecount'],
    sector: 'transport',
    signature: ['date', 'departureport', 'arrivalport', 'passengercount'],
  },
};

/** The datasets fetched when none are configured. */
export const DEFAULT_DATASETS = ['mdg_emvolio', 'efet_inspections', 'mcp_forest_fires', 'internet_traffic', 'sailing_traffic'];

const DATE_FIELD_CANDIDATES = ['referencedate', 'date', 'date_hour', 'start_time', 'appprocesstime', 'asofdate', 'publication_date'];

/** A profile for a dataset we hold no profile for, guessed from its rows. */
export function genericProfile(name: string, rows: DataGovGrRow[]): DatasetProfile {
  const first = rows.find((r) => r && typeof r === 'object') ?? {};
  const keys = Object.keys(first);
  const isoLike = (k: string) => typeof first[k] === 'string' && /^\d{4}-\d{2}-\d{2}/.test(first[k] as string);
  const dateField =
    DATE_FIELD_CANDIDATES.find((k) => keys.includes(k) && isoLike(k)) ?? keys.find((k) => /date|time/i.test(k) && isoLike(k)) ?? keys.find(isoLike);
  const yearly = !dateField && keys.includes('year');
  return {
    name,
    title: `data.gov.gr: ${name}`,
    dateField: dateField ?? (yearly ? 'year' : ''),
    granularity: yearly ? 'year' : 'day',
    windowed: !yearly,
    labelFields: [],
    sumFields: [],
    sector: null,
    signature: [],
  };
}

export function profileFor(name: string, rows: DataGovGrRow[] = []): DatasetProfile {
  return PROFILES[name] ?? genericProfile(name, rows);
}
