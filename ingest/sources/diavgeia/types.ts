// Upstream shapes of the Δι@ύγεια OpenData API (docs/upstream-sources.md §1.1). Only the fields we read are
// typed; everything is optional because records vary by decision type and age.

export interface DiavgeiaAmount {
  amount?: number | string | null;
  currency?: string | null;
}

export interface DiavgeiaAfmName {
  afm?: string | null;
  afmType?: string | null;
  afmCountry?: string | null;
  name?: string | null;
  enterName?: boolean | null;
}

export interface DiavgeiaSponsor {
  sponsorAFMName?: DiavgeiaAfmName | null;
  expenseAmount?: DiavgeiaAmount | null;
  cpv?: string | string[] | null;
  kae?: string | null;
}

export interface DiavgeiaAmountWithKae {
  sponsorAFMName?: DiavgeiaAfmName | null;
  kae?: string | null;
  amountWithVAT?: number | string | null;
}

/** `extraFieldValues`: its keys depend on the decision type. */
export interface DiavgeiaExtraFields {
  org?: DiavgeiaAfmName | null;
  person?: DiavgeiaAfmName[] | null;
  sponsor?: DiavgeiaSponsor[] | null;
  amountWithKae?: DiavgeiaAmountWithKae[] | null;
  awardAmount?: DiavgeiaAmount | null;
  amountWithVAT?: DiavgeiaAmount | null;
  amountWithoutVAT?: DiavgeiaAmount | null;
  estimatedAmount?: DiavgeiaAmount | null;
  cpv?: string | string[] | null;
  assignmentType?: string | null;
  contestProgressType?: string | null;
  manifestContractType?: string | null;
  relatedDecisions?: unknown;
  textRelatedADA?: unknown;
  documentType?: string | null;
  [key: string]: unknown;
}

export interface DiavgeiaDecision {
  ada: string;
  protocolNumber?: string | null;
  subject?: string | null;
  /** Epoch ms from the live API; ISO strings in re-serialized copies. */
  issueDate?: number | string | null;
  submissionTimestamp?: number | string | null;
  publishTimestamp?: number | string | null;
  organizationId?: string | null;
  unitIds?: string[] | null;
  signerIds?: string[] | null;
  decisionTypeId?: string | null;
  thematicCategoryIds?: string[] | null;
  extraFieldValues?: DiavgeiaExtraFields | null;
  privateData?: boolean | null;
  status?: string | null;
  versionId?: string | null;
  correctedVersionId?: string | null;
  url?: string | null;
  documentUrl?: string | null;
  [key: string]: unknown;
}

export interface DiavgeiaSearchInfo {
  query?: string;
  page: number;
  size: number;
  actualSize: number;
  total: number;
  order?: string;
}

/** `GET /search` and `/search/advanced` response. */
export interface DiavgeiaSearchPage {
  decisions: DiavgeiaDecision[];
  info: DiavgeiaSearchInfo;
}

/**
 * Where to resume. `from`/`to` are ISO instants. With `to` set, finish window [from, to] starting at
 * `page`, then continue with new windows from `to`; with `to` null, start new windows at `from`.
 */
export interface DiavgeiaCheckpoint {
  from: string;
  to: string | null;
  page: number;
  [key: string]: unknown;
}
