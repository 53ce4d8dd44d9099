// Upstream shapes of the ΚΗΜΔΗΣ open-data API (docs/upstream-sources.md §1.3). Only the fields we read are
// typed; everything is optional because the five resources share most, not all, keys.

export interface KeyValue {
  key?: string | null;
  value?: string | null;
}

export interface KimdisMember {
  country?: KeyValue | null;
  vatNumber?: string | null;
  greekVatNumber?: boolean | null;
  name?: string | null;
}

export interface KimdisObjectDetail {
  quantity?: number | null;
  costWithoutVAT?: number | string | null;
  vat?: string | null;
  currency?: KeyValue | null;
  shortDescription?: string | null;
  cpvs?: KeyValue[] | null;
}

export interface KimdisRecord {
  referenceNumber: string;
  title?: string | null;
  contractNumber?: string | null;
  submissionDate?: string | null;
  contractSignedDate?: string | null;
  startDate?: string | null;
  endDate?: string | null;
  organization?: KeyValue | null;
  organizationVatNumber?: string | null;
  legalContext?: KeyValue | null;
  contractType?: KeyValue | null;
  procedureType?: KeyValue | null;
  contractingDataDetails?: {
    signers?: KeyValue | null;
    unitsOperator?: KeyValue | null;
    contractingMembersDataList?: KimdisMember[] | null;
  } | null;
  totalCostWithoutVAT?: number | string | null;
  totalCostWithVAT?: number | string | null;
  contractBudget?: number | string | null;
  bidsSubmitted?: number | string | null;
  objectDetailsList?: KimdisObjectDetail[] | null;
  nutsCode?: KeyValue | null;
  nutsCodes?: { nutsCode?: KeyValue | null }[] | null;
  nutsCity?: string | null;
  decisionRelatedAda?: string | null;
  diavgeiaADA?: string | null;
  cancellationADA?: string | null;
  contractRelatedADA?: { number1?: string | null; number2?: string | null; number3?: string | null } | null;
  prevReferenceNo?: string | null;
  noticeReferenceNumber?: string | null;
  auctionRefNo?: string | null;
  paymentRefNo?: string[] | null;
  cancelled?: boolean | null;
  [key: string]: unknown;
}

/** A Spring Data page, the body of `POST /{resource}?page=N`. */
export interface KimdisPage {
  content: KimdisRecord[];
  last: boolean;
  totalElements?: number;
  totalPages?: number;
  number?: number;
  size?: number;
  numberOfElements?: number;
  first?: boolean;
  empty?: boolean;
}

/** The paged resources of the API. */
export type KimdisResource = 'request' | 'notice' | 'auction' | 'contract' | 'payment';

/**
 * Where to resume. With `dateTo` set: finish the day window [dateFrom, dateTo] starting at `resource`
 * (its `page`), then the later resources of that window, then new windows from the day after `dateTo`.
 * With `dateTo` null: start new windows at `dateFrom`, every resource from page 0.
 */
export interface KimdisCheckpoint {
  dateFrom: string;
  dateTo: string | null;
  resource: KimdisResource;
  page: number;
  [key: string]: unknown;
}
