// Where webhooks may go. A target must be https (http only when PDI_WEBHOOK_ALLOW_PRIVATE is set), and
// every address its host resolves to must be public: a webhook would otherwise let any Pro key make the
// server call its own network (cloud metadata at 169.254.169.254, admin ports on loopback). The check
// runs at creation and again at each send, on the very address then connected to (no DNS rebinding).
import dns from 'node:dns/promises';
import net from 'node:net';
import { isPrivateAddress } from '../../lib/addresses.js';

export class TargetError extends Error {}

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

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** The host's addresses, all of them checked: one private address refuses the target. */
export async function resolveTarget(url: URL, allowPrivate: boolean): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: ResolvedAddress[];
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) as 4 | 6 }];
  else {
    try {
      addresses = (await dns.lookup(host, { all: true, verbatim: true })) as ResolvedAddress[];
    } catch {
      throw new TargetError(`webhook_url host ${host} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new TargetError(`webhook_url host ${host} does not resolve`);
  if (!allowPrivate && addresses.some((a) => isPrivateAddress(a.address))) {
    throw new TargetError('webhook_url must not resolve to a private, loopback or link-local address');
  }
  return addresses[0];
}
