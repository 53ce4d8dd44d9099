// The embedded engine's envelope: the corpus size up to which every read keeps p50 ≤ 100 ms and p99 ≤
// 500 ms on two cores (docs/scaling.md "The embedded engine's envelope"). Past it Elasticsearch is the
// engine, and the server's start and `pdi status` say so, with the command that moves the index there.
import type { Logger } from '../logger.js';
import type { SearchProvider } from './provider.js';

/** Builds the Elasticsearch index from the stored documents and vectors: no fetch, no embedding. */
export const MOVE_COMMAND = 'ELASTICSEARCH_URL=… pdi reindex';

/** The warning for an embedded index of `documents`, or null within the envelope. */
export function envelopeWarning(documents: number, envelope: number): string | null {
  if (documents <= envelope) return null;
  const n = (x: number) => x.toLocaleString('en-US');
  return (
    `the embedded engine holds ${n(documents)} documents, past its envelope of ${n(envelope)} (PDI_EMBEDDED_ENVELOPE) within which ` +
    `its reads keep p50 ≤ 100 ms and p99 ≤ 500 ms: move to Elasticsearch with ${MOVE_COMMAND} (docs/operations.md "Moving to Elasticsearch")`
  );
}

/** Said once at the server's start; an index that cannot be read now says nothing here. */
export async function warnPastEnvelope(search: SearchProvider, envelope: number, log: Logger): Promise<void> {
  if (search.engine !== 'embedded') return;
  const documents = await search.stats().then(
    (s) => s.total_documents,
    () => 0,
  );
  const warning = envelopeWarning(documents, envelope);
  if (warning) log.warn({ documents, envelope, move: MOVE_COMMAND }, warning);
}
