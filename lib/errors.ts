// The AppError family: every error a client can see, with its status. Anything else is a 500
// whose message is masked at the edge (api/middleware/errors.ts).

export class AppError extends Error {
  constructor(readonly statusCode: number, message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  constructor(message: string) { super(400, message); }
}
export class UnauthorizedError extends AppError {
  constructor(message: string) { super(401, message); }
}
export class ForbiddenError extends AppError {
  constructor(message: string) { super(403, message); }
}
export class NotFoundError extends AppError {
  constructor(message: string) { super(404, message); }
}
export class ConflictError extends AppError {
  constructor(message: string) { super(409, message); }
}
export class PayloadTooLargeError extends AppError {
  constructor(message: string) { super(413, message); }
}
export class UnsupportedMediaTypeError extends AppError {
  constructor(message: string) { super(415, message); }
}
export class ValidationError extends AppError {
  constructor(message: string) { super(422, message); }
}
export class QuotaExceededError extends AppError {
  constructor(message: string, readonly retryAfterSeconds: number) { super(429, message); }
}
export class NotImplementedError extends AppError {
  constructor(message: string) { super(501, message); }
}
/** The search engine cannot be reached; the API keeps running and recovers when it returns. */
export class EngineUnavailableError extends AppError {
  constructor(message = 'The search engine is unavailable; try again shortly') { super(503, message); }
}
/**
 * The client closed its connection before its answer was ready: nobody reads the response, so the
 * engine work still queued for it is dropped. 499 is the status nginx logs for this; no client sees it.
 */
export class ClientGoneError extends AppError {
  constructor() { super(499, 'The client closed the connection before the response was ready'); }
}
