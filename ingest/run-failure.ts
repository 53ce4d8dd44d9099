// Why a run failed, said twice: the operator's message (logs, `pdi status`), which may name the
// embeddings endpoint, an upstream's host, a service's own error body or a data-folder path, and a
// short reason that any key of any tier reads (GET /v1/sources, the MCP list_sources tool): one of
// RUN_REASONS, which name no host, path or text of anyone else's.
import { ModelLoadError } from '../lib/embedding/model-embedder.js';
import { EmbeddingServiceError } from '../lib/embedding/service-embedder.js';
import { EngineTimeoutError, EngineUnavailableError, isStorageFull, operatorMessage, stopReason } from '../lib/errors.js';
import { UpstreamError, UpstreamNoAnswer } from './http.js';

/** How a run failed: the operator's message and the client's reason, both kept in the run log. */
export interface RunFailure {
  error: string;
  reason: string;
}

/** The error, and reason, of a run whose process ended (killed, crashed) before it could close the run itself. */
export const INTERRUPTED = 'interrupted: its process ended before the run finished';
export const STOPPED = 'stopped before the end';
const NO_ANSWER = 'the upstream did not answer';
const UPSTREAM_ERROR = 'the upstream answered with an error';
const UNUSABLE = "the upstream's answer could not be used";
const EMBEDDING_SERVICE = 'the embedding service failed';
const EMBEDDING_MODEL = 'the embedding model failed';
const ENGINE = 'the search engine failed';
const STORAGE_FULL = "the server's storage is full";
const SERVER = 'an error on the server';
/** The reason of a run that failed before reasons were recorded: its stored error is the operator's. */
export const UNRECORDED = 'the run failed';

/** Every reason a client may read, in the order docs/api.md lists them. */
export const RUN_REASONS = [
  NO_ANSWER,
  UPSTREAM_ERROR,
  UNUSABLE,
  EMBEDDING_SERVICE,
  EMBEDDING_MODEL,
  ENGINE,
  STORAGE_FULL,
  STOPPED,
  INTERRUPTED,
  SERVER,
  UNRECORDED,
] as const;

/** The failure of a run that threw `err`; stopped when `signal` (the run's) was aborted, whatever surfaced. */
export function runFailure(err: unknown, signal?: AbortSignal): RunFailure {
  if (signal?.aborted) return { error: `${STOPPED}: ${stopReason(signal)}`, reason: STOPPED };
  return { error: operatorMessage(err), reason: clientReason(err) };
}

function clientReason(err: unknown): string {
  if (err instanceof UpstreamNoAnswer) return NO_ANSWER;
  if (err instanceof UpstreamError) return err.status !== null && err.status >= 400 ? UPSTREAM_ERROR : UNUSABLE;
  if (err instanceof EmbeddingServiceError) return EMBEDDING_SERVICE;
  if (err instanceof ModelLoadError) return EMBEDDING_MODEL;
  if (err instanceof EngineUnavailableError || err instanceof EngineTimeoutError) return ENGINE;
  if (isStorageFull(err)) return STORAGE_FULL;
  return SERVER;
}
