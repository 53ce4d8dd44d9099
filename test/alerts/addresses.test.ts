// Which addresses a webhook or an ingest redirect may connect to: every IPv6 form that carries a private
// IPv4 address is judged by that address, and link-local and metadata addresses are refused even when
// private ranges are allowed.
import t from 'tap';
import { addressKind, isRefusedAddress } from '../../lib/addresses.js';

const CASES: [string, 'public' | 'private' | 'forbidden', string][] = [
  ['8.8.8.8', 'public', 'a public IPv4 address'],
  ['93.184.215.14', 'public', 'a public IPv4 address'],
  ['2606:4700::1111', 'public', 'a public IPv6 address'],
  ['::ffff:8.8.8.8', 'public', 'IPv4-mapped, public'],
  ['64:ff9b::808:808', 'public', 'NAT64 of a public address'],
  ['2002:808:808::', 'public', '6to4 of a public address'],
  ['127.0.0.1', 'private', 'loopback'],
  ['10.0.0.1', 'private', 'private'],
  ['172.16.5.4', 'private', 'private'],
  ['192.168.1.1', 'private', 'private'],
  ['100.64.0.1', 'private', 'shared address space'],
  ['0.0.0.0', 'private', 'unspecified'],
  ['::1', 'private', 'IPv6 loopback'],
  ['::', 'private', 'IPv6 unspecified'],
  ['fd00::1', 'private', 'unique local'],
  ['::ffff:127.0.0.1', 'private', 'IPv4-mapped loopback, dotted'],
  ['::ffff:7f00:1', 'private', 'IPv4-mapped loopback, as the URL parser writes it'],
  ['::127.0.0.1', 'private', 'IPv4-compatible loopback, dotted'],
  ['::7f00:1', 'private', 'IPv4-compatible loopback: [::127.0.0.1] as the URL parser writes it'],
  ['::a00:1', 'private', 'IPv4-compatible 10.0.0.1'],
  ['::808:808', 'private', 'IPv4-compatible (deprecated) even of a public address'],
  ['::ffff:0:7f00:1', 'private', 'IPv4-translated (SIIT) loopback'],
  ['64:ff9b::a00:1', 'private', 'NAT64 of 10.0.0.1'],
  ['64:ff9b::127.0.0.1', 'private', 'NAT64 of loopback, dotted'],
  ['2002:7f00:1::', 'private', '6to4 of loopback'],
  ['2002:a00:1:1::5', 'private', '6to4 of 10.0.0.1'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'private', 'Teredo'],
  ['2001:db8::1', 'private', 'documentation'],
  ['169.254.169.254', 'forbidden', 'cloud metadata'],
  ['169.254.1.1', 'forbidden', 'IPv4 link-local'],
  ['100.100.100.200', 'forbidden', 'Alibaba Cloud metadata'],
  ['fe80::1', 'forbidden', 'IPv6 link-local'],
  ['fe80::1%eth0', 'forbidden', 'IPv6 link-local with a zone'],
  ['febf::1', 'forbidden', 'IPv6 link-local, end of fe80::/10'],
  ['fd00:ec2::254', 'forbidden', 'AWS IPv6 metadata'],
  ['::a9fe:a9fe', 'forbidden', 'IPv4-compatible 169.254.169.254'],
  ['::ffff:a9fe:a9fe', 'forbidden', 'IPv4-mapped 169.254.169.254'],
  ['::ffff:0:a9fe:a9fe', 'forbidden', 'IPv4-translated 169.254.169.254'],
  ['64:ff9b::a9fe:a9fe', 'forbidden', 'NAT64 of 169.254.169.254'],
  ['64:ff9b:1::a00:1', 'private', 'local-use NAT64 (refused whole unless private ranges are allowed)'],
  ['64:ff9b:1::a9fe:a9fe', 'forbidden', 'local-use NAT64 /96 of 169.254.169.254'],
  ['64:ff9b:1:a9fe:a9:fe00::', 'forbidden', 'local-use NAT64 /48 of 169.254.169.254'],
  ['64:ff9b:1:0:a9:fea9:fe00:0', 'forbidden', 'local-use NAT64 /64 of 169.254.169.254'],
  ['2002:a9fe:a9fe::', 'forbidden', '6to4 of 169.254.169.254'],
  ['not-an-ip', 'forbidden', 'not an address'],
];

t.test('when each address form is judged, then it is public, private or forbidden as its embedded IPv4 address is', async (t) => {
  for (const [address, kind, what] of CASES) t.equal(addressKind(address), kind, `${address}: ${what}`);
});

t.test('when private ranges are allowed, then link-local and metadata addresses are still refused', async (t) => {
  for (const [address, kind] of CASES) {
    t.equal(isRefusedAddress(address, false), kind !== 'public', `${address} refused by default`);
    t.equal(isRefusedAddress(address, true), kind === 'forbidden', `${address} with PDI_WEBHOOK_ALLOW_PRIVATE`);
  }
});

t.test('when a URL names an IPv6 literal, then the host the parser gives is judged the same', async (t) => {
  for (const literal of ['[::127.0.0.1]', '[::a9fe:a9fe]', '[::ffff:0:7f00:1]', '[64:ff9b:1::a9fe:a9fe]', '[2002:a9fe:a9fe::]']) {
    const host = new URL(`https://${literal}/hook`).hostname.replace(/^\[(.*)\]$/, '$1');
    t.ok(isRefusedAddress(host, false), `${literal} (${host})`);
  }
  for (const literal of ['[::a9fe:a9fe]', '[64:ff9b:1::a9fe:a9fe]', '[2002:a9fe:a9fe::]']) {
    t.ok(isRefusedAddress(new URL(`https://${literal}/`).hostname.slice(1, -1), true), `${literal} with private allowed`);
  }
});
