// The alert channels. A new channel is a file beside these (an AlertChannel) and a line here; its
// address needs a profile member (TargetMember), stored with the profile.
import type { AlertChannel } from './channel.js';
import { emailChannel } from './email.js';
import { webhookChannel } from './webhook.js';

const ENTRIES = [emailChannel, webhookChannel] as const satisfies readonly AlertChannel[];
export type Channel = (typeof ENTRIES)[number]['name'];
export const CHANNELS: readonly (AlertChannel & { name: Channel })[] = ENTRIES;
export const CHANNEL_NAMES: readonly Channel[] = CHANNELS.map((c) => c.name);

const byName = new Map<string, AlertChannel>(CHANNELS.map((c) => [c.name, c]));

/** The channel a delivery row names (the database holds only registered names). */
export function channelNamed(name: string): AlertChannel {
  const channel = byName.get(name);
  if (channel === undefined) throw new Error(`no alert channel named ${name}`);
  return channel;
}

export function isChannel(name: unknown): name is Channel {
  return typeof name === 'string' && byName.has(name);
}
