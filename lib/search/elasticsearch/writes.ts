// Bulk writes of the Elasticsearch adapter: size-bounded requests, each item sent once and, when
// refused, reported with its cause; the caller decides on a retry (ingest/stages/bulk-sink.ts).
import { ANALYSIS_FIELD, analysisKeysOf } from '../../../index-mappings/analysis.js';
import type { IndexedDocument } from '../../../index-mappings/document.js';
import {
  GENERATION_FIELD,
  METADATA_JSON_FIELD,
  SEARCH_LATIN_FIELD,
  SEARCH_TEXT_FIELD,
  SNIPPET_TEXT_FIELD,
  searchText,
} from '../../../index-mappings/mapping.js';
import { latinValues } from '../latin-names.js';
import type { BulkFailure } from '../provider.js';
import type { EngineClient } from './client.js';
import { docId, generationValue, type Generations } from './generations.js';
import { metadataRecord, snippetRecord } from './records.js';

/** Bulk requests stay under this many bytes (estimated) and documents. */
const BULK_MAX_BYTES = 8 * 1024 * 1024;
const BULK_MAX_DOCS = 1_000;

export interface BulkOutcome {
  written: number;
  /** Items that created a new document (the rest overwrote one), by source: what a fresh index must hold. */
  created: Map<string, number>;
  failed: BulkFailure[];
}

/**
 * Bulk-indexes in size-bounded requests, once, each document into its source's generation `gens`:
 * each item refused is reported with its cause, and the caller decides what to send again
 * (ingest/stages/bulk-sink.ts holds the one retry policy).
 */
export async function bulkWrite(engine: EngineClient, docs: IndexedDocument[], index: string, requireAlias: boolean, gens: Generations): Promise<BulkOutcome> {
  const outcome: BulkOutcome = { written: 0, created: new Map(), failed: [] };
  for (const chunk of chunks(docs)) {
    const operations = chunk.flatMap((doc) => {
      const stamp = gens.get(doc.source);
      if (stamp === undefined) throw new Error(`no generation of source ${doc.source} to write ${doc.source_id} into`);
      return [
        { index: { _index: index, _id: docId(doc.source_id, stamp) } },
        {
          ...doc,
          [METADATA_JSON_FIELD]: metadataRecord(doc),
          [SNIPPET_TEXT_FIELD]: snippetRecord(doc),
          [SEARCH_TEXT_FIELD]: searchText(doc),
          [SEARCH_LATIN_FIELD]: latinValues(doc),
          [GENERATION_FIELD]: generationValue(doc.source, stamp),
          [ANALYSIS_FIELD]: analysisKeysOf(doc),
        },
      ];
    });
    const res = await engine.call('bulk', () => engine.es.bulk({ operations, require_alias: requireAlias, refresh: false }));
    res.items.forEach((item, i) => {
      const r = item.index!;
      const doc = chunk[i];
      if (!r.error) {
        outcome.written++;
        if (r.result === 'created') outcome.created.set(doc.source, (outcome.created.get(doc.source) ?? 0) + 1);
        return;
      }
      // 400 is the document itself (mapper_parsing, strict_dynamic_mapping); anything else (403
      // cluster_block: a rebuild swapping generations, or a full disk; 429; 5xx; 404 no index) is
      // the index's state, which passes.
      outcome.failed.push({ source_id: doc.source_id, error: `${r.error.type}: ${r.error.reason ?? ''}`, cause: r.status === 400 ? 'document' : 'index' });
    });
  }
  return outcome;
}

/** Splits documents into bulk requests under BULK_MAX_DOCS and (roughly) BULK_MAX_BYTES. */
function* chunks(docs: IndexedDocument[]): Generator<IndexedDocument[]> {
  let chunk: IndexedDocument[] = [];
  let bytes = 0;
  for (const doc of docs) {
    // An estimate without serialising twice: text fields (UTF-8 up to 2 bytes a Greek letter),
    // the vector at ~20 bytes a number, plus the small fields.
    const size = 2 * (doc.title.length + doc.content.length + doc.summary.length) + 20 * (doc.embedding?.length ?? 0) + 2_000;
    if (chunk.length > 0 && (chunk.length >= BULK_MAX_DOCS || bytes + size > BULK_MAX_BYTES)) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(doc);
    bytes += size;
  }
  if (chunk.length > 0) yield chunk;
}
