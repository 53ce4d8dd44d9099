// Monitoring (Enterprise): monitored entities, their events and acknowledgement. Scoped to the key's
// organization; another organization's entity or event is a 404.
import type { Request } from 'restify';
import { timeBoundOf } from '../../lib/clock.js';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import { IDENTIFIER_TYPES, type IdentifierType } from '../../lib/identifiers.js';
import { EVENT_TYPES, type EntityRecord, type EventType } from './store.js';
import type { AppContext } from '../context.js';
import { principalOf } from '../middleware/admission.js';
import { reply, replyJson } from '../middleware/reply.js';
import { entityIdentifierOf, idParam, pageParams, refuseControl, stringParam, timeBoundParam } from '../middleware/validate.js';
import type { ContractRoutes } from '../routes/contract-routes.js';

const MAX_LABEL = 200;
const MEMBERS = new Set(['entity_identifier', 'identifier_type', 'label']);

function entityInput(body: unknown): { identifier: string; type: IdentifierType; label: string | null } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ValidationError('The body must be a JSON object');
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).find((k) => !MEMBERS.has(k));
  if (unknown !== undefined) throw new ValidationError(`${unknown} is not a member of a monitored entity`);
  if (!IDENTIFIER_TYPES.includes(b.identifier_type as IdentifierType)) throw new ValidationError('identifier_type is required: one of afm, name, ada');
  const type = b.identifier_type as IdentifierType;
  const identifier = entityIdentifierOf(b.entity_identifier, type);
  if (b.label !== undefined && b.label !== null && (typeof b.label !== 'string' || [...b.label].length > MAX_LABEL)) {
    throw new ValidationError(`label must be a string of at most ${MAX_LABEL} characters`);
  }
  const label = typeof b.label === 'string' && b.label.trim() !== '' ? b.label.trim() : null;
  if (label !== null) refuseControl('label', label);
  return { identifier, type, label };
}

function entityBody(e: EntityRecord): Record<string, unknown> {
  return {
    id: e.id,
    entity_identifier: e.entity_identifier,
    identifier_type: e.identifier_type,
    label: e.label,
    is_active: e.is_active,
    created_at: e.created_at,
  };
}

/** `since` as the UTC instant events must be detected after (a date: after its 00:00:00Z). */
function sinceParam(req: Request): string | undefined {
  const v = timeBoundParam(req, 'since');
  return v === undefined ? undefined : new Date(timeBoundOf(v)!.ms).toISOString();
}

export function registerMonitoring(routes: ContractRoutes, ctx: AppContext): void {
  const entityNotFound = (req: Request) => new NotFoundError(`Monitored entity not found: ${String((req.params as Record<string, string>).id)}`);

  routes.add('post', '/v1/monitor/entities', async (req, res) => {
    const input = entityInput(req.body);
    const entity = ctx.monitor.createEntity(principalOf(req).orgId, input.type, input.identifier, input.label, ctx.clock());
    reply(res, 201, 'application/json', JSON.stringify(entityBody(entity)));
  });

  routes.add('get', '/v1/monitor/entities', async (req, res) => {
    const { limit, offset } = pageParams(req);
    const page = ctx.monitor.entities(principalOf(req).orgId, limit, offset);
    const checked = ctx.monitor.lastCheckedAt();
    // Every active entity is checked against each new document, so its last check is the watcher's.
    const items = page.items.map((e) => ({
      ...entityBody(e),
      last_checked_at: checked !== null && checked > e.created_at ? checked : e.created_at,
      last_alert_at: e.last_alert_at,
    }));
    replyJson(res, { items, total: page.total, limit, offset });
  });

  routes.add('del', '/v1/monitor/entities/:id', async (req, res) => {
    const id = idParam(req);
    if (id === null || !ctx.monitor.deactivateEntity(principalOf(req).orgId, id)) throw entityNotFound(req);
    replyJson(res, { status: 'deactivated', id });
  });

  // As the contract has it, a GET that creates a report of the monitored entity (api/reports/service.ts runs it).
  routes.add('get', '/v1/monitor/entities/:id/report', async (req, res) => {
    const id = idParam(req);
    const orgId = principalOf(req).orgId;
    const entity = id === null ? null : ctx.monitor.entity(orgId, id);
    if (entity === null) throw entityNotFound(req);
    const { report } = ctx.reports.create(orgId, entity.entity_identifier, entity.identifier_type);
    replyJson(res, { report_id: report.id, entity_id: entity.id, entity_identifier: entity.entity_identifier, status: report.status });
  });

  routes.add('get', '/v1/monitor/events', async (req, res) => {
    const { limit, offset } = pageParams(req);
    const orgId = principalOf(req).orgId;
    const entityId = stringParam(req, 'entity_id');
    if (entityId !== undefined && !/^[0-9a-f-]{36}$/i.test(entityId)) throw new ValidationError('entity_id must be a UUID');
    if (entityId !== undefined && ctx.monitor.entity(orgId, entityId.toLowerCase()) === null)
      throw new NotFoundError(`Monitored entity not found: ${entityId}`);
    const eventType = stringParam(req, 'event_type');
    if (eventType !== undefined && !EVENT_TYPES.includes(eventType as EventType)) {
      throw new ValidationError(`event_type must be one of ${EVENT_TYPES.join(', ')}`);
    }
    const page = ctx.monitor.events(
      orgId,
      { entityId: entityId?.toLowerCase(), eventType: eventType as EventType | undefined, since: sinceParam(req) },
      limit,
      offset,
    );
    replyJson(res, { items: page.items, total: page.total, limit, offset });
  });

  routes.add('post', '/v1/monitor/events/:id/acknowledge', async (req, res) => {
    const id = idParam(req);
    const done = id === null ? null : ctx.monitor.acknowledge(principalOf(req).orgId, id, ctx.clock());
    if (done === null) throw new NotFoundError(`Monitor event not found: ${String((req.params as Record<string, string>).id)}`);
    replyJson(res, done);
  });
}
