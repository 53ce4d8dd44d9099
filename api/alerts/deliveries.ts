// Sends recorded deliveries: at most `concurrency` at once per channel, so a slow receiver holds a few
// slots and never the API (every send is asynchronous). Organizations take turns for the free slots,
// and one holds at most half of a channel's slots, so one tenant's slow receiver cannot stall another's
// deliveries. A delivery is `pending` until sent, or until its last attempt failed (`failed`); each
// attempt is counted before it starts, so a delivery cut by a crash is sent again after the restart
// under the same delivery id (receivers deduplicate on it). What a send is, is its channel's (channels/).
// Deliveries recorded `sent_with` another (a monitor event to an address several profiles share) are
// never sent themselves: they take the outcome of the one sent.
import { systemClock, type Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { Config } from '../../lib/config.js';
import type { Db } from '../db/database.js';
import { DeliveryError, type ChannelSender, type DeliveredDocument } from './channels/channel.js';
import { channelNamed, CHANNEL_NAMES, CHANNELS, type Channel, type Targets } from './channels/index.js';

/** Retry schedule: the n-th retry waits BASE_MS * FACTOR^(n-1), capped at MAX_DELAY_MS, times 0.5-1.5. */
export const RETRY = { baseMs: 2_000, factor: 4, maxDelayMs: 3_600_000, maxAttempts: 8 } as const;
/** How often due retries are looked for when nothing else wakes the sender. */
const POLL_MS = 1_000;
/** How long stop() waits for sends under way. */
const STOP_WAIT_MS = 5_000;
/** The share of a channel's slots one organization may hold (at least one slot). */
const ORG_SHARE = 0.5;

export function retryDelayMs(attemptsMade: number, random: () => number = Math.random): number {
  const delay = Math.min(RETRY.maxDelayMs, RETRY.baseMs * RETRY.factor ** (attemptsMade - 1));
  return Math.round(delay * (0.5 + random()));
}

interface DueRow {
  id: string;
  org_id: string;
  alert_profile_id: string;
  channel: Channel;
  monitor_event_id: string;
  attempts: number;
  profile_name: string;
  /** The profile's addresses (store.ts ProfileRow.targets). */
  targets: string;
  secret_salt: string;
  profile_active: number;
  document: string;
}

export interface SenderOptions {
  db: Db;
  /** What each channel makes its sender from (AlertChannel.sender), with the sender's clock. */
  config: Config;
  log: Logger;
  clock?: Clock;
  /** Sends at once per channel, past each channel's own `concurrency`. */
  concurrency?: Partial<Record<Channel, number>>;
}

const perChannel = <T>(value: (channel: (typeof CHANNELS)[number]) => T) => Object.fromEntries(CHANNELS.map((c) => [c.name, value(c)])) as Record<Channel, T>;

export class DeliverySender {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly busy = perChannel(() => 0);
  /** Sends under way per channel and organization. */
  private readonly orgBusy = new Map<string, number>();
  /** The organization last given a slot, per channel: the next turn starts after it. */
  private readonly lastOrg = perChannel(() => '');
  private readonly limit: Record<Channel, number>;
  private readonly clock: Clock;
  private readonly senders: Record<Channel, ChannelSender>;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly st;

  constructor(private readonly opts: SenderOptions) {
    this.clock = opts.clock ?? systemClock;
    this.limit = perChannel((c) => opts.concurrency?.[c.name] ?? c.concurrency);
    this.senders = perChannel((c) => c.sender({ config: opts.config, clock: this.clock }));
    const db = opts.db;
    this.st = {
      // The organizations with pending deliveries on a channel, one index seek each (a loose index scan:
      // DISTINCT would read every pending row, tens of thousands after a large ingest).
      orgs: db
        .prepare(
          `WITH RECURSIVE o(org) AS (
           SELECT min(org_id) FROM alert_deliveries WHERE delivery_status = 'pending' AND sent_with IS NULL AND channel = @channel
           UNION ALL
           SELECT (SELECT min(org_id) FROM alert_deliveries
                    WHERE delivery_status = 'pending' AND sent_with IS NULL AND channel = @channel AND org_id > o.org)
             FROM o WHERE o.org IS NOT NULL)
         SELECT org FROM o WHERE org IS NOT NULL`,
        )
        .pluck(),
      due: db.prepare(
        `SELECT d.id, d.org_id, d.alert_profile_id, d.channel, d.monitor_event_id, d.attempts, p.name AS profile_name, p.targets,
                p.secret_salt, p.is_active AS profile_active, a.document
           FROM alert_deliveries d JOIN alert_profiles p ON p.id = d.alert_profile_id
           JOIN alert_documents a ON a.source_id = d.document_source_id
          WHERE d.delivery_status = 'pending' AND d.sent_with IS NULL AND d.channel = ? AND d.org_id = ? AND d.next_attempt_at <= ?
          ORDER BY d.next_attempt_at LIMIT ?`,
      ),
      // Each statement below applies to the delivery sent and to those sent with it.
      begin: db.prepare("UPDATE alert_deliveries SET attempts = attempts + 1 WHERE (id = @id OR sent_with = @id) AND delivery_status = 'pending'"),
      sent: db.prepare("UPDATE alert_deliveries SET delivery_status = 'sent', delivered_at = @at WHERE id = @id OR sent_with = @id"),
      retry: db.prepare('UPDATE alert_deliveries SET last_error = @error, next_attempt_at = @next WHERE id = @id OR sent_with = @id'),
      failed: db.prepare("UPDATE alert_deliveries SET delivery_status = 'failed', last_error = @error WHERE id = @id OR sent_with = @id"),
      // A delivery whose profile was deactivated fails alone; the first of those sent with it takes its place.
      failOne: db.prepare("UPDATE alert_deliveries SET delivery_status = 'failed', last_error = ? WHERE id = ?"),
      heir: db.prepare("SELECT id FROM alert_deliveries WHERE sent_with = ? AND delivery_status = 'pending' ORDER BY rowid LIMIT 1").pluck(),
      handOver: db.prepare('UPDATE alert_deliveries SET sent_with = CASE id WHEN @heir THEN NULL ELSE @heir END WHERE sent_with = @id'),
      event: db.prepare(
        `SELECT e.id, e.monitored_entity_id, m.entity_identifier, m.identifier_type, m.label, e.event_type, e.summary,
                e.detected_at, e.acknowledged_at
           FROM monitor_events e JOIN monitored_entities m ON m.id = e.monitored_entity_id WHERE e.id = ?`,
      ),
    };
  }

  start(): void {
    this.timer = setInterval(() => this.pump(), POLL_MS);
    this.timer.unref();
    this.pump();
  }

  /** Starts due deliveries in the free slots (new ones recorded, a send finished), organizations in turn. */
  pump(): void {
    if (this.stopped) return;
    const now = this.clock().toISOString();
    for (const channel of CHANNEL_NAMES) {
      let free = this.limit[channel] - this.busy[channel];
      if (free <= 0) continue;
      const share = Math.max(1, Math.floor(this.limit[channel] * ORG_SHARE));
      // The turn starts with the organization after the one served last.
      const orgs = this.st.orgs.all({ channel }) as string[];
      const next = orgs.findIndex((o) => o > this.lastOrg[channel]);
      const order = next <= 0 ? orgs : [...orgs.slice(next), ...orgs.slice(0, next)];
      const queues = order.map((org) => {
        const held = this.orgBusy.get(`${channel} ${org}`) ?? 0;
        if (held >= share) return [];
        // Rows under way are still pending and due: asked for too, then left out.
        const rows = this.st.due.all(channel, org, now, share) as DueRow[];
        return rows.filter((r) => !this.inFlight.has(r.id)).slice(0, share - held);
      });
      for (let round = 0; free > 0 && queues.some((q) => q.length > round); round++) {
        for (const q of queues) {
          const row = q[round];
          if (row === undefined || free === 0) continue;
          free--;
          this.run(channel, row);
        }
      }
    }
  }

  private run(channel: Channel, row: DueRow): void {
    const slot = `${channel} ${row.org_id}`;
    this.busy[channel]++;
    this.orgBusy.set(slot, (this.orgBusy.get(slot) ?? 0) + 1);
    this.lastOrg[channel] = row.org_id;
    const run = this.attempt(row)
      .catch((err: unknown) => {
        this.opts.log.error({ delivery: row.id, error: (err as Error).message }, 'delivery attempt could not be recorded');
      })
      .finally(() => {
        this.busy[channel]--;
        const held = this.orgBusy.get(slot)! - 1;
        if (held === 0) this.orgBusy.delete(slot);
        else this.orgBusy.set(slot, held);
        this.inFlight.delete(row.id);
        this.pump();
      });
    this.inFlight.set(row.id, run);
  }

  private async attempt(row: DueRow): Promise<void> {
    if (this.st.begin.run({ id: row.id }).changes === 0) return; // dropped meanwhile (its event was acknowledged)
    const attempts = row.attempts + 1;
    try {
      if (row.profile_active !== 1) {
        this.handOver(row.id, 'the profile was deactivated before delivery');
        return;
      }
      const event = row.monitor_event_id === '' ? null : (this.st.event.get(row.monitor_event_id) as Record<string, unknown> | undefined);
      if (event === undefined || (event && event.acknowledged_at !== null)) throw new DeliveryError('the event was acknowledged before delivery', false);
      await this.send(row, JSON.parse(row.document) as DeliveredDocument, event);
    } catch (err) {
      if (this.stopped && !this.opts.db.open) return;
      const e = err instanceof DeliveryError ? err : new DeliveryError((err as Error).message, true);
      if (e.retryable && attempts < RETRY.maxAttempts) {
        const next = new Date(this.clock().getTime() + retryDelayMs(attempts));
        this.st.retry.run({ id: row.id, error: e.message, next: next.toISOString() });
      } else {
        this.st.failed.run({ id: row.id, error: e.message });
        this.opts.log.warn({ delivery: row.id, channel: row.channel, attempts, error: e.message }, 'delivery failed');
      }
      return;
    }
    if (this.stopped && !this.opts.db.open) return;
    this.st.sent.run({ id: row.id, at: this.clock().toISOString() });
  }

  /** Fails `id` alone; the deliveries sent with it get one of them as the one sent. */
  private handOver(id: string, error: string): void {
    this.opts.db.transaction(() => {
      this.st.failOne.run(error, id);
      const heir = this.st.heir.get(id) as string | undefined;
      if (heir !== undefined) this.st.handOver.run({ id, heir });
    })();
  }

  private async send(row: DueRow, document: DeliveredDocument, event: Record<string, unknown> | null): Promise<void> {
    const channel = channelNamed(row.channel);
    const target = (JSON.parse(row.targets) as Targets)[channel.member];
    if (target === undefined) throw new DeliveryError(`the profile has no ${channel.member}`, false);
    const profile = { id: row.alert_profile_id, name: row.profile_name, secret_salt: row.secret_salt };
    await this.senders[row.channel].send({ id: row.id, profile, target, document, event });
  }

  /** Takes no new send; waits a little for those under way (the rest are sent again after a restart), then closes the channels' senders. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight.values()]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, STOP_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    for (const sender of Object.values<ChannelSender>(this.senders)) sender.close?.();
  }
}
