// Where webhooks may go. A target must be https (http only when PDI_WEBHOOK_ALLOW_PRIVATE is set), and
// every address its host resolves to must be public (lib/addresses.ts): a webhook would otherwise let any
// Pro key make the server call its own network. The check runs at creation and again at each send, on
// the very address then connected to (no DNS rebinding).
import { AddressRefused, resolveAllowed, type ResolvedAddress } from '../../lib/addresses.js';
import { TargetError } from './channels/channel.js';

/** The parsed target, or TargetError saying why it is refused (without resolving its host). */
export function parseTarget(value: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TargetError('webhook_url must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    throw new TargetError('webhook_url must use https');
  }
  if (url.username || url.password) throw new TargetError('webhook_url must not hold a user name or password');
  return url;
}

/** The address to connect to; a host that does not resolve or resolves to a refused address is one error. */
export async function resolveTarget(url: URL, allowPrivate: boolean): Promise<ResolvedAddress> {
  try {
    return await resolveAllowed(url.hostname, allowPrivate);
  } catch (err) {
    if (err instanceof AddressRefused) throw new TargetError(`webhook_url host ${err.message}`, err.retryable);
    throw err;
  }
}
