// Monitored entities and their events in the account database, scoped to one organization.
import { randomUUID } from 'node:crypto';
import { ConflictError, ValidationError } from '../../lib/errors.js';
import { normalizeAda, normalizeAfm, type IdentifierType } from '../../lib/identifiers.js';
import { nameKey } from '../../lib/names.js';
import type { Db } from '../db/database.js';
import { OrgTable, type Conditions, type Page } from '../db/org-table.js';

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

/** An acknowledged event's unsent deliveries; `<> ''` lets SQLite use the partial index alert_deliveries_by_event (migration 7). */
export const DROP_PENDING_SQL = "DELETE FROM alert_deliveries WHERE monitor_event_id = ? AND monitor_event_id <> '' AND delivery_status = 'pending'";

export class MonitorStore {
  private readonly entityRows: OrgTable<EntityRow>;
  private readonly eventRows: OrgTable<EventRecord>;
  private readonly st;

  constructor(private readonly db: Db) {
    this.entityRows = new OrgTable(db, 'monitored_entities');
    this.eventRows = new OrgTable(db, 'monitor_events', {
      columns: 'id, monitored_entity_id, document_source_id, event_type, summary, detected_at, acknowledged_at',
      order: 'detected_at DESC, rowid DESC',
    });
    this.st = {
      existing: db.prepare('SELECT id FROM monitored_entities WHERE org_id = ? AND identifier_type = ? AND match_key = ? AND is_active = 1').pluck(),
      create: db.prepare(
        `INSERT INTO monitored_entities (id, org_id, entity_identifier, identifier_type, match_key, label, is_active, created_at)
         VALUES (@id, @org_id, @entity_identifier, @identifier_type, @match_key, @label, @is_active, @created_at)`,
      ),
      active: db.prepare('SELECT * FROM monitored_entities WHERE is_active = 1'),
      deactivate: db.prepare('UPDATE monitored_entities SET is_active = 0 WHERE id = ? AND org_id = ?'),
      acknowledge: db.prepare('UPDATE monitor_events SET acknowledged_at = ? WHERE id = ? AND org_id = ? AND acknowledged_at IS NULL'),
      acknowledgedAt: db.prepare('SELECT acknowledged_at FROM monitor_events WHERE id = ? AND org_id = ?').pluck(),
      dropPending: db.prepare(DROP_PENDING_SQL),
      checkedAt: db.prepare("SELECT checked_at FROM watcher_state WHERE name = 'documents'").pluck(),
    };
  }

  /** Throws ConflictError when the organization already monitors the entity (actively). */
  createEntity(orgId: string, type: IdentifierType, identifier: string, label: string | null, now: Date): EntityRecord {
    const row: EntityRow = {
      id: randomUUID(),
      org_id: orgId,
      entity_identifier: identifier,
      identifier_type: type,
      match_key: matchKeyOf(type, identifier),
      label,
      is_active: 1,
      created_at: now.toISOString(),
      last_alert_at: null,
    };
    const existing = this.st.existing.get(orgId, type, row.match_key) as string | undefined;
    if (existing) throw new ConflictError(`This entity is already monitored (id ${existing})`);
    this.st.create.run(row);
    return entityOf(row);
  }

  entity(orgId: string, id: string): EntityRecord | null {
    const row = this.entityRows.get(orgId, id);
    return row ? entityOf(row) : null;
  }

  entities(orgId: string, limit: number, offset: number): Page<EntityRecord> {
    const { items, total } = this.entityRows.page(orgId, limit, offset);
    return { items: items.map(entityOf), total };
  }

  activeEntities(): EntityRecord[] {
    return (this.st.active.all() as EntityRow[]).map(entityOf);
  }

  deactivateEntity(orgId: string, id: string): boolean {
    return this.st.deactivate.run(id, orgId).changes === 1;
  }

  /** Newest first. */
  events(orgId: string, filter: EventFilter, limit: number, offset: number): Page<EventRecord> {
    const where: Conditions = [];
    if (filter.entityId !== undefined) where.push(['monitored_entity_id = ?', filter.entityId]);
    if (filter.eventType !== undefined) where.push(['event_type = ?', filter.eventType]);
    if (filter.since !== undefined) where.push(['detected_at > ?', filter.since]);
    return this.eventRows.page(orgId, limit, offset, where);
  }

  /**
   * Sets acknowledged_at once (a second call returns the first time) and, in the same transaction,
   * drops the event's deliveries not sent yet: an acknowledged event is never delivered. Null when the
   * organization has no such event.
   */
  acknowledge(orgId: string, id: string, now: Date): { id: string; acknowledged_at: string } | null {
    return this.db
      .transaction(() => {
        this.st.acknowledge.run(now.toISOString(), id, orgId);
        const at = this.st.acknowledgedAt.get(id, orgId) as string | undefined;
        if (at === undefined) return null;
        this.st.dropPending.run(id);
        return { id, acknowledged_at: at };
      })
      .immediate();
  }

  /** When the watcher last looked at new documents, or null before its first look. */
  lastCheckedAt(): string | null {
    return (this.st.checkedAt.get() as string | undefined) ?? null;
  }
}
