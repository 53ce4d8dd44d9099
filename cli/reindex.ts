// pdi reindex: rebuilds one source's index, or every source's, from the stored records, in one new
// generation swapped in atomically.
import { SOURCE_NAMES, type SourceName } from '../index-mappings/sources.js';
import { rebuildPastDamage } from '../ingest/recover.js';
import { reindex } from '../ingest/reindex.js';
import type { RebuildScope } from '../lib/search/provider.js';
import { parse, sourceArg, stopOnSignals, UsageError, withRuntime, type Command } from './common.js';
import { endProgress, rate, showRebuildProgress } from './progress.js';

const REINDEX_USAGE = `Usage: pdi reindex [SOURCE]
  Rebuilds the index of one source (or of all, in one new generation) from the stored normalized
  records and cached embeddings — no refetch; only records without a vector for the current
  embedding model and text recipe are embedded (all of them after a change of either), which it says
  first — verifies the counts per source and swaps it in atomically; the old index serves until then.
  Of all sources, sources may be ingested meanwhile (their writes are carried into the new
  generation), and a damaged embedded index is replaced (moved aside as index.db.damaged-<time>) when
  no server runs.`;

export const reindexCommand: Command = {
  usage: REINDEX_USAGE,
  async run(argv) {
    const { positionals } = parse({ usage: REINDEX_USAGE }, argv, {}, true);
    if (positionals.length > 1) throw new UsageError(`reindex takes at most one source\n\n${REINDEX_USAGE}`);
    const scope: RebuildScope = positionals.length ? sourceArg(positionals[0], REINDEX_USAGE) : 'all';
    const signal = stopOnSignals();
    const rebuild = () =>
      withRuntime(
        async (rt) => {
          if (scope === 'all') rt.search.checkStorage?.();
          const started = Date.now();
          const label = scope === 'all' ? 'all sources' : scope;
          let total = 0;
          try {
            const r = await reindex(rt, scope, {
              signal,
              onStart: ({ source, documents, uncached, cacheKey }) => {
                total += documents;
                if (uncached === 0) return;
                process.stdout.write(
                  `${source}: ${uncached} of ${documents} documents have no cached embedding for ${cacheKey} ` +
                    '(the embedding model or its text recipe changed): they are embedded now\n',
                );
              },
              onBatch: (done) => showRebuildProgress(label, done, total, Date.now() - started),
            });
            endProgress();
            const ms = Date.now() - started;
            const speed = rate(r.documents, ms);
            const tail = `(${r.embedded} embedded, ${(ms / 1000).toFixed(1)} s${speed ? `, ${speed}` : ''})`;
            if (scope !== 'all') {
              process.stdout.write(`${scope}: ${r.documents} documents now served by ${r.index} ${tail}\n`);
              return;
            }
            for (const source of SOURCE_NAMES) process.stdout.write(`${source}: ${r.bySource[source as SourceName] ?? 0} documents\n`);
            process.stdout.write(`all sources: ${r.documents} documents now served by ${r.index} ${tail}\n`);
          } catch (err) {
            if (!signal.aborted) throw err;
            process.stdout.write(`${label}: ${(err as Error).message}; the previous index keeps serving\n`);
          }
        },
        { rebuilding: true },
      );
    // Of every source, a damaged embedded index is replaced (ingest/recover.ts); of one, it is reported.
    if (scope === 'all') await rebuildPastDamage(rebuild, (message) => process.stdout.write(`${message}\n`));
    else await rebuild();
  },
};
