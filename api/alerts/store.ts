// Alert profiles and their deliveries in the account database, always scoped to one organization:
// a row of another organization is never read, so it answers as not found.
import { randomUUID } from 'node:crypto';
import type { Channel, Filters, ProfileFields, Targets } from './input.js';
import type { Db } from '../db/database.js';
import { OrgTable, type Conditions, type Page } from '../db/org-table.js';

export interface ProfileRecord extends ProfileFields {
  id: string;
  org_id: string;
  secret_salt: string;
  is_active: boolean;
  created_at: string;
}

interface ProfileRow {
  id: string;
  org_id: string;
  name: string;
  filters: string;
  channels: string;
  /** Each channel's address by its profile member, as JSON (Targets). */
  targets: string;
  secret_salt: string;
  is_active: number;
  created_at: string;
}

export type DeliveryStatus = 'pending' | 'sent' | 'failed';

export interface DeliveryRecord {
  id: string;
  alert_profile_id: string;
  document_source_id: string;
  channel: Channel;
  monitor_event_id: string | null;
  delivery_status: DeliveryStatus;
  attempts: number;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

function profileOf(row: ProfileRow): ProfileRecord {
  return {
    ...row,
    filters: JSON.parse(row.filters) as Filters,
    channels: JSON.parse(row.channels) as Channel[],
    targets: JSON.parse(row.targets) as Targets,
    is_active: row.is_active === 1,
  };
}

export class AlertStore {
  private readonly profileRows: OrgTable<ProfileRow>;
  private readonly deliveryRows: OrgTable<DeliveryRecord>;
  private readonly st;

  constructor(db: Db) {
    this.profileRows = new OrgTable(db, 'alert_profiles');
    this.deliveryRows = new OrgTable(db, 'alert_deliveries', {
      columns: `id, alert_profile_id, document_source_id, channel, nullif(monitor_event_id, '') AS monitor_event_id,
                delivery_status, attempts, last_error, created_at, delivered_at`,
    });
    this.st = {
      create: db.prepare(
        `INSERT INTO alert_profiles (id, org_id, name, filters, channels, targets, secret_salt, is_active, created_at)
         VALUES (@id, @org_id, @name, @filters, @channels, @targets, @secret_salt, @is_active, @created_at)`,
      ),
      active: db.prepare('SELECT * FROM alert_profiles WHERE is_active = 1'),
      activeOf: db.prepare('SELECT count(*) FROM alert_profiles WHERE org_id = ? AND is_active = 1').pluck(),
      update: db.prepare(
        `UPDATE alert_profiles SET name = ?, filters = ?, channels = ?, targets = ?, is_active = coalesce(?, is_active)
          WHERE id = ? AND org_id = ?`,
      ),
      deactivate: db.prepare('UPDATE alert_profiles SET is_active = 0 WHERE id = ? AND org_id = ?'),
    };
  }

  createProfile(orgId: string, fields: ProfileFields, salt: string, now: Date): ProfileRecord {
    const row: ProfileRow = {
      id: randomUUID(),
      org_id: orgId,
      name: fields.name,
      filters: JSON.stringify(fields.filters),
      channels: JSON.stringify(fields.channels),
      targets: JSON.stringify(fields.targets),
      secret_salt: salt,
      is_active: 1,
      created_at: now.toISOString(),
    };
    this.st.create.run(row);
    return profileOf(row);
  }

  profile(orgId: string, id: string): ProfileRecord | null {
    const row = this.profileRows.get(orgId, id);
    return row ? profileOf(row) : null;
  }

  /** Newest first. */
  profiles(orgId: string, limit: number, offset: number): Page<ProfileRecord> {
    const { items, total } = this.profileRows.page(orgId, limit, offset);
    return { items: items.map(profileOf), total };
  }

  /** How many active profiles the organization has. */
  activeCount(orgId: string): number {
    return this.st.activeOf.get(orgId) as number;
  }

  /** Every active profile of every organization (the watcher's). */
  activeProfiles(): ProfileRecord[] {
    return (this.st.active.all() as ProfileRow[]).map(profileOf);
  }

  updateProfile(orgId: string, id: string, fields: ProfileFields & { is_active?: boolean }): ProfileRecord | null {
    this.st.update.run(
      fields.name,
      JSON.stringify(fields.filters),
      JSON.stringify(fields.channels),
      JSON.stringify(fields.targets),
      fields.is_active === undefined ? null : Number(fields.is_active),
      id,
      orgId,
    );
    return this.profile(orgId, id);
  }

  /** False when the organization has no such profile. */
  deactivateProfile(orgId: string, id: string): boolean {
    return this.st.deactivate.run(id, orgId).changes === 1;
  }

  /** Newest first; of one profile when `profileId` is given. */
  deliveries(orgId: string, profileId: string | undefined, limit: number, offset: number): Page<DeliveryRecord> {
    const only: Conditions = profileId === undefined ? [] : [['alert_profile_id = ?', profileId]];
    return this.deliveryRows.page(orgId, limit, offset, only);
  }
}
