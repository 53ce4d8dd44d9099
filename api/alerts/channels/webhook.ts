// The webhook channel: a signed POST to the profile's webhook_url. At each send the target is resolved
// and checked again, and the connection goes to exactly the address checked (a host that re-resolves to
// a private address in between cannot be reached). Redirects are not followed.
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import { pinnedLookup, type ResolvedAddress } from '../../../lib/addresses.js';
import { signature, WebhookSecrets } from '../secret.js';
import { parseTarget, resolveTarget } from '../targets.js';
import { DeliveryError, TargetError, type AlertChannel } from './channel.js';

/** Bytes of a receiver's answer read at most (it is only drained). */
const MAX_ANSWER = 64 * 1024;
const MAX_URL = 2048;

/**
 * POSTs the payload. `deadlineMs` bounds the whole attempt (resolving, connecting, sending, the answer):
 * an idle-socket timeout would let a receiver that drips a byte now and then hold a send slot for ever.
 * A status that arrived in time counts even if the rest of the answer did not (it is only drained).
 */
export async function postWebhook(
  target: string,
  body: string,
  secret: string,
  deliveryId: string,
  allowPrivate: boolean,
  now: Date,
  deadlineMs: number,
): Promise<void> {
  const signal = AbortSignal.timeout(deadlineMs);
  const late = () => new DeliveryError(`no answer within ${deadlineMs / 1000} s`, true);
  let url: URL;
  let address: ResolvedAddress;
  try {
    url = parseTarget(target, allowPrivate);
    address = await Promise.race([resolveTarget(url, allowPrivate), once(signal, 'abort').then(() => Promise.reject(late()))]);
  } catch (err) {
    // A name that does not resolve now may resolve later; a refused target stays refused.
    if (err instanceof TargetError) throw new DeliveryError(err.message, err.retryable);
    throw err;
  }
  const t = Math.floor(now.getTime() / 1000);
  const client = url.protocol === 'https:' ? https : http;
  const status = await new Promise<number>((resolve, reject) => {
    let answered: number | null = null;
    const req = client.request(
      url,
      {
        method: 'POST',
        lookup: pinnedLookup(address),
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'User-Agent': 'pdi-webhooks/1',
          'X-PDI-Delivery': deliveryId,
          'X-PDI-Signature': signature(secret, t, body),
        },
      },
      (res) => {
        answered = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER) res.destroy();
        });
        res.on('close', () => resolve(answered!));
        res.on('error', () => resolve(answered!));
      },
    );
    // Past the deadline a status that arrived stands, and the connection is dropped, not drained further.
    const expire = () => {
      if (answered !== null) resolve(answered);
      else reject(late());
      req.destroy();
    };
    signal.addEventListener('abort', expire, { once: true });
    req.on('error', (err) => reject(new DeliveryError(`${(err as NodeJS.ErrnoException).code ?? 'network error'}: ${err.message}`, true)));
    if (signal.aborted) expire();
    else req.end(body);
  });
  if (status >= 200 && status < 300) return;
  const retryable = status === 408 || status === 429 || status >= 500;
  throw new DeliveryError(`the receiver answered ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`, retryable);
}

export const webhookChannel = {
  name: 'webhook',
  member: 'webhook_url',
  target: { maxLength: MAX_URL, value: { format: 'uri' }, note: 'https' },
  concurrency: 16,
  // As the URL parser writes it.
  parseTarget(value: string, rules): string {
    if (value.length > MAX_URL) throw new TargetError(`webhook_url must be at most ${MAX_URL} characters`);
    return parseTarget(value, rules.allowPrivate).href;
  },
  async admit(value, rules) {
    await resolveTarget(parseTarget(value, rules.allowPrivate), rules.allowPrivate);
  },
  sender({ config, clock }) {
    const secrets = WebhookSecrets.inDataDir(config.dataDir);
    return {
      async send({ id, profile, document, event, target }) {
        const payload =
          event === null
            ? { type: 'alert.match', delivery_id: id, profile_id: profile.id, document }
            : { type: 'monitor.event', delivery_id: id, profile_id: profile.id, event: { ...event, acknowledged_at: undefined }, document };
        const secret = secrets.secretOf(profile.id, profile.secret_salt);
        await postWebhook(target, JSON.stringify(payload), secret, id, config.webhookAllowPrivate, clock(), config.webhookTimeoutMs);
      },
    };
  },
} as const satisfies AlertChannel;
