// ΜΙΤΟΣ, the national registry of administrative procedures (api.digigov.grnet.gr/v1, docs/upstream-sources.md §1.5).
// Texts arrive either as plain strings or as language maps `{ "el": "…", "en": "…" }`; both are accepted.
// Field names inside steps, conditions and evidences follow public clients of the API (the MITOS MCP spec
// and the Mitos checklist WordPress plugin), since no recorded response is available.

export type Text = string | { el?: string | null; en?: string | null } | null | undefined;

/** An entry of `GET /services?page=N&limit=100` → `data[]`. */
export interface MitosServiceSummary {
  id: string | number;
  title?: Text;
  ns?: unknown;
  last_updated?: string | number | null;
}

/** `GET /services?page=N&limit=100`. */
export interface MitosServicesPage {
  data: MitosServiceSummary[];
  success?: boolean;
  total?: number;
  next_page?: number | null;
  current_page?: number;
  limit?: number;
}

export interface MitosRule {
  rule_type?: Text;
  rule_decision_number?: string | number | null;
  rule_decision_year?: string | number | null;
  rule_article?: Text;
  rule_description?: Text;
  rule_gazette_doc_number?: string | number | null;
  rule_gazette_doc_issue?: Text;
  rule_ada?: string | null;
  rule_url?: string | null;
}

export interface MitosMetadata {
  process?: {
    official_title?: Text;
    description?: Text;
    org_owner?: { title?: Text } | null;
    life_events?: unknown[];
  } | null;
  process_conditions?: Array<Record<string, unknown>> | null;
  process_evidences?: Array<Record<string, unknown>> | null;
  process_evidences_cost?: Array<Record<string, unknown>> | null;
  process_steps?: Array<Record<string, unknown>> | null;
  process_steps_digital?: Array<Record<string, unknown>> | null;
  process_rules?: MitosRule[] | null;
  process_provision_digital_locations?: Array<Record<string, unknown>> | null;
  process_useful_links?: Array<Record<string, unknown>> | null;
  glance?: unknown;
}

/** `data` of `GET /services-extended/{id}`. */
export interface MitosServiceExtended extends MitosServiceSummary {
  metadata?: MitosMetadata | null;
}

/** What parse() yields: a details record, or a list entry (title and date only). */
export type MitosRecord = { kind: 'service_extended'; service: MitosServiceExtended } | { kind: 'service_summary'; service: MitosServiceSummary };

/** Resume state: the `last_updated` value seen for each service whose details were fetched. */
export interface MitosCheckpoint {
  seen: Record<string, string>;
}

export interface MitosOptions {
  /** List page size (the API's `limit`, default 100). */
  pageSize?: number;
}
