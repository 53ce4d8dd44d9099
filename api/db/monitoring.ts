// Monitored entities and their events in the account database, scoped to one organization.
import { randomUUID } from 'node:crypto';
import { ConflictError, ValidationError } from '../../lib/errors.js';
import { normalizeAda, normalizeAfm, type IdentifierType } from '../../lib/identifiers.js';
import { nameKey } from '../../lib/names.js';
import type { Page } from './alerts.js';
import type { Db } from './database.js';


export const EVENT_TYPES = ['new_decision', 'contract_award', 'regulatory_action', 'permit_change', 'other'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface EntityRecord {
  id: string;
  org_id: string;
  entity_identifier: string;
  identifier_type: IdentifierType;
  match_key: string;
  label: string | null;
  is_active: boolean;
  created_at: string;
  last_alert_at: string | null;
}

export interface EventRecord {
  id: string;
  monitored_entity_id: string;
  document_source_id: string;
  event_type: EventType;
  summary: string;
  detected_at: string;
  acknowledged_at: string | null;
}

type EntityRow = Omit<EntityRecord, 'is_active'> & { is_active: number };

const entityOf = (row: EntityRow): EntityRecord => ({ ...row, is_active: row.is_active === 1 });

/** What a document is matched on for this identifier: the canonical AFM or ADA, or the folded name. */
export function matchKeyOf(type: IdentifierType, identifier: string): string {
  if (type === 'afm') {
    const afm = normalizeAfm(identifier);
    if (afm === null) throw new ValidationError('entity_identifier must be a 9-digit AFM when identifier_type is afm');
    return afm;
  }
  if (type === 'ada') {
    const ada = normalizeAda(identifier);
    if (ada === null) throw new ValidationError('entity_identifier must be a Diavgeia decision id (ADA) when identifier_type is ada');
    return ada;
  }
  const name = nameKey(identifier);
  if (name === '') throw new ValidationError('entity_identifier must hold a letter or digit');
  return name;
}

export interface EventFilter {
  entityId?: string;
  eventType?: EventType;
  since?: string;
}

export class MonitorStore {
  constructor(private readonly db: Db) {}

  /** Throws ConflictError when the organization already monitors the entity (actively). */
  createEntity(orgId: string, type: IdentifierType, identifier: string, label: string | null, now: Date): EntityRecord {
    const row: EntityRow = {
      id: randomUUID(), org_id: orgId, entity_identifier: identifier, identifier_type: type,
      match_key: matchKeyOf(type, identifier), label, is_active: 1, created_at: now.toISOString(), last_alert_at: null,
    };
    const existing = this.db.prepare(
      'SELECT id FROM monitored_entities WHERE org_id = ? AND identifier_type = ? AND match_key = ? AND is_active = 1',
    ).pluck().get(orgId, type, row.match_key) as string | undefined;
    if (existing) throw new ConflictError(`This entity is already monitored (id ${existing})`);
    this.db.prepare(
      `INSERT INTO monitored_entities (id, org_id, entity_identifier, identifier_type, match_key, label, is_active, created_at)
       VALUES (@id, @org_id, @entity_identifier, @identifier_type, @match_key, @label, @is_active, @created_at)`,
    ).run(row);
    return entityOf(row);
  }

  entity(orgId: string, id: string): EntityRecord | null {
    const row = this.db.prepare('SELECT * FROM monitored_entities WHERE id = ? AND org_id = ?').get(id, orgId) as EntityRow | undefined;
    return row ? entityOf(row) : null;
  }

  entities(orgId: string, limit: number, offset: number): Page<EntityRecord> {
    const rows = this.db.prepare('SELECT * FROM monitored_entities WHERE org_id = ? ORDER BY rowid DESC LIMIT ? OFFSET ?').all(orgId, limit, offset) as EntityRow[];
    const total = this.db.prepare('SELECT count(*) FROM monitored_entities WHERE org_id = ?').pluck().get(orgId) as number;
    return { items: rows.map(entityOf), total };
  }

  activeEntities(): EntityRecord[] {
    return (this.db.prepare('SELECT * FROM monitored_entities WHERE is_active = 1').all() as EntityRow[]).map(entityOf);
  }

  deactivateEntity(orgId: string, id: string): boolean {
    return this.db.prepare('UPDATE monitored_entities SET is_active = 0 WHERE id = ? AND org_id = ?').run(id, orgId).changes === 1;
  }

  /** Newest first. */
  events(orgId: string, filter: EventFilter, limit: number, offset: number): Page<EventRecord> {
    const where = ['org_id = ?'];
    const args: string[] = [orgId];
    if (filter.entityId !== undefined) { where.push('monitored_entity_id = ?'); args.push(filter.entityId); }
    if (filter.eventType !== undefined) { where.push('event_type = ?'); args.push(filter.eventType); }
    if (filter.since !== undefined) { where.push('detected_at > ?'); args.push(filter.since); }
    const clause = where.join(' AND ');
    const items = this.db.prepare(
      `SELECT id, monitored_entity_id, document_source_id, event_type, summary, detected_at, acknowledged_at
         FROM monitor_events WHERE ${clause} ORDER BY detected_at DESC, rowid DESC LIMIT ? OFFSET ?`,
    ).all(...args, limit, offset) as EventRecord[];
    const total = this.db.prepare(`SELECT count(*) FROM monitor_events WHERE ${clause}`).pluck().get(...args) as number;
    return { items, total };
  }

  /**
   * Sets acknowledged_at once (a second call returns the first time) and, in the same transaction,
   * drops the event's deliveries not sent yet: an acknowledged event is never delivered. Null when the
   * organization has no such event.
   */
  acknowledge(orgId: string, id: string, now: Date): { id: string; acknowledged_at: string } | null {
    return this.db.transaction(() => {
      this.db.prepare('UPDATE monitor_events SET acknowledged_at = ? WHERE id = ? AND org_id = ? AND acknowledged_at IS NULL')
        .run(now.toISOString(), id, orgId);
      const at = this.db.prepare('SELECT acknowledged_at FROM monitor_events WHERE id = ? AND org_id = ?').pluck().get(id, orgId) as string | undefined;
      if (at === undefined) return null;
      this.db.prepare("DELETE FROM alert_deliveries WHERE monitor_event_id = ? AND delivery_status = 'pending'").run(id);
      return { id, acknowledged_at: at };
    }).immediate();
  }

  /** When the watcher last looked at new documents, or null before its first look. */
  lastCheckedAt(): string | null {
    return (this.db.prepare("SELECT checked_at FROM watcher_state WHERE name = 'documents'").pluck().get() as string | undefined) ?? null;
  }
}
