// A one-source rebuild in place (generations.ts): the source's new generation is written beside the
// old one in the serving index, its count verified, the alias filter swapped to it in one `_aliases`
// call, and the old generation deleted. It costs that source alone, where a new physical index cost
// copying every other source too (docs/benchmarks-history.md "`pdi reindex SOURCE` in place").
//
// Readers see the old generation until the swap and the new one after it, never both, never neither:
// the filter decides, and a point in time keeps the filter it was opened with. A rebuild killed before
// its swap leaves the old generation serving and a half-written one nobody sees; one killed after it
// leaves the old one unseen. The next rebuild of the source deletes either first.
import type { IndexedDocument } from '../../../index-mappings/document.js';
import { timeStamp } from '../../../index-mappings/index-names.js';
import type { SourceName } from '../../../index-mappings/sources.js';
import type { Logger } from '../../logger.js';
import type { RebuildResult } from '../provider.js';
import { describe, type EngineClient } from './client.js';
import { deleteMatching, unblockWrites } from './generation-ops.js';
import { aliasFilter, ofGeneration, otherGenerations, type Generations } from './generations.js';
import { bulkWrite } from './writes.js';

export interface InPlaceTarget {
  alias: string;
  /** The one physical index behind the alias. */
  index: string;
  /** Each source's generation now serving. */
  gens: Generations;
  source: SourceName;
}

export async function rebuildSourceInPlace(
  engine: EngineClient,
  log: Logger,
  target: InPlaceTarget,
  batches: AsyncIterable<IndexedDocument[]>,
): Promise<RebuildResult> {
  const { alias, index, gens, source } = target;
  const serving = gens.get(source)!;
  // A rebuild of every source killed between its write block and its swap left the index blocked.
  await unblockWrites(engine, log, [index]);
  const left = await deleteMatching(engine, index, otherGenerations(source, serving));
  if (left > 0) log.info({ index, source, documents: left }, 'deleted documents of a generation an earlier rebuild left');
  const stamp = timeStamp();
  const next = new Map(gens).set(source, stamp);
  log.info({ index, source, generation: stamp }, 'rebuild of one source started');
  let loaded = 0;
  try {
    for await (const batch of batches) {
      const stray = batch.find((d) => d.source !== source);
      if (stray) throw new Error(`rebuild of ${source} was given ${stray.source_id} of source ${stray.source}`);
      // Through the alias (require_alias): if another rebuild replaced the index meanwhile, these land
      // in a generation its filter does not list, and the swap below fails.
      const out = await bulkWrite(engine, batch, alias, true, next);
      if (out.failed.length > 0) {
        const first = out.failed[0];
        throw new Error(`rebuild of ${source}: ${out.failed.length} documents failed (${first.source_id}: ${first.error})`);
      }
      loaded += out.written;
    }
    await engine.call('indices.refresh', () => engine.es.indices.refresh({ index }));
    const { count } = await engine.call('count', () => engine.es.count({ index, query: ofGeneration(source, stamp) }));
    if (count !== loaded) throw new Error(`rebuild of ${source}: the index holds ${count} documents of its new generation, ${loaded} were loaded`);
    // The swap, one cluster-state update. `must_exist` on the index: if another rebuild moved the alias
    // to a new index meanwhile, this fails rather than pointing it back.
    await engine.call('indices.update_aliases', () =>
      engine.es.indices.updateAliases({
        actions: [{ remove: { index, alias, must_exist: true } }, { add: { index, alias, is_write_index: true, filter: aliasFilter(next) } }],
      }),
    );
  } catch (err) {
    log.warn({ index, source, error: describe(err) }, 'rebuild failed; the previous generation still serving');
    await deleteMatching(engine, index, ofGeneration(source, stamp)).catch((e: unknown) =>
      log.warn({ index, source, error: describe(e) }, 'could not delete the half-written generation; the next rebuild of the source does'),
    );
    throw err;
  }
  log.info({ index, source, generation: stamp, documents: loaded }, 'rebuild of one source swapped in');
  try {
    await deleteMatching(engine, index, otherGenerations(source, stamp));
  } catch (err) {
    // Unseen already; the next rebuild of the source deletes it.
    log.warn({ index, source, error: describe(err) }, 'could not delete the replaced generation');
  }
  return { source, documents: loaded, bySource: { [source]: loaded }, index };
}
