// One webhook POST: the target is resolved and checked again now, and the connection goes to exactly
// the address checked (a host that re-resolves to a private address in between cannot be reached).
// Redirects are not followed. Which failures are worth a retry is said by DeliveryError.retryable.
import http from 'node:http';
import https from 'node:https';
import { pinnedLookup, type ResolvedAddress } from '../../lib/addresses.js';
import { signature } from '../alerts/secret.js';
import { parseTarget, resolveTarget, TargetError } from '../alerts/targets.js';

const TIMEOUT_MS = 10_000;
/** Bytes of a receiver's answer read at most (it is only drained). */
const MAX_ANSWER = 64 * 1024;

export class DeliveryError extends Error {
  constructor(message: string, readonly retryable: boolean) {
    super(message);
  }
}

export async function postWebhook(target: string, body: string, secret: string, deliveryId: string, allowPrivate: boolean, now: Date): Promise<void> {
  let url: URL;
  let address: ResolvedAddress;
  try {
    url = parseTarget(target, allowPrivate);
    address = await resolveTarget(url, allowPrivate);
  } catch (err) {
    // A name that does not resolve now may resolve later; a refused target stays refused.
    if (err instanceof TargetError) throw new DeliveryError(err.message, err.retryable);
    throw err;
  }
  const t = Math.floor(now.getTime() / 1000);
  const client = url.protocol === 'https:' ? https : http;
  const status = await new Promise<number>((resolve, reject) => {
    const req = client.request(url, {
      method: 'POST',
      lookup: pinnedLookup(address),
      timeout: TIMEOUT_MS,
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        'User-Agent': 'pdi-webhooks/1',
        'X-PDI-Delivery': deliveryId,
        'X-PDI-Signature': signature(secret, t, body),
      },
    }, (res) => {
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER) res.destroy();
      });
      res.on('close', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    req.on('error', (err) => reject(new DeliveryError(`${(err as NodeJS.ErrnoException).code ?? 'network error'}: ${err.message}`, true)));
    req.end(body);
  });
  if (status >= 200 && status < 300) return;
  const retryable = status === 408 || status === 429 || status >= 500;
  throw new DeliveryError(`the receiver answered ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`, retryable);
}
