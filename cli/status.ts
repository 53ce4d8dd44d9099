// pdi status: the engine, the embedder and per source the index and ingest state. It answers within
// 10 s whatever the engine or the embedding service do: both are asked at once, each for 5 s at most,
// and one that did not answer is named beside everything else (a silent embedding service once kept it
// printing nothing for 150 s).
import { SOURCE_NAMES } from '../index-mappings/sources.js';
import { chooseEmbedder } from '../ingest/model-switch.js';
import { DocumentStore } from '../ingest/state/documents.js';
import { IngestState } from '../ingest/state/store.js';
import { type Config, withoutPassword } from '../lib/config.js';
import { embedderInfo, ServiceEmbedder } from '../lib/embedding/index.js';
import { operatorMessage } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { envelopeWarning } from '../lib/search/envelope.js';
import { readIndexStats } from '../lib/search/index.js';
import type { IndexStats } from '../lib/search/provider.js';
import { printable, printableJson } from '../lib/terminal.js';
import { cliLogger, config, parse, type Command } from './common.js';

const STATUS_USAGE = `Usage: pdi status [--json]
  The data folder read, the engine, the embedding model, and per source: documents indexed, last
  run, checkpoint; a warning when the embedded engine holds more than its envelope.
  Exits 1 when the engine or the embedding service does not answer within 5 s (the rest is still shown).`;

/** How long the engine and the embedding service each have to answer (both at once). */
const STATUS_WAIT_MS = 5_000;

export const statusCommand: Command = {
  usage: STATUS_USAGE,
  async run(argv) {
    const { values } = parse({ usage: STATUS_USAGE }, argv, { json: { type: 'boolean', default: false } });
    const cfg = config();
    const log = cliLogger();
    // The run log, checkpoints and stored counts live in SQLite: an engine that is down (when they
    // matter most) leaves only the indexed counts unknown.
    const [index, embedding] = await Promise.all([indexStatus(cfg, log), embeddingStatus(cfg, log)]);
    const state = new IngestState(IngestState.pathIn(cfg.dataDir));
    const documents = new DocumentStore(DocumentStore.pathIn(cfg.dataDir));
    const { stats } = index;
    let sources;
    try {
      const runs = state.lastRuns();
      sources = Object.fromEntries(
        SOURCE_NAMES.map((s) => [
          s,
          {
            indexed: stats ? (stats.sources[s]?.documents ?? 0) : null,
            stored: documents.count(s),
            rejected: documents.rejectedCount(s),
            last_run: runs.get(s) ?? null,
            running_pid: state.runningPid(s),
            checkpoint: state.checkpoint(s),
          },
        ]),
      );
    } finally {
      documents.close();
      state.close();
    }
    const embedded = index.engine === 'embedded';
    const report = {
      data_dir: cfg.dataDir,
      engine: index.engine,
      engine_url: embedded ? null : withoutPassword(cfg.elasticsearchUrl!),
      engine_error: index.error,
      embedding,
      total_documents: stats?.total_documents ?? null,
      envelope: embedded ? { documents: cfg.embeddedEnvelope, past: stats !== null && stats.total_documents > cfg.embeddedEnvelope } : null,
      sources,
    };
    if (report.engine_error || report.embedding.error) process.exitCode = 1;
    if (values.json) {
      // Run errors and checkpoints may quote an upstream's text: printed as data, not terminal control.
      process.stdout.write(`${printableJson(report)}\n`);
      return;
    }
    const total = report.engine_error ? `UNAVAILABLE (${printable(report.engine_error)}): indexed counts unknown` : `${report.total_documents} documents`;
    // `pdi status` in the wrong folder said "0 documents, never ingested" with no hint of where it looked.
    process.stdout.write(`data folder ${printable(report.data_dir)}${process.env.PDI_DATA_DIR?.trim() ? '' : ' (PDI_DATA_DIR unset: the default)'}\n`);
    process.stdout.write(
      `engine ${report.engine}${report.engine_url ? ` at ${printable(report.engine_url)}` : ''}; embedding ${describeEmbedding(embedding)}; ${total}\n`,
    );
    const warning = embedded && stats ? envelopeWarning(stats.total_documents, cfg.embeddedEnvelope) : null;
    if (warning) process.stdout.write(`warning: ${warning}\n`);
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

/** The engine's counts, or why there are none. */
async function indexStatus(cfg: Config, log: Logger): Promise<{ engine: 'embedded' | 'elasticsearch'; stats: IndexStats | null; error: string | null }> {
  const engine = cfg.elasticsearchUrl ? 'elasticsearch' : 'embedded';
  try {
    return { engine, stats: await readIndexStats(cfg, log, AbortSignal.timeout(STATUS_WAIT_MS)), error: null };
  } catch (err) {
    const error = err instanceof Error && err.name === 'TimeoutError' ? `no answer within ${STATUS_WAIT_MS / 1000} s` : operatorMessage(err);
    return { engine, stats: null, error };
  }
}

interface EmbeddingStatus {
  model: string;
  /** null when the service did not answer. */
  dimension: number | null;
  fallback: boolean;
  service: boolean;
  endpoint: string | null;
  error: string | null;
}

/** The embedder a command would use; a service is asked for one vector, its failure said, not thrown. */
async function embeddingStatus(cfg: Config, log: Logger): Promise<EmbeddingStatus> {
  if (cfg.embedService) {
    const unprobed = ServiceEmbedder.assume(cfg.embedService, 0);
    const named = { model: unprobed.id, fallback: false, service: true, endpoint: unprobed.endpoint };
    try {
      const probed = await ServiceEmbedder.connect(cfg.embedService, STATUS_WAIT_MS);
      return { ...named, dimension: probed.dimension, error: null };
    } catch (err) {
      return { ...named, dimension: null, error: operatorMessage(err) };
    }
  }
  // Warned of when a command embeds: status never does.
  const { embedder } = await chooseEmbedder(cfg, log, { warnOnEmbed: true });
  return { ...embedderInfo(embedder), endpoint: null, error: null };
}

function describeEmbedding(e: EmbeddingStatus): string {
  if (e.error) return `${printable(e.model)} (UNAVAILABLE: ${printable(e.error)})`;
  const where = e.endpoint ? `, from the service ${printable(e.endpoint)}` : ', in this process';
  return `${printable(e.model)} (${e.dimension}-d${e.fallback ? ', lexical fallback' : ''}${where})`;
}
