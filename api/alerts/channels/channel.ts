// What an alert channel is: a name a profile's `channels` lists, the profile member holding its address
// and how the API documents it, how many sends run at once, the address check, and its sender, made from
// the server's configuration. The registry (index.ts) lists them; a profile's addresses are stored, checked
// and documented from it.
import type { Clock } from '../../../lib/clock.js';
import type { Config } from '../../../lib/config.js';

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

/** What a channel's sender is made from, once per alert service (api/alerts/service.ts). */
export interface ChannelSetup {
  config: Config;
  clock: Clock;
}

/** A channel's sending side: what it holds (a mail transport, the signing key) is made once. */
export interface ChannelSender {
  /** One attempt; DeliveryError says whether to retry. */
  send(delivery: Delivery): Promise<void>;
  /** Releases what it holds when the service stops. */
  close?(): void;
}

/**
 * The profile member holding a channel's address as docs/openapi.json documents it in a profile body
 * (api/alerts/openapi.ts): the JSON Schema of a non-empty value, its length limit, and what the
 * description adds to "Required with channel `<name>`".
 */
export interface TargetSchema {
  maxLength: number;
  /** `{ format: 'email' }`, `{ format: 'uri' }`, `{ pattern: … }`. */
  value: Record<string, unknown>;
  note?: string;
}

export interface AlertChannel {
  readonly name: string;
  /** The profile member holding its address (`notify_email`): a member of the API's profile, one key of the stored targets. */
  readonly member: string;
  readonly target: TargetSchema;
  /** Sends under way at most (the sender's `concurrency` option overrides it). */
  readonly concurrency: number;
  /**
   * The address in canonical form (two addresses of one form reach one recipient), or TargetError
   * naming the member and why. Checks the form only; `admit` does what needs the network.
   */
  parseTarget(value: string, rules: TargetRules): string;
  /** At creation or change of the address, checks that need the network; TargetError when refused. */
  admit?(value: string, rules: TargetRules): Promise<void>;
  /** Its sender, from the server's configuration: what the channel needs (SMTP_URL, the signing key) is its own to read. */
  sender(setup: ChannelSetup): ChannelSender;
}
