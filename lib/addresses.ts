// Which IP addresses are not public: private, loopback, link-local, unspecified, multicast or reserved.
// A server that calls a URL it was given (a webhook target, an upstream's redirect) must not be made to
// call its own network (cloud metadata at 169.254.169.254, admin ports on loopback).
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

/**
 * The first address of `host` (a name or an IP literal, IPv6 in brackets or not) that is not public, or
 * null when every address it resolves to is public. A name that does not resolve gives null: the
 * request to it then fails on its own.
 */
export async function privateAddressOf(host: string): Promise<string | null> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(bare)) return isPrivateAddress(bare) ? bare : null;
  let addresses: { address: string }[];
  try {
    addresses = await dns.lookup(bare, { all: true, verbatim: true });
  } catch {
    return null;
  }
  return addresses.find((a) => isPrivateAddress(a.address))?.address ?? null;
}
