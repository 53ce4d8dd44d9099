// The alert profile body of POST and PUT (docs/api.md "Alert profiles and monitoring"), checked
// member by member: each refusal is a 422 naming the member.
import { ValidationError } from '../../lib/errors.js';
import { hasControl, refuseControl } from '../middleware/validate.js';
import { resolveSource } from '../../index-mappings/sources.js';
import { TargetError, type TargetRules } from './channels/channel.js';
import { CHANNEL_NAMES, CHANNELS, isChannel, type Channel, type Targets } from './channels/index.js';

export type { Channel, Targets };

export interface Filters {
  sectors: string[];
  regions: string[];
  keywords: string[];
  min_value: number | null;
  max_value: number | null;
  sources: string[];
}

/** A profile's members; each channel's address is a member of the body, kept in `targets` under its name. */
export interface ProfileFields {
  name: string;
  filters: Filters;
  channels: Channel[];
  targets: Targets;
}

const MAX_NAME = 200;
const MAX_ITEMS = 100;
const MAX_ITEM = 200;
const FILTER_ARRAYS = ['sectors', 'regions', 'keywords', 'sources'] as const;
/** The members of a profile body that are not a channel's address. */
export const PROFILE_MEMBERS = ['name', 'filters', 'channels'] as const;
const CREATE_MEMBERS = new Set<string>([...PROFILE_MEMBERS, ...CHANNELS.map((c) => c.member)]);
const UPDATE_MEMBERS = new Set([...CREATE_MEMBERS, 'is_active']);

export function emptyFilters(): Filters {
  return { sectors: [], regions: [], keywords: [], min_value: null, max_value: null, sources: [] };
}

function bodyObject(body: unknown, allowed: Set<string>): Record<string, unknown> {
  if (body === undefined) throw new ValidationError('A JSON object body is required');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ValidationError('The body must be a JSON object');
  const unknown = Object.keys(body).find((k) => !allowed.has(k));
  if (unknown !== undefined) throw new ValidationError(`${unknown} is not a member of an alert profile`);
  return body as Record<string, unknown>;
}

function name(v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '') throw new ValidationError('name is required and must be a non-empty string');
  if ([...v].length > MAX_NAME) throw new ValidationError(`name must be at most ${MAX_NAME} characters`);
  refuseControl('name', v);
  return v.trim();
}

function channels(v: unknown): Channel[] {
  if (!Array.isArray(v) || v.length === 0) {
    throw new ValidationError(`channels is required: a non-empty array of ${CHANNEL_NAMES.map((c) => JSON.stringify(c)).join(' and/or ')}`);
  }
  for (const c of v) {
    if (!isChannel(c)) throw new ValidationError(`channels holds an unknown channel: ${JSON.stringify(c)} (allowed: ${CHANNEL_NAMES.join(', ')})`);
  }
  return CHANNEL_NAMES.filter((c) => v.includes(c));
}

function optionalText(v: unknown, member: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new ValidationError(`${member} must be a string`);
  return v.trim() === '' ? null : v.trim();
}

/** Each channel's address: as the body gives it (trimmed) once its channel accepts its form, else `current`'s; null or empty removes it. */
function targets(b: Record<string, unknown>, rules: TargetRules, current: Targets): Targets {
  const out: Targets = { ...current };
  for (const channel of CHANNELS) {
    if (b[channel.member] === undefined) continue;
    const value = optionalText(b[channel.member], channel.member);
    try {
      if (value !== null) channel.parseTarget(value, rules);
    } catch (err) {
      if (err instanceof TargetError) throw new ValidationError(err.message);
      throw err;
    }
    if (value === null) delete out[channel.member];
    else out[channel.member] = value;
  }
  return out;
}

function filterNumber(v: unknown, member: string): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ValidationError(`filters.${member} must be a number`);
  return v;
}

function filters(v: unknown): Filters {
  if (v === undefined || v === null) return emptyFilters();
  if (typeof v !== 'object' || Array.isArray(v)) throw new ValidationError('filters must be an object');
  const raw = v as Record<string, unknown>;
  const unknown = Object.keys(raw).find((k) => !(FILTER_ARRAYS as readonly string[]).includes(k) && k !== 'min_value' && k !== 'max_value');
  if (unknown !== undefined)
    throw new ValidationError(`filters.${unknown} is not a filter (allowed: sectors, regions, keywords, min_value, max_value, sources)`);
  const out = emptyFilters();
  for (const member of FILTER_ARRAYS) {
    const list = raw[member];
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list) || list.length > MAX_ITEMS) throw new ValidationError(`filters.${member} must be an array of at most ${MAX_ITEMS} strings`);
    const items: string[] = [];
    for (const item of list) {
      if (typeof item !== 'string' || item.trim() === '' || [...item].length > MAX_ITEM || hasControl(item)) {
        throw new ValidationError(`filters.${member} must hold non-empty strings of at most ${MAX_ITEM} characters`);
      }
      items.push(item.trim());
    }
    out[member] = [...new Set(items)];
  }
  out.sources = out.sources.map((s) => {
    const source = resolveSource(s);
    if (!source) throw new ValidationError(`filters.sources holds an unknown source: ${s}`);
    return source;
  });
  out.sources = [...new Set(out.sources)];
  if (out.keywords.some((k) => !/[\p{L}\p{N}]/u.test(k))) throw new ValidationError('filters.keywords must hold words: each keyword needs a letter or digit');
  out.min_value = filterNumber(raw.min_value, 'min_value');
  out.max_value = filterNumber(raw.max_value, 'max_value');
  if (out.min_value !== null && out.max_value !== null && out.min_value > out.max_value) {
    throw new ValidationError('filters.min_value must not be greater than filters.max_value');
  }
  return out;
}

/** The profile a full profile must be: each channel has its address. Checks needing the network are the caller's (AlertChannel.admit). */
function complete(p: ProfileFields): ProfileFields {
  for (const channel of CHANNELS) {
    if (p.channels.includes(channel.name) && p.targets[channel.member] === undefined)
      throw new ValidationError(`${channel.member} is required with the ${channel.name} channel`);
  }
  return p;
}

export function createInput(body: unknown, rules: TargetRules): ProfileFields {
  const b = bodyObject(body, CREATE_MEMBERS);
  return complete({
    name: name(b.name),
    filters: filters(b.filters),
    channels: channels(b.channels),
    targets: targets(b, rules, {}),
  });
}

/** A PUT body over the stored profile: given members replace theirs (filters as a whole). */
export function updateInput(body: unknown, current: ProfileFields, rules: TargetRules): ProfileFields & { is_active?: boolean } {
  const b = bodyObject(body, UPDATE_MEMBERS);
  if (b.is_active !== undefined && typeof b.is_active !== 'boolean') throw new ValidationError('is_active must be a boolean');
  const merged = complete({
    name: b.name === undefined ? current.name : name(b.name),
    filters: b.filters === undefined ? current.filters : filters(b.filters),
    channels: b.channels === undefined ? current.channels : channels(b.channels),
    targets: targets(b, rules, current.targets),
  });
  return b.is_active === undefined ? merged : { ...merged, is_active: b.is_active as boolean };
}
