// Who a request comes from, for counting its attempts (the dashboard's sign-in throttle): its socket's
// address, or, behind reverse proxies the operator names (PDI_TRUST_PROXY), the address the nearest of
// them saw, read from X-Forwarded-For; and the block it is counted by. One subscriber holds a whole
// IPv6 /64 (2^64 addresses), so an IPv6 client is counted by its /64, or each address had an allowance.
import net from 'node:net';
import { groups, v4Of } from './addresses.js';

interface ProxyEntry {
  address: string;
  /** Bits of a CIDR block; null for one address. */
  prefix: number | null;
  type: 'ipv4' | 'ipv6';
}

/** An entry of PDI_TRUST_PROXY (`10.0.0.7`, `10.0.0.0/8`, `fd00::/8`), or null when it is neither. */
export function proxyEntry(entry: string): ProxyEntry | null {
  const [address = '', bits, extra] = entry.trim().split('/');
  const family = net.isIP(address);
  if (family === 0 || extra !== undefined) return null;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (bits === undefined) return { address, prefix: null, type };
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return null;
  return { address, prefix: Number(bits), type };
}

/** An address as it is compared: an IPv4-mapped IPv6 one (a dual-stack socket's) as its IPv4, no zone. */
function plain(address: string): { address: string; type: 'ipv4' | 'ipv6' } | null {
  const bare = address.replace(/%.*$/, '');
  const family = net.isIP(bare);
  if (family === 4) return { address: bare, type: 'ipv4' };
  if (family !== 6) return null;
  const g = groups(bare);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return { address: v4Of(g[6]!, g[7]!), type: 'ipv4' };
  return { address: bare, type: 'ipv6' };
}

/** One X-Forwarded-For entry as an address (bare, `[v6]:port` or `v4:port`), else null. */
function forwardedAddress(entry: string): string | null {
  const text = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text)?.[1];
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(text)?.[1];
  const address = bracketed ?? withPort ?? text;
  return net.isIP(address.replace(/%.*$/, '')) ? address : null;
}

export class TrustedProxies {
  private readonly list = new net.BlockList();
  private readonly any: boolean;

  /** `entries` are checked already (config.ts refuses one proxyEntry does not read). */
  constructor(entries: readonly string[]) {
    for (const e of entries.map(proxyEntry)) {
      if (e === null) continue;
      if (e.prefix === null) this.list.addAddress(e.address, e.type);
      else this.list.addSubnet(e.address, e.prefix, e.type);
    }
    this.any = entries.length > 0;
  }

  private trusts(address: string): boolean {
    const p = plain(address);
    return p !== null && this.list.check(p.address, p.type);
  }

  /**
   * The client's address. From a trusted proxy, X-Forwarded-For is walked from its end (what that proxy
   * appended): each trusted proxy's entry names the one before it, and the first address that is not a
   * trusted proxy's is the client's. Anything left of it was written by the client and is not read; an
   * entry that is no address stops the walk at the proxy that passed it on.
   */
  client(socketAddress: string, forwardedFor: string | string[] | undefined): string {
    let client = plain(socketAddress)?.address ?? socketAddress;
    if (!this.any || forwardedFor === undefined) return client;
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
    for (let i = hops.length - 1; i >= 0 && this.trusts(client); i--) {
      const hop = forwardedAddress(hops[i]!);
      if (hop === null) break;
      client = plain(hop)!.address;
    }
    return client;
  }
}

/** What a client is counted by: an IPv4 address itself, an IPv6 address by its /64 (`2001:db8:1:2::/64`). */
export function clientBlock(address: string): string {
  const p = plain(address);
  if (p === null || p.type === 'ipv4') return p?.address ?? address;
  return `${groups(p.address)
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
