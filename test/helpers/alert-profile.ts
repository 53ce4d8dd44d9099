// An alert profile record as the store reads it, with the given filters, for matching documents without a
// database (api/alerts/match.ts profileMatcher), and a document as the watcher reads it from the feed.
import { emptyFilters, type Filters } from '../../api/alerts/input.js';
import { DocumentText, profileMatcher } from '../../api/alerts/match.js';
import type { ProfileRecord } from '../../api/alerts/store.js';
import type { NormalizedDocument } from '../../index-mappings/document.js';

export function profileRecord(filters: Partial<Filters>): ProfileRecord {
  return {
    id: 'p',
    org_id: 'o',
    name: 'n',
    filters: { ...emptyFilters(), ...filters },
    channels: ['email'],
    targets: { notify_email: 'a@example.com' },
    secret_salt: '',
    is_active: true,
    created_at: '2026-01-01T00:00:00Z',
  };
}

/** The source_ids of the documents a profile with these keywords matches, sorted. */
export function alertedBy(keywords: string[], docs: ConstructorParameters<typeof DocumentText>[0][]): string[] {
  const matcher = profileMatcher(profileRecord({ keywords }));
  return docs
    .filter((d) => matcher.matches(new DocumentText(d)))
    .map((d) => d.source_id)
    .sort();
}

/** A KIMDIS contract as ingest stores it in the document store's feed, which the alert watcher reads. */
export function feedDocument(id: string, overrides: Partial<NormalizedDocument> = {}): NormalizedDocument {
  return {
    source_id: `kimdis:${id}`,
    source: 'kimdis',
    country: 'GR',
    title: 'Συντήρηση Πυροσβεστήρων Σχολικών Κτιρίων',
    doc_type: 'contract',
    doc_category: 'contract',
    published_at: '2026-06-11T13:01:21Z',
    source_url: `https://cerpp.eprocurement.gov.gr/${id}`,
    language: 'el',
    quality_score: 0.8,
    content: 'Σύμβαση παροχής υπηρεσιών συντήρησης.',
    summary: 'Συντήρηση πυροσβεστήρων',
    entities: { afm: ['090252840'], ada: [], names: ['ΔΗΜΟΣ ΔΟΚΙΜΗΣ'] },
    parties: [],
    procedure_type: null,
    tenders_received: null,
    act_date: null,
    amount: { value: 5285.2, currency: 'EUR' },
    cpv: [],
    region: 'EL422',
    sector: null,
    ...overrides,
  };
}
