// The AppError family: every error a client can see, with its status. Anything else is a 500
// whose message is masked at the edge (api/middleware/errors.ts).

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  constructor(message: string) {
    super(400, message);
  }
}
export class UnauthorizedError extends AppError {
  constructor(message: string) {
    super(401, message);
  }
}
export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, message);
  }
}
export class NotFoundError extends AppError {
  constructor(message: string) {
    super(404, message);
  }
}
export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, message);
  }
}
export class PayloadTooLargeError extends AppError {
  constructor(message: string) {
    super(413, message);
  }
}
export class UnsupportedMediaTypeError extends AppError {
  constructor(message: string) {
    super(415, message);
  }
}
export class ValidationError extends AppError {
  constructor(message: string) {
    super(422, message);
  }
}
/** A 429: the key must wait `retryAfterSeconds`; the API may hold the answer `answerAfterMs` first. */
export class RefusalError extends AppError {
  answerAfterMs = 0;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, message);
  }
}
export class QuotaExceededError extends RefusalError {}
/** More requests of one key (or organization) in flight than it may have at once; not counted against the quota. */
export class TooManyInFlightError extends RefusalError {}
export class NotImplementedError extends AppError {
  constructor(message: string) {
    super(501, message);
  }
}
/** The search engine cannot be reached; the API keeps running and recovers when it returns. */
export class EngineUnavailableError extends AppError {
  /**
   * What happened, for the operator (the log, a failed run, the CLI): clients get only the message,
   * and "unavailable" alone misled when the node answered but one request ran out of time.
   */
  readonly why: string | null;

  constructor(message = 'The search engine is unavailable; try again shortly', why: string | null = null) {
    super(503, message);
    this.why = why;
  }

  /** The message with what happened, for the operator. */
  get full(): string {
    return this.why ? `${this.message} (${this.why})` : this.message;
  }
}
/** An engine read ran past the server's deadline (PDI_ENGINE_DEADLINE): it is abandoned, not waited for. */
export class EngineTimeoutError extends AppError {
  constructor(seconds: number) {
    super(504, `The search engine did not answer within ${seconds} s; try again, or narrow the query`);
  }
}
/**
 * The client closed its connection before its answer was ready: nobody reads the response, so the
 * engine work still queued for it is dropped. 499 is the status nginx logs for this; no client sees it.
 */
export class ClientGoneError extends AppError {
  constructor() {
    super(499, 'The client closed the connection before the response was ready');
  }
}

/**
 * A write the disk had no room for (SQLite's SQLITE_FULL, a file's ENOSPC). Nothing was saved: the
 * transaction rolled back. The client gets a 507 saying so instead of a masked 500.
 */
export function isStorageFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC';
}
export const STORAGE_FULL = "The server's storage is full: nothing was saved; try again later";

/** An error's message for the operator: with what happened, where the error knows more than clients see. */
export function operatorMessage(err: unknown): string {
  if (err instanceof EngineUnavailableError) return err.full;
  return err instanceof Error ? err.message : String(err);
}

/** Why a run was stopped: its signal's reason (a string such as `interrupted (SIGINT)`, or an error). */
export function stopReason(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
}
