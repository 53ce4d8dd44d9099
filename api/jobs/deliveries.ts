// Sends recorded deliveries: at most `concurrency` at once per channel, so a slow receiver holds a few
// slots and never the API (every send is asynchronous). A delivery is `pending` until sent, or until
// its last attempt failed (`failed`); each attempt is counted before it starts, so a delivery cut by a
// crash is sent again after the restart under the same delivery id (receivers deduplicate on it).
import { systemClock, type Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { Channel } from '../alerts/profile-input.js';
import type { Db } from '../db/database.js';
import { composeMail, type Mailer, type MailDocument } from './email.js';
import type { WebhookSecrets } from '../alerts/secret.js';
import { DeliveryError, postWebhook } from './webhook.js';

/** Retry schedule: the n-th retry waits BASE_MS * FACTOR^(n-1), capped at MAX_DELAY_MS, times 0.5-1.5. */
export const RETRY = { baseMs: 2_000, factor: 4, maxDelayMs: 3_600_000, maxAttempts: 8 } as const;
/** How often due retries are looked for when nothing else wakes the sender. */
const POLL_MS = 1_000;
/** How long stop() waits for sends under way. */
const STOP_WAIT_MS = 5_000;

export function retryDelayMs(attemptsMade: number, random: () => number = Math.random): number {
  const delay = Math.min(RETRY.maxDelayMs, RETRY.baseMs * RETRY.factor ** (attemptsMade - 1));
  return Math.round(delay * (0.5 + random()));
}

interface DueRow {
  id: string;
  alert_profile_id: string;
  channel: Channel;
  monitor_event_id: string;
  attempts: number;
  profile_name: string;
  webhook_url: string | null;
  notify_email: string | null;
  secret_salt: string;
  profile_active: number;
  document: string;
}

export interface SenderOptions {
  db: Db;
  secrets: WebhookSecrets;
  mailer: Mailer;
  allowPrivate: boolean;
  log: Logger;
  clock?: Clock;
  concurrency?: Partial<Record<Channel, number>>;
}

export class DeliverySender {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly busy: Record<Channel, number> = { email: 0, webhook: 0 };
  private readonly limit: Record<Channel, number>;
  private readonly clock: Clock;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly st;

  constructor(private readonly opts: SenderOptions) {
    this.clock = opts.clock ?? systemClock;
    this.limit = { email: opts.concurrency?.email ?? 4, webhook: opts.concurrency?.webhook ?? 16 };
    const db = opts.db;
    this.st = {
      due: db.prepare(
        `SELECT d.id, d.alert_profile_id, d.channel, d.monitor_event_id, d.attempts, p.name AS profile_name, p.webhook_url,
                p.notify_email, p.secret_salt, p.is_active AS profile_active, a.document
           FROM alert_deliveries d JOIN alert_profiles p ON p.id = d.alert_profile_id
           JOIN alert_documents a ON a.source_id = d.document_source_id
          WHERE d.delivery_status = 'pending' AND d.channel = ? AND d.next_attempt_at <= ?
          ORDER BY d.next_attempt_at LIMIT ?`,
      ),
      begin: db.prepare("UPDATE alert_deliveries SET attempts = attempts + 1 WHERE id = ? AND delivery_status = 'pending'"),
      sent: db.prepare("UPDATE alert_deliveries SET delivery_status = 'sent', delivered_at = ? WHERE id = ?"),
      retry: db.prepare('UPDATE alert_deliveries SET last_error = ?, next_attempt_at = ? WHERE id = ?'),
      failed: db.prepare("UPDATE alert_deliveries SET delivery_status = 'failed', last_error = ? WHERE id = ?"),
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

  /** Starts due deliveries in the free slots (new ones recorded, a send finished). */
  pump(): void {
    if (this.stopped) return;
    for (const channel of ['webhook', 'email'] as const) {
      const free = this.limit[channel] - this.busy[channel];
      if (free <= 0) continue;
      const rows = this.st.due.all(channel, this.clock().toISOString(), free + this.busy[channel]) as DueRow[];
      for (const row of rows.filter((r) => !this.inFlight.has(r.id)).slice(0, free)) {
        this.busy[channel]++;
        const run = this.attempt(row).catch((err: unknown) => {
          this.opts.log.error({ delivery: row.id, error: (err as Error).message }, 'delivery attempt could not be recorded');
        }).finally(() => {
          this.busy[channel]--;
          this.inFlight.delete(row.id);
          this.pump();
        });
        this.inFlight.set(row.id, run);
      }
    }
  }

  private async attempt(row: DueRow): Promise<void> {
    if (this.st.begin.run(row.id).changes === 0) return; // dropped meanwhile (its event was acknowledged)
    const attempts = row.attempts + 1;
    try {
      if (row.profile_active !== 1) throw new DeliveryError('the profile was deactivated before delivery', false);
      const event = row.monitor_event_id === '' ? null : this.st.event.get(row.monitor_event_id) as Record<string, unknown> | undefined;
      if (event === undefined || (event && event.acknowledged_at !== null)) throw new DeliveryError('the event was acknowledged before delivery', false);
      await this.send(row, JSON.parse(row.document) as MailDocument & Record<string, unknown>, event);
    } catch (err) {
      if (this.stopped && !this.opts.db.open) return;
      const e = err instanceof DeliveryError ? err : new DeliveryError((err as Error).message, true);
      if (e.retryable && attempts < RETRY.maxAttempts) {
        const next = new Date(this.clock().getTime() + retryDelayMs(attempts));
        this.st.retry.run(e.message, next.toISOString(), row.id);
      } else {
        this.st.failed.run(e.message, row.id);
        this.opts.log.warn({ delivery: row.id, channel: row.channel, attempts, error: e.message }, 'delivery failed');
      }
      return;
    }
    if (this.stopped && !this.opts.db.open) return;
    this.st.sent.run(this.clock().toISOString(), row.id);
  }

  private async send(row: DueRow, document: MailDocument & Record<string, unknown>, event: Record<string, unknown> | null): Promise<void> {
    if (row.channel === 'email') {
      if (row.notify_email === null) throw new DeliveryError('the profile has no notify_email', false);
      const mail = composeMail(document, { deliveryId: row.id, profileName: row.profile_name, event: event ? String(event.summary) : null });
      await this.opts.mailer.send(row.notify_email, mail);
      return;
    }
    if (row.webhook_url === null) throw new DeliveryError('the profile has no webhook_url', false);
    const payload = event === null
      ? { type: 'alert.match', delivery_id: row.id, profile_id: row.alert_profile_id, document }
      : { type: 'monitor.event', delivery_id: row.id, profile_id: row.alert_profile_id, event: { ...event, acknowledged_at: undefined }, document };
    const secret = this.opts.secrets.secretOf(row.alert_profile_id, row.secret_salt);
    await postWebhook(row.webhook_url, JSON.stringify(payload), secret, row.id, this.opts.allowPrivate, this.clock());
  }

  /** Takes no new send; waits a little for those under way (the rest are sent again after a restart). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight.values()]),
      new Promise((resolve) => { timer = setTimeout(resolve, STOP_WAIT_MS); }),
    ]);
    clearTimeout(timer);
  }
}
