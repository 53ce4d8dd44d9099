// The documents a report is about: the one place that decides which documents belong to an entity.
// The entity resolver (ingest/state/entity-index.ts, the index written at ingest) names them, with the
// names and ΑΦΜs the entity goes by; the full documents are read from the search engine. Both on
// reader threads, in the report's turn (ReadOptions.tenant) among the API's reads.
import { parseEntityQuery, totalsOf, type EntityTotals } from '../../lib/entities.js';
import type { EntityReads } from '../../lib/entity-readers.js';
import type { IndexedDocument } from '../../index-mappings/document.js';
import type { IdentifierType } from '../../lib/identifiers.js';
import type { Entity } from '../../lib/reports/facts.js';
import type { ReadOptions, SearchProvider, StoredDocument } from '../../lib/search/provider.js';

/** Documents a report covers at most; past it the report says it is partial. */
export const MAX_REPORT_DOCUMENTS = 5_000;
/** Documents read from the engine at once. */
const READS_AT_ONCE = 8;

export interface EntityDocuments {
  entity: Entity;
  /** The entity's aggregates: its counts and value over every match, more than were read when capped. */
  totals: EntityTotals;
  truncated: boolean;
}

/** Resolves the entity and hands its documents to `take`, a few at a time, in the resolver's order. */
export async function entityDocuments(
  entities: EntityReads,
  search: SearchProvider,
  identifier: string,
  type: IdentifierType,
  read: ReadOptions,
  take: (documents: StoredDocument[]) => void,
): Promise<EntityDocuments> {
  const query = parseEntityQuery(identifier, type);
  const found = await entities.resolve(query, { limit: MAX_REPORT_DOCUMENTS, offset: 0, years: true }, read);
  const ids = found.matches.map((m) => String(m.source_id));
  for (let i = 0; i < ids.length; i += READS_AT_ONCE) {
    const docs = await Promise.all(ids.slice(i, i + READS_AT_ONCE).map((id) => search.get(id, read)));
    // Without their vectors, which no report reads: the documents are copied to the report's thread.
    take(docs.flatMap((doc) => (doc ? [withoutEmbedding(doc)] : [])));
  }
  const canonical = query.type === 'afm' ? query.afm : query.type === 'ada' ? query.ada : query.identifier.trim();
  return {
    entity: { identifier: canonical, type, names: found.names, afms: found.afm },
    totals: totalsOf(found),
    truncated: found.total > ids.length,
  };
}

function withoutEmbedding({ embedding: _embedding, ...doc }: IndexedDocument): StoredDocument {
  return doc;
}
