// pdi reindex: rebuilds sources' indices from the stored records and swaps them in.
import fs from 'node:fs/promises';
import path from 'node:path';
import { SOURCE_NAMES, type SourceName } from '../index-mappings/sources.js';
import { reindexSource } from '../ingest/reindex.js';
import { SourceBusyError } from '../ingest/state/store.js';
import { EmbeddedIndexDamagedError, EmbeddedProvider } from '../lib/search/embedded.js';
import { ServerLock } from '../lib/server-lock.js';
import { parse, sourceArg, stopOnSignals, UsageError, withRuntime, type Command } from './common.js';

/** The data directory's server lock, or an error saying the index is damaged and a server holds it. */
function acquireDataDir(damage: EmbeddedIndexDamagedError): ServerLock {
  try {
    return ServerLock.acquire(path.dirname(damage.file));
  } catch (err) {
    throw new Error(`${damage.message}\nNot moved: ${(err as Error).message}`);
  }
}

const REINDEX_USAGE = `Usage: pdi reindex [SOURCE]
  Rebuilds the index of one source (or all) from the stored normalized records and cached
  embeddings — no refetch; only records without a vector for the current embedding model and text
  recipe are embedded (all of them after a change of either, which it says first) — and swaps it in
  atomically. Of all sources, it also replaces a damaged embedded index (moved aside as
  index.db.damaged-<time>) when no server runs.`;

export const reindexCommand: Command = {
  name: 'reindex',
  summary: 'rebuild the index from stored records and swap atomically',
  usage: REINDEX_USAGE,
  async run(argv) {
    const { positionals } = parse({ usage: REINDEX_USAGE }, argv, {}, true);
    if (positionals.length > 1) throw new UsageError(`reindex takes at most one source\n\n${REINDEX_USAGE}`);
    const sources = positionals.length ? [sourceArg(positionals[0], REINDEX_USAGE)] : [...SOURCE_NAMES];
    const signal = stopOnSignals();
    const rebuild = () => withRuntime(async (rt) => {
      if (positionals.length === 0 && rt.search instanceof EmbeddedProvider) rt.search.checkFile();
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
    let busy: SourceName[];
    try {
      busy = await rebuild();
    } catch (err) {
      // The index is a projection of documents.db: rebuilding every source loses nothing, so a damaged
      // file is moved aside (kept for a look) and built anew; not under a server still reading it.
      if (!(err instanceof EmbeddedIndexDamagedError) || positionals.length > 0) throw err;
      const lock = acquireDataDir(err);
      try {
        const aside = `${err.file}.damaged-${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}`;
        for (const suffix of ['', '-wal', '-shm']) {
          await fs.rename(`${err.file}${suffix}`, `${aside}${suffix}`).catch((e: NodeJS.ErrnoException) => {
            if (e.code !== 'ENOENT') throw e;
          });
        }
        process.stdout.write(`${path.basename(err.file)} is damaged (${err.reason}): moved to ${path.basename(aside)}; rebuilding every source from documents.db\n`);
      } finally {
        lock.release();
      }
      busy = await rebuild();
    }
    if (busy.length > 0) {
      process.stderr.write(`pdi: not rebuilt, being ingested: ${busy.join(', ')}; run pdi reindex SOURCE once they finish\n`);
      process.exitCode = 1;
    }
  },
};
