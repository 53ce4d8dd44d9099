// An alert profile record as the store reads it, with the given filters, for matching documents without a
// database (api/alerts/match.ts profileMatcher).
import { emptyFilters, type Filters } from '../../api/alerts/input.js';
import { DocumentText, profileMatcher } from '../../api/alerts/match.js';
import type { ProfileRecord } from '../../api/alerts/store.js';

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
