// geodata.gov.gr runs CKAN (docs/upstream-sources.md §1.6). `package_search` answers
// `{"help":…,"success":true,"result":{"count":N,"results":[dataset…]}}`; `package_show` answers
// `{"success":true,"result":dataset}`.

export interface CkanOrganization {
  id?: string;
  name?: string;
  title?: string | null;
  description?: string | null;
}

export interface CkanResource {
  id?: string;
  name?: string | null;
  url?: string | null;
  format?: string | null;
  description?: string | null;
}

export interface CkanTag {
  name?: string;
  display_name?: string;
}

export interface CkanGroup {
  name?: string;
  title?: string | null;
  display_name?: string | null;
}

/** A CKAN dataset ("package") as package_search / package_show return it. */
export interface CkanDataset {
  id?: string;
  name?: string;
  title?: string | null;
  notes?: string | null;
  metadata_created?: string | null;
  metadata_modified?: string | null;
  organization?: CkanOrganization | null;
  resources?: CkanResource[] | null;
  tags?: CkanTag[] | null;
  groups?: CkanGroup[] | null;
  license_id?: string | null;
  license_title?: string | null;
  author?: string | null;
  maintainer?: string | null;
  url?: string | null;
}

export interface CkanEnvelope {
  help?: string;
  success: boolean;
  result?: { count?: number; results?: CkanDataset[] } | CkanDataset;
  error?: { message?: string; __type?: string } & Record<string, unknown>;
}

/** Resume state: the newest `metadata_modified` already flushed (ISO UTC, seconds). */
export interface GeodataCheckpoint {
  modified_since: string;
}

export interface GeodataOptions {
  /** CKAN `rows` (default 100; CKAN caps it at 1000). */
  rows?: number;
}
