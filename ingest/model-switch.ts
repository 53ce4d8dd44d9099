// The pinned model without configuration. With neither PDI_MODEL_DIR nor PDI_EMBED_URL (and
// PDI_MODEL_FETCH not 0), a process uses the model in the cache (scripts/fetch-model.sh's folder); the
// server fetches it there in the background when it is missing, serving with the lexical fallback
// meanwhile, then rebuilds every source with the model's vectors (one new generation, swapped in as
// `pdi reindex` swaps) and serves with the model from then on, without a restart.
import { setTimeout as wait } from 'node:timers/promises';
import { SOURCE_NAMES, type SourceName } from '../index-mappings/sources.js';
import type { Config } from '../lib/config.js';
import {
  createEmbedder,
  type CreateEmbedderOptions,
  fallbackEmbedder,
  HashingEmbedder,
  ModelEmbedder,
  PINNED_MODEL_ID,
  pinnedModelDir,
} from '../lib/embedding/index.js';
import { fetchModel, modelComplete, NO_PYTHON_WARNING, pythonProblem } from '../lib/embedding/model-fetch.js';
import { SwitchableEmbedder } from '../lib/embedding/switchable-embedder.js';
import type { Logger } from '../lib/logger.js';
import { recordedEmbedding } from '../lib/search/index.js';
import { seedDemoVectors } from './demo-vectors.js';
import type { PipelineDeps } from './pipeline.js';
import { reindex } from './reindex.js';
import { embeddingCacheKey } from './stages/embed.js';
import { type RunFailure, runFailure } from './run-failure.js';
import { SourceBusyError } from './state/store.js';

export interface ChosenEmbedder {
  /** What the engine is opened with: the embedder whose vectors the index holds. */
  embedder: SwitchableEmbedder;
  /** The model to switch to: in the cache (`dir`), or to be fetched first (`dir` null); null: none. */
  upgrade: { dir: string | null } | null;
}

/** Whether the pinned model comes without configuration (the module comment). */
export function automaticModel(config: Config): config is Config & { cacheDir: string } {
  return config.modelFetch && config.modelDir === null && config.embedService === null && config.cacheDir !== null;
}

/**
 * The embedder a process opens the engine with. Automatic: the cached model, unless the index holds the
 * lexical fallback's vectors (a switch not yet made, or cut short), or the model is not fetched yet.
 */
export async function chooseEmbedder(
  config: Config,
  log: Logger,
  opts: Pick<CreateEmbedderOptions, 'warnOnEmbed' | 'serviceDimension'> = {},
): Promise<ChosenEmbedder> {
  if (!automaticModel(config)) {
    return {
      embedder: new SwitchableEmbedder(await createEmbedder({ modelDir: config.modelDir, service: config.embedService, logger: log, ...opts })),
      upgrade: null,
    };
  }
  const fallback = new HashingEmbedder();
  const dir = pinnedModelDir(config.cacheDir);
  if (!modelComplete(dir)) {
    // The server says why itself (it fetches the model, or names what to install); a command says so when it embeds.
    const unfetched = opts.warnOnEmbed
      ? fallbackEmbedder(
          fallback,
          (id) =>
            log.warn(
              { embedder: id },
              `the embedding model is not fetched yet (npm start fetches it, as scripts/fetch-model.sh does): semantic search runs on the lexical fallback ${id}`,
            ),
          true,
        )
      : fallback;
    return { embedder: new SwitchableEmbedder(unfetched), upgrade: { dir: null } };
  }
  if ((await recordedEmbedding(config, log))?.model === fallback.id) {
    log.info(
      { embedder: fallback.id, model: PINNED_MODEL_ID },
      'the index holds vectors of the lexical fallback: it serves until they are rebuilt with the embedding model',
    );
    return { embedder: new SwitchableEmbedder(fallback), upgrade: { dir } };
  }
  return { embedder: new SwitchableEmbedder(await createEmbedder({ modelDir: dir, logger: log })), upgrade: null };
}

export interface ModelSwitchDeps {
  config: Config & { cacheDir: string };
  /** The server's embedder, switched to the model once the index holds its vectors. */
  embedder: SwitchableEmbedder;
  /** The server's pipeline (its embedder is `embedder`). */
  pipeline: PipelineDeps;
  /** The server's ingest jobs: the rebuild runs when no scheduled ingest or demo load does (IngestJobs.exclusive). */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  log: Logger;
}

/** How often the switch asks again for a source that another process is ingesting. */
const BUSY_RETRY_MS = 5_000;

/**
 * Fetches the model when `upgrade.dir` is null (or warns once that Python is missing), loads it,
 * rebuilds every source with its vectors and switches the server's embedder to it. Never throws; a
 * failure leaves the fallback serving and says why. `stop()` ends it (the server stops).
 */
export function startModelSwitch(deps: ModelSwitchDeps, upgrade: { dir: string | null }): { done: Promise<void>; stop(): Promise<void> } {
  const abort = new AbortController();
  const done = switchToModel(deps, upgrade, abort.signal);
  return {
    done,
    async stop() {
      abort.abort('the server shut down');
      await done;
    },
  };
}

async function switchToModel(deps: ModelSwitchDeps, upgrade: { dir: string | null }, signal: AbortSignal): Promise<void> {
  const { config, log } = deps;
  let model: ModelEmbedder | null = null;
  try {
    let dir = upgrade.dir;
    if (dir === null) {
      const problem = pythonProblem(config.python);
      if (problem !== null) {
        log.warn({ python: config.python, problem, embedder: deps.embedder.id }, NO_PYTHON_WARNING);
        return;
      }
      log.info(
        { cacheDir: config.cacheDir, embedder: deps.embedder.id },
        'fetching the embedding model in the background (PDI_MODEL_FETCH=0 turns this off); semantic search runs on the lexical fallback meanwhile',
      );
      dir = await fetchModel({ cacheDir: config.cacheDir, python: config.python, log, signal });
    }
    const started = Date.now();
    model = await ModelEmbedder.load(dir);
    log.info({ embedder: model.id, loadMs: model.loadMs }, 'embedding model loaded: rebuilding the index with its vectors');
    if (model.dimension !== deps.embedder.dimension) {
      throw new Error(
        `its vectors have ${model.dimension} dimensions, the index's ${deps.embedder.dimension}: run pdi reindex with PDI_MODEL_DIR=${dir} against a new PDI_DATA_DIR`,
      );
    }
    const loaded = model;
    await deps.exclusive(async () => {
      signal.throwIfAborted();
      const seeded = seedDemoVectors(deps.pipeline.documents, embeddingCacheKey(loaded));
      const runs = await holdSources(deps.pipeline, signal);
      let failure: RunFailure | null = null;
      let result: Awaited<ReturnType<typeof reindex>> | null = null;
      try {
        result = await reindex({ ...deps.pipeline, embedder: loaded }, 'all', { signal });
        deps.embedder.switchTo(loaded);
      } catch (err) {
        failure = runFailure(err, signal);
        throw err;
      } finally {
        for (const [source, id] of runs) {
          const n = result?.bySource[source] ?? 0;
          deps.pipeline.state.endRun(source, id, { fetched: n, new: 0, updated: n, unchanged: 0, failed: 0 }, failure, log);
        }
      }
      log.info(
        { embedder: loaded.id, documents: result!.documents, embedded: result!.embedded, seeded, ms: Date.now() - started },
        'serving with the embedding model: ask and semantic reads use it from now on',
      );
    });
  } catch (err) {
    if (deps.embedder.id !== model?.id) await model?.dispose();
    if (signal.aborted) return;
    log.warn(
      { err: (err as Error).message, embedder: deps.embedder.id },
      'the embedding model could not be switched to; semantic search stays on the lexical fallback until the next start tries again',
    );
  }
}

/**
 * Every source's lock, as a run of kind reindex, so that no `pdi ingest` of another process writes
 * vectors of the fallback meanwhile; a source another process holds is asked for again until it is free.
 */
async function holdSources(deps: PipelineDeps, signal: AbortSignal): Promise<Map<SourceName, number>> {
  const runs = new Map<SourceName, number>();
  try {
    for (const source of SOURCE_NAMES) {
      for (;;) {
        signal.throwIfAborted();
        try {
          runs.set(source, deps.state.beginRun(source, 'reindex'));
          break;
        } catch (err) {
          if (!(err instanceof SourceBusyError)) throw err;
          deps.log.info({ source }, 'embedding model switch: another process is ingesting the source; waiting for it');
          await wait(BUSY_RETRY_MS, undefined, { signal });
        }
      }
    }
    return runs;
  } catch (err) {
    for (const [source, id] of runs)
      deps.state.endRun(source, id, { fetched: 0, new: 0, updated: 0, unchanged: 0, failed: 0 }, runFailure(err, signal), deps.log);
    throw err;
  }
}
