// pdi ingest / demo: the data engineer's commands, fetching or replaying sources through the pipeline.
import { constants } from 'node:buffer';
import fs from 'node:fs/promises';
import path from 'node:path';
import { SOURCE_NAMES } from '../index-mappings/sources.js';
import { loadDemo } from '../ingest/demo.js';
import { ingestSource, replayableFiles } from '../ingest/pipeline.js';
import { SOURCE_MODULES } from '../ingest/sources/index.js';
import { SourceBusyError } from '../ingest/state/store.js';
import { isCalendarDay, utcDay } from '../lib/clock.js';
import { printable } from '../lib/terminal.js';
import { parse, sourceArg, SOURCES, stopOnSignals, UsageError, withRuntime, type Command } from './common.js';
import { showProgress, showSummary } from './progress.js';

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
      throw new UsageError(
        `--from: ${name} is not a file (a folder, a pipe or a link to nothing); a saved body is one upstream response per file\n\n${INGEST_USAGE}`,
      );
    }
    // A body is read as one string, and V8 holds none longer than this (a UTF-8 byte is at most one unit).
    const { size } = stat;
    if (size > constants.MAX_STRING_LENGTH) {
      const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;
      throw new UsageError(
        `--from: ${name} is ${mib(size)}; a saved body must be under ${mib(constants.MAX_STRING_LENGTH)} (one upstream response per file)\n\n${INGEST_USAGE}`,
      );
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
  usage: INGEST_USAGE,
  async run(argv) {
    const { values, positionals } = parse(
      { usage: INGEST_USAGE },
      argv,
      {
        since: { type: 'string' },
        from: { type: 'string' },
        all: { type: 'boolean', default: false },
        'base-url': { type: 'string' },
      },
      true,
    );
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
      if (values.since !== undefined || baseUrl !== undefined)
        throw new UsageError(`--from replays saved bodies: it takes no --since or --base-url\n\n${INGEST_USAGE}`);
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

const DEMO_USAGE = `Usage: pdi demo
  Loads the demo corpus (data/demo: saved upstream responses of all eight sources) through the
  real pipeline. npm start does this by itself on an empty index unless PDI_DEMO=0.`;

export const demoCommand: Command = {
  usage: DEMO_USAGE,
  async run(argv) {
    parse({ usage: DEMO_USAGE }, argv, {});
    const signal = stopOnSignals();
    const { runs, notLoaded } = await withRuntime((rt) => loadDemo(rt, { onProgress: showProgress, signal }));
    for (const r of runs) showSummary(r);
    if (notLoaded.length > 0) process.stderr.write(`pdi: not loaded: ${notLoaded.map((n) => `${n.source} (${printable(n.reason)})`).join('; ')}\n`);
    if ((runs.some((r) => r.status === 'failed') || notLoaded.length > 0) && !signal.aborted) process.exitCode = 1;
  },
};
