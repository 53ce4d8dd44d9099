// pdi status: the engine, the embedder and per source the index and ingest state.
import { SOURCE_NAMES } from '../index-mappings/sources.js';
import { embedderInfo } from '../lib/embedding/index.js';
import { operatorMessage } from '../lib/errors.js';
import type { IndexStats } from '../lib/search/provider.js';
import { printable, printableJson } from '../lib/terminal.js';
import { config, parse, withRuntime, type Command } from './common.js';

const STATUS_USAGE = `Usage: pdi status [--json]
  The data folder read, the engine, the embedding model, and per source: documents indexed, last
  run, checkpoint.
  Exits 1 when the engine does not answer (the rest is still shown).`;

const STATUS_ENGINE_TIMEOUT_MS = 5_000;

export const statusCommand: Command = {
  usage: STATUS_USAGE,
  async run(argv) {
    const { values } = parse({ usage: STATUS_USAGE }, argv, { json: { type: 'boolean', default: false } });
    const dataDir = config().dataDir;
    const report = await withRuntime(
      async (rt) => {
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
          data_dir: dataDir,
          engine: rt.search.engine,
          engine_error: engineError,
          embedding: { ...embedderInfo(rt.embedder), endpoint: rt.embedder.endpoint ?? null },
          total_documents: stats?.total_documents ?? null,
          sources: Object.fromEntries(
            SOURCE_NAMES.map((s) => [
              s,
              {
                indexed: stats ? (stats.sources[s]?.documents ?? 0) : null,
                stored: rt.documents.count(s),
                rejected: rt.documents.rejectedCount(s),
                last_run: runs.get(s) ?? null,
                running_pid: rt.state.runningPid(s),
                checkpoint: rt.state.checkpoint(s),
              },
            ]),
          ),
        };
      },
      { tolerateDamage: true },
    );
    if (report.engine_error) process.exitCode = 1;
    if (values.json) {
      // Run errors and checkpoints may quote an upstream's text: printed as data, not terminal control.
      process.stdout.write(`${printableJson(report)}\n`);
      return;
    }
    const documents = report.engine_error ? `UNAVAILABLE (${printable(report.engine_error)}): indexed counts unknown` : `${report.total_documents} documents`;
    // `pdi status` in the wrong folder said "0 documents, never ingested" with no hint of where it looked.
    process.stdout.write(`data folder ${printable(report.data_dir)}${process.env.PDI_DATA_DIR?.trim() ? '' : ' (PDI_DATA_DIR unset: the default)'}\n`);
    process.stdout.write(
      `engine ${report.engine}; embedding ${report.embedding.model} (${report.embedding.dimension}-d${report.embedding.fallback ? ', lexical fallback' : ''}${report.embedding.endpoint ? `, from the service ${printable(report.embedding.endpoint)}` : ', in this process'}); ${documents}\n`,
    );
    for (const [name, s] of Object.entries(report.sources)) {
      const last = s.last_run;
      // A run whose process ended is shown before the next run closes it: it has no end time yet.
      const run = last ? `last ingest ${last.status} ${last.finished_at ?? `(started ${last.started_at})`}` : 'never ingested';
      const parts = [last?.error ? `${run} (${printable(last.error)})` : run];
      if (last?.failed) parts.push(`${last.failed} failed`);
      if (s.running_pid !== null) parts.push(`running now (pid ${s.running_pid})`);
      if (s.checkpoint) parts.push(`checkpoint ${printable(JSON.stringify(s.checkpoint))}`);
      process.stdout.write(
        `  ${name.padEnd(12)} ${String(s.indexed ?? '?').padStart(7)} indexed ${String(s.stored).padStart(7)} stored ${s.rejected ? `${s.rejected} rejected ` : ''} ${parts.join(', ')}\n`,
      );
    }
  },
};
