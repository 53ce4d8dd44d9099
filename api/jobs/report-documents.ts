// The documents a report is about: the one place that decides which documents belong to an entity.
// The entity resolver (ingest/state/entity-index.ts, the index written at ingest) names them, with the
// names and ΑΦΜs the entity goes by; the full documents are read from the search engine.
import { parseEntityQuery, type EntityIndex } from '../../lib/entities.js';
import type { IdentifierType } from '../../lib/identifiers.js';
import type { Entity } from '../../lib/reports/facts.js';
import type { SearchProvider, StoredDocument } from '../../lib/search/provider.js';

/** Documents a report covers at most; past it the report says it is partial. */
export const MAX_REPORT_DOCUMENTS = 5_000;
/** Documents read from the engine at once. */
const READS_AT_ONCE = 8;

export interface EntityDocuments {
  entity: Entity;
  documents: StoredDocument[];
  /** Matching documents the resolver found (more than documents.length when capped). */
  total: number;
  truncated: boolean;
}

export async function entityDocuments(entities: EntityIndex, search: SearchProvider, identifier: string, type: IdentifierType): Promise<EntityDocuments> {
  const query = parseEntityQuery(identifier, type);
  const found = entities.resolve(query, { limit: MAX_REPORT_DOCUMENTS, offset: 0 });
  const ids = found.matches.map((m) => String(m.source_id));
  const documents: StoredDocument[] = [];
  for (let i = 0; i < ids.length; i += READS_AT_ONCE) {
    const read = await Promise.all(ids.slice(i, i + READS_AT_ONCE).map((id) => search.get(id)));
    for (const doc of read) if (doc) documents.push(doc);
  }
  const canonical = query.type === 'afm' ? query.afm : query.type === 'ada' ? query.ada : query.identifier.trim();
  return {
    entity: { identifier: canonical, type, names: found.names, afms: found.afm },
    documents,
    total: found.total,
    truncated: found.total > ids.length,
  };
}
