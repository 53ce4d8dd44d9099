// Who a request comes from (lib/client-address.ts): the block a client is counted by, and its address
// behind the reverse proxies the operator trusts (PDI_TRUST_PROXY).
import t from 'tap';
import { clientBlock, proxyEntry, TrustedProxies } from '../../lib/client-address.js';

t.test('when an address is counted, then an IPv4 one is itself and an IPv6 one is its /64, however written', async (t) => {
  t.equal(clientBlock('203.0.113.5'), '203.0.113.5');
  t.equal(clientBlock('::ffff:203.0.113.5'), '203.0.113.5', 'IPv4-mapped, as a dual-stack socket reports it');
  const block = '2001:db8:1:2::/64';
  for (const a of ['2001:db8:1:2::1', '2001:0db8:0001:0002:0000:0000:0000:0001', '2001:db8:1:2:ffff:ffff:ffff:fffe', '2001:DB8:1:2::9%eth0']) {
    t.equal(clientBlock(a), block, a);
  }
  t.equal(clientBlock('2001:db8:1:3::1'), '2001:db8:1:3::/64');
  t.equal(clientBlock('::1'), '0:0:0:0::/64');
  t.equal(clientBlock('fe80::1:2:3:4'), 'fe80:0:0:0::/64');
});

t.test('when no proxy is trusted, then the socket address is the client, whatever X-Forwarded-For says', async (t) => {
  const none = new TrustedProxies([]);
  t.equal(none.client('127.0.0.1', '203.0.113.5'), '127.0.0.1');
  t.equal(none.client('::ffff:127.0.0.1', undefined), '127.0.0.1');
});

t.test('when the socket is a trusted proxy, then the client is the last address of X-Forwarded-For that is no trusted proxy', async (t) => {
  const proxies = new TrustedProxies(['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
  t.equal(proxies.client('127.0.0.1', '203.0.113.5'), '203.0.113.5');
  t.equal(proxies.client('::ffff:127.0.0.1', '203.0.113.5'), '203.0.113.5', 'a mapped socket address is the IPv4 proxy');
  t.equal(proxies.client('127.0.0.1', '1.2.3.4, 203.0.113.5, 10.1.2.3'), '203.0.113.5', 'through two proxies; what the client wrote is not read');
  t.equal(proxies.client('127.0.0.1', ['1.2.3.4', '2001:db8::7']), '2001:db8::7', 'the header given twice');
  t.equal(proxies.client('127.0.0.1', '[2001:db8::7]:443'), '2001:db8::7');
  t.equal(proxies.client('127.0.0.1', '198.51.100.2:51234'), '198.51.100.2');
  t.equal(proxies.client('127.0.0.1', '203.0.113.5, not-an-address'), '127.0.0.1', 'an entry that is no address stops the walk at the proxy');
  t.equal(proxies.client('127.0.0.1', '10.0.0.1, 10.0.0.2'), '10.0.0.1', 'only proxies: the farthest one');
  t.equal(proxies.client('127.0.0.1', undefined), '127.0.0.1');
  t.equal(proxies.client('198.51.100.2', '203.0.113.5'), '198.51.100.2', 'a socket that is no trusted proxy is the client');
});

t.test('when PDI_TRUST_PROXY entries are read, then addresses and CIDR blocks are taken and anything else refused', async (t) => {
  t.same(proxyEntry('10.0.0.0/8'), { address: '10.0.0.0', prefix: 8, type: 'ipv4' });
  t.same(proxyEntry('::1'), { address: '::1', prefix: null, type: 'ipv6' });
  t.same(proxyEntry('fd00::/8'), { address: 'fd00::', prefix: 8, type: 'ipv6' });
  for (const bad of ['proxy.internal', '10.0.0.0/33', 'fd00::/129', '10.0.0.0/8/1', '10.0.0.0/x', '']) t.equal(proxyEntry(bad), null, bad);
});
