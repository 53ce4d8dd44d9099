// Which IP addresses a server that calls a URL it was given (a webhook target, an upstream's redirect)
// may connect to. Private ranges are refused unless the operator allows them (closed networks); link-local
// and cloud-metadata addresses are refused always: nothing legitimate lives there, and they hand out
// credentials. IPv6 forms that carry an IPv4 address (mapped, compatible, translated, NAT64, 6to4) are
// judged by that IPv4 address, since a connection to them can reach it.
import dns from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import net from 'node:net';

/** `public`: may be called; `private`: only when allowed; `forbidden`: never (link-local, metadata). */
export type AddressKind = 'public' | 'private' | 'forbidden';

const V4_PRIVATE: [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
// 100.100.100.200 is Alibaba Cloud's metadata service (inside the shared 100.64/10 range).
const V4_FORBIDDEN: [string, number][] = [
  ['169.254.0.0', 16],
  ['100.100.100.200', 32],
];
// 64:ff9b:1::/48 is local-use NAT64 (RFC 8215) with the IPv4 address at a prefix-dependent place, and
// Teredo (2001::/32) carries its client's address obfuscated: neither has a use for a webhook.
const V6_PRIVATE: [string, number][] = [
  ['::', 96],
  ['100::', 64],
  ['2001::', 32],
  ['2001:2::', 48],
  ['2001:db8::', 32],
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fec0::', 10],
  ['ff00::', 8],
];
// fd00:ec2::254 is AWS's IPv6 metadata service.
const V6_FORBIDDEN: [string, number][] = [
  ['fe80::', 10],
  ['fd00:ec2::254', 128],
];

function list(v4: [string, number][], v6: [string, number][]): net.BlockList {
  const l = new net.BlockList();
  for (const [a, p] of v4) l.addSubnet(a, p, 'ipv4');
  for (const [a, p] of v6) l.addSubnet(a, p, 'ipv6');
  return l;
}
const privateList = list(V4_PRIVATE, V6_PRIVATE);
const forbiddenList = list(V4_FORBIDDEN, V6_FORBIDDEN);

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 read as two groups). */
export function groups(v6: string): number[] {
  let text = v6.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, null];
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const front = parse(head);
  const back = tail === null ? [] : parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

export const v4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 address an IPv6 address delivers to (mapped, translated, NAT64 /96, 6to4), else null. */
function embeddedV4(v6: string): string | null {
  const g = groups(v6);
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) return v4Of(g[6]!, g[7]!); // ::ffff:a.b.c.d, IPv4-mapped
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return v4Of(g[6]!, g[7]!); // ::ffff:0:a.b.c.d, SIIT
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return v4Of(g[6]!, g[7]!); // 64:ff9b::/96, NAT64
  if (g[0] === 0x2002) return v4Of(g[1]!, g[2]!); // 2002:AABB:CCDD::/48, 6to4
  return null;
}

function kindOf(ip: string, type: 'ipv4' | 'ipv6'): AddressKind {
  if (forbiddenList.check(ip, type)) return 'forbidden';
  return privateList.check(ip, type) ? 'private' : 'public';
}

export function addressKind(address: string): AddressKind {
  const family = net.isIP(address);
  if (family === 0) return 'forbidden';
  if (family === 4) return kindOf(address, 'ipv4');
  const bare = address.replace(/%.*$/, '');
  const g = groups(bare);
  // IPv4-compatible (::a.b.c.d, deprecated, inside the refused ::/96): never public, and forbidden
  // when the IPv4 address is.
  if (g.slice(0, 6).every((x) => x === 0) && g[6] !== 0) return kindOf(v4Of(g[6]!, g[7]!), 'ipv4') === 'forbidden' ? 'forbidden' : 'private';
  const v4 = embeddedV4(bare);
  if (v4 !== null) return kindOf(v4, 'ipv4');
  // Local-use NAT64 is private as a whole; with private ranges allowed it may still not carry a
  // link-local or metadata address, at any place its prefix length may put one.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1 && localNat64V4(g).some((a) => kindOf(a, 'ipv4') === 'forbidden')) return 'forbidden';
  return kindOf(bare, 'ipv6');
}

/** The IPv4 address a 64:ff9b:1::/48 address carries for each prefix length (RFC 6052 2.2: /48, /56, /64, /96). */
function localNat64V4(g: number[]): string[] {
  const b = g.flatMap((x) => [x >> 8, x & 255]);
  // Bits 64-71 (byte 8) are never part of the address.
  return [
    [b[6], b[7], b[9], b[10]],
    [b[7], b[9], b[10], b[11]],
    [b[9], b[10], b[11], b[12]],
    [b[12], b[13], b[14], b[15]],
  ].map((a) => a.join('.'));
}

/** Whether a connection to `address` is refused; `allowPrivate` admits private ranges, never link-local. */
export function isRefusedAddress(address: string, allowPrivate = false): boolean {
  const kind = addressKind(address);
  return kind === 'forbidden' || (kind === 'private' && !allowPrivate);
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Why a host may not be called. One message whether it did not resolve or resolved to a refused address,
 * so that whoever names the host learns nothing of the server's network (which internal names exist);
 * `retryable` (for the sender) says only whether the name may resolve later.
 */
export class AddressRefused extends Error {
  constructor(
    host: string,
    readonly retryable: boolean,
  ) {
    super(`${host} does not resolve to a public address`);
    this.name = 'AddressRefused';
  }
}

/** The address to connect to for `host` (a name or an IP literal); every address it resolves to is checked. */
export async function resolveAllowed(host: string, allowPrivate: boolean): Promise<ResolvedAddress> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  let addresses: ResolvedAddress[];
  if (net.isIP(bare)) addresses = [{ address: bare, family: net.isIP(bare) as 4 | 6 }];
  else {
    try {
      addresses = (await dns.lookup(bare, { all: true, verbatim: true })) as ResolvedAddress[];
    } catch {
      throw new AddressRefused(bare, true);
    }
  }
  if (addresses.length === 0) throw new AddressRefused(bare, true);
  if (addresses.some((a) => isRefusedAddress(a.address, allowPrivate))) throw new AddressRefused(bare, false);
  return addresses[0]!;
}

/** A connection's lookup answered with the address already checked, never with a new resolution. */
export function pinnedLookup(to: ResolvedAddress): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: to.address, family: to.family }]);
    else callback(null, to.address, to.family);
  }) as LookupFunction;
}
