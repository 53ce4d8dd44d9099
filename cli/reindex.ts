// pdi reindex: rebuilds sources' indices from the stored records and swaps them in.
import { SOURCE_NAMES, type SourceName } from '../index-mappings/sources.js';
import { rebuildPastDamage } from '../ingest/recover.js';
import { reindexSource } from '../ingest/reindex.js';
import { SourceBusyError } from '../ingest/state/store.js';
import { parse, sourceArg, stopOnSignals, UsageError, withRuntime, type Command } from './common.js';

const REINDEX_USAGE = `Usage: pdi reindex [SOURCE]
  Rebuilds the index of one source (or all) from the stored normalized records and cached
  embeddings — no refetch; only records without a vector for the current embedding model and text
  recipe are embedded (all of them after a change of either, which it says first) — and swaps it in
  atomically. Of all sources, it also replaces a damaged embedded index (moved aside as
  index.db.damaged-<time>) when no server runs.`;

export const reindexCommand: Command = {
  usage: REINDEX_USAGE,
  async run(argv) {
    const { positionals } = parse({ usage: REINDEX_USAGE }, argv, {}, true);
    if (positionals.length > 1) throw new UsageError(`reindex takes at most one source\n\n${REINDEX_USAGE}`);
    const sources = positionals.length ? [sourceArg(positionals[0], REINDEX_USAGE)] : [...SOURCE_NAMES];
    const signal = stopOnSignals();
    const rebuild = () => withRuntime(async (rt) => {
      if (positionals.length === 0) rt.search.checkStorage?.();
      const skipped: SourceName[] = [];
      for (const source of sources) {
        if (signal.aborted) break;
        const started = Date.now();
        let r;
        try {
          r = await reindexSource(rt, source, {
            signal,
            onStart: ({ documents, uncached, cacheKey }) => {
              if (uncached === 0) return;
              process.stdout.write(`${source}: ${uncached} of ${documents} documents have no cached embedding for ${cacheKey} ` +
                '(the embedding model or its text recipe changed): they are embedded now\n');
            },
            onBatch: (done) => {
              if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${source}: ${done} documents`);
            },
          });
        } catch (err) {
          if (signal.aborted) {
            process.stdout.write(`${source}: ${(err as Error).message}; its previous index keeps serving\n`);
            break;
          }
          // Every source is tried: one being ingested does not keep the others from their rebuild.
          if (!(err instanceof SourceBusyError) || sources.length === 1) throw err;
          process.stdout.write(`${source}: skipped: ${err.message}\n`);
          skipped.push(source);
          continue;
        }
        if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
        process.stdout.write(`${source}: ${r.documents} documents now served by ${r.index} (${r.embedded} embedded, ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
      }
      return skipped;
    });
    // Of every source, a damaged embedded index is replaced (ingest/recover.ts); of one, it is reported.
    const busy = positionals.length > 0 ? await rebuild() : await rebuildPastDamage(rebuild, (message) => process.stdout.write(`${message}\n`));
    if (busy.length > 0) {
      process.stderr.write(`pdi: not rebuilt, being ingested: ${busy.join(', ')}; run pdi reindex SOURCE once they finish\n`);
      process.exitCode = 1;
    }
  },
};
