// The engine reads of a request stop mattering when its client goes away (a timeout, a closed tab): the
// signal handed to them (ReadOptions) aborts then, so a read still queued is dropped instead of
// costing an engine slot that a waiting client needs. They also name the request's API key as their
// tenant, whom the embedded engine's reader queue serves in turn with the others.
import type { Request, Response } from 'restify';
import type { ReadOptions } from '../../lib/search/provider.js';
import { ClientGoneError } from '../../lib/errors.js';

/** Read options whose signal aborts when the connection closes before the response is complete. */
export function readOptionsFor(res: Response): ReadOptions {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new ClientGoneError());
  });
  return { signal: controller.signal, tenant: (res.req as Request | undefined)?.principal?.keyId };
}
