// The alert channels. A new channel is a file beside these (an AlertChannel) and its line in the list:
// its address is then checked, stored in the profile's targets, sent to, and documented in /openapi.json
// (api/alerts/openapi.ts; `npx tap --snapshot test/house/openapi.test.ts` writes it into docs/openapi.json).
import type { AlertChannel } from './channel.js';
import { emailChannel } from './email.js';
import { webhookChannel } from './webhook.js';

const ENTRIES = [emailChannel, webhookChannel] as const satisfies readonly AlertChannel[];
export type Channel = (typeof ENTRIES)[number]['name'];
/** The profile members holding the channels' addresses. */
export type TargetMember = (typeof ENTRIES)[number]['member'];
/** A profile's addresses by member; a channel without one has none. */
export type Targets = Partial<Record<TargetMember, string>>;
/** A registered channel. */
export type RegisteredChannel = AlertChannel & { name: Channel; member: TargetMember };
export const CHANNELS: readonly RegisteredChannel[] = ENTRIES;
export const CHANNEL_NAMES: readonly Channel[] = CHANNELS.map((c) => c.name);

const byName = new Map<string, RegisteredChannel>(CHANNELS.map((c) => [c.name, c]));

/** The channel a delivery row names (the database holds only registered names). */
export function channelNamed(name: string): RegisteredChannel {
  const channel = byName.get(name);
  if (channel === undefined) throw new Error(`no alert channel named ${name}`);
  return channel;
}

export function isChannel(name: unknown): name is Channel {
  return typeof name === 'string' && byName.has(name);
}

/** Every channel's member with the profile's address on it, null where it has none (the API's profile shows each). */
export function targetMembers(targets: Targets): Record<TargetMember, string | null> {
  return Object.fromEntries(CHANNELS.map((c) => [c.member, targets[c.member] ?? null])) as Record<TargetMember, string | null>;
}
