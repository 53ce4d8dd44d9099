// pdi ingest / reindex / demo / status: the data engineer's and operator's commands.
import { constants } from 'node:buffer';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ServerLock } from '../../api/server-lock.js';
import { loadDemo } from '../../ingest/demo.js';
import { ingestSource, replayableFiles } from '../../ingest/pipeline.js';
import { reindexSource } from '../../ingest/reindex.js';
import { openRuntime, type Runtime } from '../../ingest/runtime.js';
import { SOURCE_MODULES } from '../../ingest/sources/index.js';
import { SourceBusyError } from '../../ingest/state/store.js';
import { isCalendarDay, utcDay } from '../../lib/clock.js';
import { operatorMessage } from '../../lib/errors.js';
import { createLogger } from '../../lib/logger.js';
import { EmbeddedIndexDamagedError, EmbeddedProvider } from '../../lib/search/embedded.js';
import type { CreateOptions } from '../../lib/search/index.js';
import type { IndexStats } from '../../lib/search/provider.js';
import { resolveSource, SOURCE_NAMES, type SourceName } from '../../index-mappings/sources.js';
import { config, parse, stopOnSignals, UsageError, type Command } from './common.js';
import { showProgress, showSummary } from './progress.js';

const SOURCES = SOURCE_NAMES.join(', ');

async function withRuntime<T>(fn: (rt: Runtime) => Promise<T>, opts: CreateOptions = {}): Promise<T> {
  const cfg = config();
  const rt = await openRuntime(cfg, createLogger(process.env.LOG_LEVEL ?? 'warn', 2), opts);
  try {
    return await fn(rt);
  } finally {
    await rt.close();
  }
}

function sourceArg(name: string | undefined, usage: string): SourceName {
  const source = name ? resolveSource(name) : null;
  if (!source) throw new UsageError(`${name ? `Unknown source: ${name}` : 'A source is required'} (one of ${SOURCES})\n\n${usage}`);
  return source;
}

/** A real calendar day, not after today (UTC): 2026-02-30 is no date, and tomorrow has nothing yet. */
function checkSince(since: string): void {
  if (!isCalendarDay(since)) throw new UsageError(`--since must be a date YYYY-MM-DD, got ${since}\n\n${INGEST_USAGE}`);
  if (since > utcDay(new Date())) throw new UsageError(`--since ${since} is in the future\n\n${INGEST_USAGE}`);
}

async function checkReplayDir(dir: string): Promise<void> {
  let files: string[];
  try {
    files = await replayableFiles(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'ENOTDIR' ? 'is not a directory' : (err as Error).message;
    throw new UsageError(`--from ${dir} ${why}\n\n${INGEST_USAGE}`);
  }
  if (files.length === 0) throw new UsageError(`--from ${dir} holds no .json, .xml or .geojson file\n\n${INGEST_USAGE}`);
  for (const name of files) {
    // stat follows links: a link to nothing is ENOENT. A pipe's read would wait for ever.
    const stat = await fs.stat(path.join(dir, name)).catch(() => null);
    if (!stat?.isFile()) {
      throw new UsageError(`--from: ${name} is not a file (a folder, a pipe or a link to nothing); a saved body is one upstream response per file\n\n${INGEST_USAGE}`);
    }
    // A body is read as one string, and V8 holds none longer than this (a UTF-8 byte is at most one unit).
    const { size } = stat;
    if (size > constants.MAX_STRING_LENGTH) {
      const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;
      throw new UsageError(`--from: ${name} is ${mib(size)}; a saved body must be under ${mib(constants.MAX_STRING_LENGTH)} (one upstream response per file)\n\n${INGEST_USAGE}`);
    }
  }
}

const INGEST_USAGE = `Usage:
  pdi ingest SOURCE [--since YYYY-MM-DD]   fetch from the upstream API (resumes from the checkpoint)
  pdi ingest SOURCE --from DIR              replay saved upstream response bodies, one per file
  pdi ingest --all                          every source, incrementally from its checkpoint
Options:
  --base-url URL   fetch from this address instead of the source's own (a mirror, a replay server)
Sources: ${SOURCES} (e_procurement = kimdis).`;

export const ingestCommand: Command = {
  name: 'ingest',
  summary: 'fetch (or replay) a source through the pipeline into the index',
  usage: INGEST_USAGE,
  async run(argv) {
    const { values, positionals } = parse({ usage: INGEST_USAGE }, argv, {
      since: { type: 'string' }, from: { type: 'string' }, all: { type: 'boolean', default: false }, 'base-url': { type: 'string' },
    }, true);
    const baseUrl = values['base-url'];
    if (baseUrl !== undefined && !/^https?:\/\/\S+$/.test(baseUrl)) throw new UsageError(`--base-url must be an http(s) URL\n\n${INGEST_USAGE}`);
    // The base URL goes into logs, run errors and pdi status: a password in it would be written there.
    const credentials = baseUrl !== undefined && URL.canParse(baseUrl) ? new URL(baseUrl) : null;
    if (credentials && (credentials.username || credentials.password)) {
      throw new UsageError(`--base-url must not carry a user or password (it is logged)\n\n${INGEST_USAGE}`);
    }
    if (values.since !== undefined) checkSince(values.since);
    if (values.all && (positionals.length > 0 || values.from)) throw new UsageError(`--all takes no source and no --from\n\n${INGEST_USAGE}`);
    if (!values.all && positionals.length !== 1) throw new UsageError(`Give one source, or --all\n\n${INGEST_USAGE}`);
    // Mistakes in the command are usage errors, found before a run starts: recorded as a failed run,
    // they turned the source `unavailable` in /v1/sources.
    if (values.from !== undefined) {
      if (values.since !== undefined || baseUrl !== undefined) throw new UsageError(`--from replays saved bodies: it takes no --since or --base-url\n\n${INGEST_USAGE}`);
      await checkReplayDir(values.from);
    }
    const sources = values.all ? [...SOURCE_NAMES] : [sourceArg(positionals[0], INGEST_USAGE)];
    const signal = stopOnSignals();
    const { failures, busy } = await withRuntime(async (rt) => {
      let failures = 0;
      const busy: string[] = [];
      for (const source of sources) {
        if (signal.aborted) break;
        let summary;
        try {
          summary = await ingestSource(rt, SOURCE_MODULES[source], { since: values.since, fromDir: values.from, baseUrl, onProgress: showProgress, signal });
        } catch (err) {
          // One source held by another run does not stop the others (as the schedule and reindex do).
          if (!values.all || !(err instanceof SourceBusyError)) throw err;
          busy.push(`${source} (pid ${err.pid})`);
          continue;
        }
        showSummary(summary);
        if (summary.status === 'failed') failures++;
      }
      return { failures, busy };
    });
    if (busy.length > 0) process.stderr.write(`pdi: not ingested, another run holds them: ${busy.join(', ')}\n`);
    if ((failures > 0 || busy.length > 0) && !signal.aborted) process.exitCode = 1;
  },
};

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

const DEMO_USAGE = `Usage: pdi demo
  Loads the demo corpus (data/demo: saved upstream responses of all eight sources) through the
  real pipeline. npm start does this by itself on an empty index unless PDI_DEMO=0.`;

export const demoCommand: Command = {
  name: 'demo',
  summary: 'load the demo corpus through the pipeline',
  usage: DEMO_USAGE,
  async run(argv) {
    parse({ usage: DEMO_USAGE }, argv, {});
    const signal = stopOnSignals();
    const { runs, notLoaded } = await withRuntime((rt) => loadDemo(rt, { onProgress: showProgress, signal }));
    for (const r of runs) showSummary(r);
    if (notLoaded.length > 0) process.stderr.write(`pdi: not loaded: ${notLoaded.map((n) => `${n.source} (${n.reason})`).join('; ')}\n`);
    if ((runs.some((r) => r.status === 'failed') || notLoaded.length > 0) && !signal.aborted) process.exitCode = 1;
  },
};

const STATUS_USAGE = `Usage: pdi status [--json]
  The engine, the embedding model, and per source: documents indexed, last run, checkpoint.
  Exits 1 when the engine does not answer (the rest is still shown).`;

const STATUS_ENGINE_TIMEOUT_MS = 5_000;

export const statusCommand: Command = {
  name: 'status',
  summary: 'engine, embedder and per-source index and ingest state',
  usage: STATUS_USAGE,
  async run(argv) {
    const { values } = parse({ usage: STATUS_USAGE }, argv, { json: { type: 'boolean', default: false } });
    const report = await withRuntime(async (rt) => {
      // The run log, checkpoints and stored counts live in SQLite: an engine that is down (when they
      // matter most) leaves only the indexed counts unknown, after 5 s at most.
      let stats: IndexStats | null = null;
      let engineError: string | null = null;
      try {
        stats = await rt.search.stats({ signal: AbortSignal.timeout(STATUS_ENGINE_TIMEOUT_MS) });
      } catch (err) {
        engineError = err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${STATUS_ENGINE_TIMEOUT_MS / 1000} s` : operatorMessage(err);
      }
      const runs = rt.state.lastRuns();
      return {
        engine: rt.search.engine,
        engine_error: engineError,
        embedding: { model: rt.embedder.id, dimension: rt.embedder.dimension, fallback: rt.embedder.fallback },
        total_documents: stats?.total_documents ?? null,
        sources: Object.fromEntries(SOURCE_NAMES.map((s) => [s, {
          indexed: stats ? stats.sources[s]?.documents ?? 0 : null,
          stored: rt.documents.count(s),
          rejected: rt.documents.rejectedCount(s),
          last_run: runs.get(s) ?? null,
          running_pid: rt.state.runningPid(s),
          checkpoint: rt.state.checkpoint(s),
        }])),
      };
    }, { tolerateDamage: true });
    if (report.engine_error) process.exitCode = 1;
    if (values.json) {
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      return;
    }
    const documents = report.engine_error ? `UNAVAILABLE (${report.engine_error}): indexed counts unknown` : `${report.total_documents} documents`;
    process.stdout.write(`engine ${report.engine}; embedding ${report.embedding.model} (${report.embedding.dimension}-d${report.embedding.fallback ? ', lexical fallback' : ''}); ${documents}\n`);
    for (const [name, s] of Object.entries(report.sources)) {
      const last = s.last_run;
      // A run whose process ended is shown before the next run closes it: it has no end time yet.
      const run = last ? `last ingest ${last.status} ${last.finished_at ?? `(started ${last.started_at})`}` : 'never ingested';
      const parts = [last?.error ? `${run} (${last.error})` : run];
      if (last?.failed) parts.push(`${last.failed} failed`);
      if (s.running_pid !== null) parts.push(`running now (pid ${s.running_pid})`);
      if (s.checkpoint) parts.push(`checkpoint ${JSON.stringify(s.checkpoint)}`);
      process.stdout.write(`  ${name.padEnd(12)} ${String(s.indexed ?? '?').padStart(7)} indexed ${String(s.stored).padStart(7)} stored ${s.rejected ? `${s.rejected} rejected ` : ''} ${parts.join(', ')}\n`);
    }
  },
};
