// Alert profiles (Pro): POST/GET /v1/alerts/profiles, PUT/DELETE /v1/alerts/profiles/{id}, and
// GET /v1/alerts/deliveries. Everything is scoped to the key's organization; another's is a 404.
import type { Request } from 'restify';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { TargetError, type TargetRules } from './channels/channel.js';
import { CHANNELS, targetMembers } from './channels/index.js';
import { createInput, updateInput, type ProfileFields } from './input.js';
import { WebhookSecrets } from './secret.js';
import type { ProfileRecord } from './store.js';
import type { AppContext } from '../context.js';
import { principalOf } from '../middleware/admission.js';
import { reply, replyJson } from '../middleware/reply.js';
import { idParam, pageParams, stringParam, UUID } from '../middleware/validate.js';
import type { ContractRoutes } from '../routes/contract-routes.js';

/** The alert profile object (docs/openapi.json AlertProfile). */
export function profileBody(p: ProfileRecord): Record<string, unknown> {
  return {
    id: p.id,
    name: p.name,
    filters: p.filters,
    channels: p.channels,
    ...targetMembers(p.targets),
    is_active: p.is_active,
    created_at: p.created_at,
  };
}

/** The channels' checks that need the network, on each address new to the profile (all at creation). */
async function admitTargets(fields: ProfileFields, before: ProfileFields | null, rules: TargetRules): Promise<void> {
  for (const channel of CHANNELS) {
    const value = fields.targets[channel.member];
    if (value === undefined || !channel.admit || (before !== null && value === before.targets[channel.member])) continue;
    try {
      await channel.admit(value, rules);
    } catch (err) {
      if (err instanceof TargetError) throw new ValidationError(err.message);
      throw err;
    }
  }
}

export function registerAlerts(routes: ContractRoutes, ctx: AppContext): void {
  const rules: TargetRules = { allowPrivate: ctx.config.webhookAllowPrivate };
  const maxProfiles = ctx.config.maxAlertProfiles;
  // Every active profile records deliveries for what it matches: their number is what one tenant's
  // ingest-time cost and delivery rows grow with.
  const checkRoom = (orgId: string) => {
    if (ctx.alerts.activeCount(orgId) >= maxProfiles) {
      throw new ConflictError(`The organization already has ${maxProfiles} active alert profiles, the most allowed; delete one (or merge their filters) first`);
    }
  };
  const notFound = (req: Request) => new NotFoundError(`Alert profile not found: ${String((req.params as Record<string, string>).id)}`);

  routes.add('post', '/v1/alerts/profiles', async (req, res) => {
    const fields = createInput(req.body, rules);
    await admitTargets(fields, null, rules);
    // After the await, right before the insert: two creations at once cannot both take the last place.
    checkRoom(principalOf(req).orgId);
    const profile = ctx.alerts.createProfile(principalOf(req).orgId, fields, WebhookSecrets.newSalt(), ctx.clock());
    const body = { ...profileBody(profile), webhook_secret: ctx.webhookSecrets.secretOf(profile.id, profile.secret_salt) };
    reply(res, 201, 'application/json', JSON.stringify(body));
  });

  routes.add('get', '/v1/alerts/profiles', async (req, res) => {
    const { limit, offset } = pageParams(req);
    const page = ctx.alerts.profiles(principalOf(req).orgId, limit, offset);
    replyJson(res, { items: page.items.map(profileBody), total: page.total, limit, offset });
  });

  routes.add('put', '/v1/alerts/profiles/:id', async (req, res) => {
    const id = idParam(req);
    const orgId = principalOf(req).orgId;
    const current = id === null ? null : ctx.alerts.profile(orgId, id);
    if (id === null || current === null) throw notFound(req);
    const fields = updateInput(req.body, current, rules);
    await admitTargets(fields, current, rules);
    if (fields.is_active === true && !current.is_active) checkRoom(orgId);
    const updated = ctx.alerts.updateProfile(orgId, id, fields);
    if (updated === null) throw notFound(req);
    replyJson(res, profileBody(updated));
  });

  routes.add('del', '/v1/alerts/profiles/:id', async (req, res) => {
    const id = idParam(req);
    if (id === null || !ctx.alerts.deactivateProfile(principalOf(req).orgId, id)) throw notFound(req);
    replyJson(res, { status: 'deactivated', id });
  });

  routes.add('get', '/v1/alerts/deliveries', async (req, res) => {
    const { limit, offset } = pageParams(req);
    const orgId = principalOf(req).orgId;
    const profileId = stringParam(req, 'profile_id');
    if (profileId !== undefined && (!UUID.test(profileId) || ctx.alerts.profile(orgId, profileId.toLowerCase()) === null)) {
      throw new NotFoundError(`Alert profile not found: ${profileId}`);
    }
    const page = ctx.alerts.deliveries(orgId, profileId?.toLowerCase(), limit, offset);
    replyJson(res, { items: page.items, total: page.total, limit, offset });
  });
}
