// The alert-profile schemas of the OpenAPI document that follow from the channel registry: the channel
// names, each channel's address member in the create and update bodies and in the profile, and the rule
// that a listed channel needs its address. /openapi.json serves docs/openapi.json with these (api/app.ts),
// and test/house/openapi.test.ts keeps the file equal to what is served.
import { CHANNEL_NAMES, CHANNELS, type RegisteredChannel } from './channels/index.js';
import { PROFILE_MEMBERS } from './input.js';

type Schema = Record<string, any>;

/** The schemas this file writes, in components.schemas. */
export const CHANNEL_SCHEMAS = ['AlertChannel', 'AlertProfileCreate', 'AlertProfileUpdate', 'AlertProfile'] as const;

/** A channel's address in a create or update body: its form, or empty or null for none. */
function bodyMember({ name, target }: RegisteredChannel): Schema {
  return {
    type: ['string', 'null'],
    maxLength: target.maxLength,
    anyOf: [{ type: 'string', ...target.value }, { type: 'string', maxLength: 0 }, { type: 'null' }],
    description: `Required with channel \`${name}\`${target.note ? `; ${target.note}` : ''}. An empty string or null means none.`,
  };
}

/**
 * `properties` cut to the schema's own members (`own`, in their order), each channel's member right after
 * `channels`: a member of a channel no longer registered goes.
 */
function withMembers(properties: Schema, own: readonly string[], member: (c: RegisteredChannel) => Schema): Schema {
  const out: Schema = {};
  for (const name of own) {
    out[name] = properties[name];
    if (name === 'channels') for (const c of CHANNELS) out[c.member] = member(c);
  }
  return out;
}

/** The document with its alert-profile schemas as the registered channels make them. */
export function withChannelSchemas(document: Schema): Schema {
  const doc = structuredClone(document);
  const schemas = doc.components.schemas;
  schemas.AlertChannel.enum = [...CHANNEL_NAMES];
  const create = schemas.AlertProfileCreate;
  create.properties = withMembers(create.properties, PROFILE_MEMBERS, bodyMember);
  create.allOf = CHANNELS.map((c) => ({
    if: { required: ['channels'], properties: { channels: { contains: { const: c.name } } } },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a promise.
    then: { required: [c.member] },
  }));
  const update = schemas.AlertProfileUpdate;
  update.properties = withMembers(update.properties, [...PROFILE_MEMBERS, 'is_active'], bodyMember);
  // The profile as routes.ts profileBody writes it: every channel's member, null where it has none.
  const profile = schemas.AlertProfile;
  profile.properties = withMembers(profile.properties, ['id', ...PROFILE_MEMBERS, 'is_active', 'created_at'], () => ({ type: ['string', 'null'] }));
  profile.required = Object.keys(profile.properties);
  return doc;
}
