// Where webhooks may go. A target must be https (http only when PDI_WEBHOOK_ALLOW_PRIVATE is set), and
// every address its host resolves to must be public: a webhook would otherwise let any Pro key make the
// server call its own network (cloud metadata at 169.254.169.254, admin ports on loopback). The check
// runs at creation and again at each send, on the very address then connected to (no DNS rebinding).
import dns from 'node:dns/promises';
import net from 'node:net';

const V4_BLOCKED: [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const V6_BLOCKED: [string, number][] = [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['2001:db8::', 32],
];
const blocked = new net.BlockList();
for (const [a, p] of V4_BLOCKED) blocked.addSubnet(a, p, 'ipv4');
for (const [a, p] of V6_BLOCKED) blocked.addSubnet(a, p, 'ipv6');

/** The IPv4 address inside an IPv4-mapped, -compatible or NAT64 IPv6 address, else null. */
function embeddedV4(v6: string): string | null {
  const m = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(v6);
  if (m) return m[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(v6);
  if (!hex) return null;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether `address` is private, loopback, link-local, unspecified, multicast or reserved. */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedV4(address);
  return v4 !== null ? blocked.check(v4, 'ipv4') : blocked.check(address, 'ipv6');
}

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
