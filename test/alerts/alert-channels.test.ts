// The channel registry's contract (api/alerts/channels/channel.ts), one table row per channel: each entry
// refuses bad addresses with the detail a 422 carries, gives one canonical form to two spellings of one
// address, and its sender, made from a configuration as the alert service makes it, sends a delivery to
// a real loopback peer (test/helpers/alert-peers.ts), or fails with a retryable DeliveryError when the
// peer is down. A channel added to the registry without its row here
// fails the type check and the first test.
import net, { type AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { DeliveryError, TargetError, type ChannelSender, type Delivery } from '../../api/alerts/channels/channel.js';
import { CHANNEL_NAMES, CHANNELS, type Channel, type RegisteredChannel } from '../../api/alerts/channels/index.js';
import { WebhookSecrets } from '../../api/alerts/secret.js';
import { loadConfig } from '../../lib/config.js';
import { startSmtp, startWebhookReceiver, verifySignature } from '../helpers/alert-peers.js';
import { tempDir } from '../helpers/app.js';

interface Peer {
  /** The address the delivery is sent to, and the SMTP server's URL for the mailer. */
  target: string;
  smtpUrl: string | null;
  /** The delivery id and document title the peer received first. */
  received(): Promise<{ deliveryId: string; title: string }>;
}

interface Row {
  refused: [address: string, detail: RegExp][];
  /** Two spellings of one address. */
  same: [string, string];
  different: [string, string];
  /** `dataDir`: the sender's data folder, which holds the webhook signing key. */
  peer(t: Test, dataDir: string): Promise<Peer>;
  /** An address of this channel on a loopback port nothing listens on, with the SMTP URL. */
  down(port: number): { target: string; smtpUrl: string | null };
}

const STRICT = { allowPrivate: false };
const LOOPBACK = { allowPrivate: true };

const ROWS: Record<Channel, Row> = {
  email: {
    refused: [
      ['not-an-email', /^notify_email must be an email address$/],
      ['a@example.com\r\nBcc: x@y.z', /^notify_email must be an email address$/],
      [`${'a'.repeat(250)}@example.com`, /^notify_email must be an email address$/],
    ],
    same: ['Alerts@Example.COM', 'alerts@example.com'],
    different: ['alerts@example.com', 'audit@example.com'],
    async peer(t) {
      const smtp = await startSmtp(t);
      return {
        target: 'ops@example.com',
        smtpUrl: smtp.url,
        async received() {
          const [mail] = await smtp.received(1);
          const text = mail!.text ?? '';
          return { deliveryId: /Delivery id: (\S+)/.exec(text)?.[1] ?? '', title: /Title: (.+)/.exec(text)?.[1] ?? '' };
        },
      };
    },
    down: (port) => ({ target: 'ops@example.com', smtpUrl: `smtp://127.0.0.1:${port}` }),
  },
  webhook: {
    refused: [
      ['not a url', /^webhook_url must be an absolute URL$/],
      ['http://93.184.215.14/hook', /^webhook_url must use https$/],
      ['https://user:secret@example.com/hook', /^webhook_url must not hold a user name or password$/],
      [`https://example.com/${'a'.repeat(2048)}`, /^webhook_url must be at most 2048 characters$/],
    ],
    same: ['https://EXAMPLE.com:443/hook', 'https://example.com/hook'],
    different: ['https://example.com/hook', 'https://example.com/other'],
    async peer(t, dataDir) {
      const hook = await startWebhookReceiver(t);
      return {
        target: hook.url,
        smtpUrl: null,
        async received() {
          const [request] = await hook.answered(1);
          t.ok(
            verifySignature(request!.signature, request!.body, WebhookSecrets.inDataDir(dataDir).secretOf('profile-1', 'salt')),
            'signed with the profile secret',
          );
          return { deliveryId: request!.json.delivery_id, title: request!.json.document.title };
        },
      };
    },
    down: (port) => ({ target: `http://127.0.0.1:${port}/hook`, smtpUrl: null }),
  },
};

const DOCUMENT = {
  source_id: 'diavgeia:ΨΘ4Ω46ΜΤΛΡ-ΑΒΓ',
  source: 'diavgeia',
  title: 'Προμήθεια πυροσβεστήρων',
  published_at: '2026-03-01T00:00:00Z',
  source_url: 'https://diavgeia.gov.gr/decision/view/ΨΘ4Ω46ΜΤΛΡ-ΑΒΓ',
  amount: { value: 1200, currency: 'EUR' },
};

function delivery(target: string): Delivery {
  return { id: 'delivery-1', profile: { id: 'profile-1', name: 'Fire safety', secret_salt: 'salt' }, target, document: DOCUMENT, event: null };
}

/** The channel's sender as the alert service makes it, from a configuration of loopback peers. */
function senderOf(t: Test, channel: RegisteredChannel, dataDir: string, smtpUrl: string | null): ChannelSender {
  const env = {
    PDI_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PDI_WEBHOOK_ALLOW_PRIVATE: '1',
    PDI_WEBHOOK_TIMEOUT: '5s',
    ...(smtpUrl ? { SMTP_URL: smtpUrl } : {}),
  };
  const sender = channel.sender({ config: loadConfig(env), clock: () => new Date() });
  t.teardown(() => sender.close?.());
  return sender;
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

t.test('when the registry is read, then every channel has a row of this contract, a profile member of its own and at least one send slot', async (t) => {
  t.same([...CHANNEL_NAMES].sort(), Object.keys(ROWS).sort());
  t.equal(new Set(CHANNELS.map((c) => c.member)).size, CHANNELS.length, 'one member each');
  for (const c of CHANNELS) t.ok(Number.isInteger(c.concurrency) && c.concurrency >= 1, `${c.name}: ${c.concurrency}`);
});

for (const channel of CHANNELS) {
  const row = ROWS[channel.name];

  t.test(`when the ${channel.name} channel reads a refused address, then TargetError carries the detail naming ${channel.member}`, async (t) => {
    for (const [address, detail] of row.refused) {
      const what = JSON.stringify(address).slice(0, 60);
      let err: unknown = null;
      try {
        channel.parseTarget(address, STRICT);
      } catch (e) {
        err = e;
      }
      t.type(err, TargetError, what);
      t.match((err as Error | null)?.message, detail, what);
    }
  });

  t.test(`when the ${channel.name} channel reads two spellings of one address, then they have one canonical form, and two addresses two`, async (t) => {
    t.equal(channel.parseTarget(row.same[0], STRICT), channel.parseTarget(row.same[1], STRICT));
    t.not(channel.parseTarget(row.different[0], STRICT), channel.parseTarget(row.different[1], STRICT));
  });

  t.test(`when the ${channel.name} channel sends a delivery, then its loopback peer receives it under the delivery id`, async (t) => {
    const dataDir = tempDir(t);
    const peer = await row.peer(t, dataDir);
    channel.parseTarget(peer.target, LOOPBACK);
    await channel.admit?.(peer.target, LOOPBACK);
    await senderOf(t, channel, dataDir, peer.smtpUrl).send(delivery(peer.target));
    t.same(await peer.received(), { deliveryId: 'delivery-1', title: DOCUMENT.title });
  });

  t.test(`when the ${channel.name} channel's peer is down, then the send fails with a DeliveryError worth a retry`, async (t) => {
    const { target, smtpUrl } = row.down(await closedPort());
    const err = await senderOf(t, channel, tempDir(t), smtpUrl)
      .send(delivery(target))
      .then(
        () => null,
        (e: unknown) => e,
      );
    t.type(err, DeliveryError);
    t.equal((err as DeliveryError).retryable, true, (err as Error).message);
  });
}
