// What an alert channel is: a name a profile's `channels` lists, the profile member holding its address,
// how many sends run at once, the address check and the send. The registry (index.ts) lists them.
import type { Clock } from '../../../lib/clock.js';
import type { WebhookSecrets } from '../secret.js';
import type { Mailer } from './email.js';

/** The profile members that hold a channel's address. */
export type TargetMember = 'notify_email' | 'webhook_url';

export interface TargetRules {
  /** PDI_WEBHOOK_ALLOW_PRIVATE: http and private addresses are accepted. */
  allowPrivate: boolean;
}

/** Why an address is refused; its message is the 422's detail. */
export class TargetError extends Error {
  /** Whether the same target may be accepted later (a name that does not resolve now). */
  constructor(
    message: string,
    readonly retryable = false,
  ) {
    super(message);
  }
}

/** Why a send failed, and whether a retry may succeed. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** The document a delivery carries, as alert_documents holds it (the full-content record). */
export interface DeliveredDocument {
  source_id: string;
  source: string;
  title: string;
  published_at: string;
  source_url: string;
  amount: { value: number; currency: string } | null;
  [member: string]: unknown;
}

export interface Delivery {
  id: string;
  profile: { id: string; name: string; secret_salt: string };
  /** The profile's address on this channel, as stored. */
  target: string;
  document: DeliveredDocument;
  /** The monitor event it tells of, or null for a profile's match. */
  event: Record<string, unknown> | null;
}

/** What sends share, made once by the alert service (api/alerts/service.ts). */
export interface ChannelEnv {
  clock: Clock;
  rules: TargetRules;
  mailer: Mailer;
  secrets: WebhookSecrets;
  /** A webhook attempt's whole-request deadline. */
  webhookDeadlineMs: number;
}

export interface AlertChannel {
  readonly name: string;
  readonly member: TargetMember;
  /** Sends under way at most (the sender's `concurrency` option overrides it). */
  readonly concurrency: number;
  /**
   * The address in canonical form (two addresses of one form reach one recipient), or TargetError
   * naming the member and why. Checks the form only; `admit` does what needs the network.
   */
  parseTarget(value: string, rules: TargetRules): string;
  /** At creation or change of the address, checks that need the network; TargetError when refused. */
  admit?(value: string, rules: TargetRules): Promise<void>;
  /** One attempt; DeliveryError says whether to retry. */
  send(delivery: Delivery, env: ChannelEnv): Promise<void>;
}
