// ΡΑΑΕΥ (ex-ΡΑΕ) geoportal: GeoServer WFS 2.0 layers of energy licences (docs/upstream-sources.md §1.7).
// Features carry no modification date, so change detection compares snapshots (diffSnapshots, fetch.ts).

export interface RaeFeature {
  type: 'Feature';
  /** GeoServer's `<layer local name>.<fid>`, e.g. `V_SDI_R_PHOTOVOLTAICS_ALL.1`. */
  id?: string | number;
  geometry?: unknown;
  properties: Record<string, unknown> | null;
}

export interface RaeFeatureCollection {
  type: 'FeatureCollection';
  features: RaeFeature[];
  numberMatched?: number | string;
  numberReturned?: number;
  totalFeatures?: number | string;
}

/** One feature with the layer it came from (local name, without the `rae_status:` namespace). */
export interface RaeRecord {
  layer: string | null;
  feature: RaeFeature;
}

/** What a layer holds: the licence kind (our doc_type) and readable labels. */
export interface RaeLayerInfo {
  /** doc_type: `production_licence`, `installation_licence`, `operation_licence`, `application`, or `licence` for mixed layers. */
  kind: string;
  /** Greek label of the kind, for titles and content. */
  kindLabel: string;
  technology: string;
}

/** Known layers by local name. The `…_ALL` layers mix stages; their stage is in `katastash_descr`. */
export const LAYERS: Record<string, RaeLayerInfo> = {
  V_SDI_R_PHOTOVOLTAICS11: { kind: 'production_licence', kindLabel: 'Άδεια παραγωγής', technology: 'Φωτοβολταϊκός σταθμός' },
  V_SDI_R_PHOTOVOLTAICS12: { kind: 'installation_licence', kindLabel: 'Άδεια εγκατάστασης', technology: 'Φωτοβολταϊκός σταθμός' },
  V_SDI_R_PHOTOVOLTAICS13: { kind: 'operation_licence', kindLabel: 'Άδεια λειτουργίας', technology: 'Φωτοβολταϊκός σταθμός' },
  V_SDI_R_PHOTOVOLTAICS7: { kind: 'application', kindLabel: 'Αίτηση σε αξιολόγηση', technology: 'Φωτοβολταϊκός σταθμός' },
  V_SDI_R_PHOTOVOLTAICS_ALL: { kind: 'licence', kindLabel: 'Άδεια ή αίτηση', technology: 'Φωτοβολταϊκός σταθμός' },
  V_SDI_R_AIOLIKA_ALL: { kind: 'licence', kindLabel: 'Άδεια ή αίτηση', technology: 'Αιολικός σταθμός' },
  V_SDI_R_ANEMOGENNHTRIES11: { kind: 'production_licence', kindLabel: 'Άδεια παραγωγής (ανεμογεννήτριες)', technology: 'Αιολικός σταθμός' },
  V_HYDRO_GROUPED_ALL: { kind: 'licence', kindLabel: 'Άδεια ή αίτηση', technology: 'Υδροηλεκτρικός σταθμός' },
};

export const UNKNOWN_LAYER: RaeLayerInfo = { kind: 'licence', kindLabel: 'Άδεια ή αίτηση', technology: 'Σταθμός ηλεκτροπαραγωγής' };

/**
 * Layers fetched by default: the four photovoltaic stages (so a licence moving from application to
 * production to installation to operation shows up as a change of layer), and the wind and hydro layers.
 * Left out: `V_SDI_R_PHOTOVOLTAICS_ALL` (the same licences again as the stage layers), turbine positions
 * (`V_SDI_R_ANEMOGENNHTRIES11`, one point per turbine) and `V_SDI_ISLANDS_HYB_OTHERVALUES` (not licences).
 */
export const DEFAULT_LAYERS = [
  'rae_status:V_SDI_R_PHOTOVOLTAICS7',
  'rae_status:V_SDI_R_PHOTOVOLTAICS11',
  'rae_status:V_SDI_R_PHOTOVOLTAICS12',
  'rae_status:V_SDI_R_PHOTOVOLTAICS13',
  'rae_status:V_SDI_R_AIOLIKA_ALL',
  'rae_status:V_HYDRO_GROUPED_ALL',
];

/** Per layer (local name): feature key (`aa`) → hash of its properties. */
export type RaeSnapshot = Record<string, Record<string, string>>;

/** Keys are `<layer>:<aa>`, so `rae:<key>` is the document's source_id. */
export interface SnapshotDiff {
  added: string[];
  changed: string[];
  removed: string[];
}

export interface RaeCheckpoint {
  snapshots: RaeSnapshot;
  /** What the last run found per layer; `removed` lists source_ids no longer in the layer. */
  changes?: Record<string, { added: number; changed: number; removed: string[] }>;
}

export interface RaeOptions {
  /** Qualified type names (default DEFAULT_LAYERS). */
  layers?: string[];
  /** WFS `count` per request (default 1000). */
  count?: number;
}
