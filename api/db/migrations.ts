// Numbered migrations of the account database. Append only: never edit a shipped migration.
// PRAGMA user_version holds the number of the last one applied.
import type { Db } from './database.js';
import { INVISIBLE } from './keys.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** A step SQL cannot say, run after `sql` in the same transaction. */
  run?: (db: Db) => void;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'organizations, api keys, daily usage',
    sql: `
      CREATE TABLE organizations (
        id         TEXT PRIMARY KEY,
        name       TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL
      );
      CREATE TABLE api_keys (
        id         TEXT PRIMARY KEY,
        org_id     TEXT NOT NULL REFERENCES organizations(id),
        tier       TEXT NOT NULL CHECK (tier IN ('free', 'pro', 'enterprise')),
        -- SHA-256 hex of the key; the key itself is never stored.
        digest     TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
      CREATE TABLE daily_usage (
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        day    TEXT NOT NULL,
        count  INTEGER NOT NULL,
        PRIMARY KEY (key_id, day)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    name: 'alert profiles, deliveries, monitored entities, monitor events, the watcher watermark',
    sql: `
      CREATE TABLE alert_profiles (
        id           TEXT PRIMARY KEY,
        org_id       TEXT NOT NULL REFERENCES organizations(id),
        name         TEXT NOT NULL,
        filters      TEXT NOT NULL,
        channels     TEXT NOT NULL,
        webhook_url  TEXT,
        notify_email TEXT,
        -- The webhook secret is HMAC(server signing key, salt): only the salt is stored (api/alerts/secret.ts).
        secret_salt  TEXT NOT NULL,
        is_active    INTEGER NOT NULL,
        created_at   TEXT NOT NULL
      );
      CREATE INDEX alert_profiles_by_org ON alert_profiles (org_id);
      CREATE TABLE monitored_entities (
        id                TEXT PRIMARY KEY,
        org_id            TEXT NOT NULL REFERENCES organizations(id),
        entity_identifier TEXT NOT NULL,
        identifier_type   TEXT NOT NULL,
        -- The identifier as matched: the canonical AFM or ADA, or the folded name.
        match_key         TEXT NOT NULL,
        label             TEXT,
        is_active         INTEGER NOT NULL,
        created_at        TEXT NOT NULL,
        last_alert_at     TEXT
      );
      CREATE UNIQUE INDEX monitored_once ON monitored_entities (org_id, identifier_type, match_key) WHERE is_active = 1;
      CREATE TABLE monitor_events (
        id                  TEXT PRIMARY KEY,
        org_id              TEXT NOT NULL REFERENCES organizations(id),
        monitored_entity_id TEXT NOT NULL REFERENCES monitored_entities(id),
        document_source_id  TEXT NOT NULL,
        event_type          TEXT NOT NULL,
        summary             TEXT NOT NULL,
        detected_at         TEXT NOT NULL,
        acknowledged_at     TEXT,
        UNIQUE (monitored_entity_id, document_source_id)
      );
      CREATE INDEX monitor_events_by_org ON monitor_events (org_id, detected_at);
      CREATE TABLE alert_deliveries (
        id                 TEXT PRIMARY KEY,
        org_id             TEXT NOT NULL REFERENCES organizations(id),
        alert_profile_id   TEXT NOT NULL REFERENCES alert_profiles(id),
        document_source_id TEXT NOT NULL,
        channel            TEXT NOT NULL,
        -- '' for a document matching the profile; the event's id for a monitor event sent on its channels.
        monitor_event_id   TEXT NOT NULL DEFAULT '',
        -- What is sent: the document as it was matched (JSON), so a send never rereads the store.
        document           TEXT NOT NULL,
        delivery_status    TEXT NOT NULL CHECK (delivery_status IN ('pending', 'sent', 'failed')),
        attempts           INTEGER NOT NULL DEFAULT 0,
        last_error         TEXT,
        next_attempt_at    TEXT NOT NULL,
        created_at         TEXT NOT NULL,
        delivered_at       TEXT,
        UNIQUE (document_source_id, alert_profile_id, channel, monitor_event_id)
      );
      CREATE INDEX alert_deliveries_by_org ON alert_deliveries (org_id, alert_profile_id);
      CREATE INDEX alert_deliveries_due ON alert_deliveries (next_attempt_at) WHERE delivery_status = 'pending';
      -- The watcher's durable watermark: the document-store feed sequence matched up to, and when.
      CREATE TABLE watcher_state (
        name       TEXT PRIMARY KEY,
        seq        INTEGER NOT NULL,
        checked_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'reports and the durable job queue',
    sql: `
      CREATE TABLE reports (
        id                TEXT PRIMARY KEY,
        org_id            TEXT NOT NULL REFERENCES organizations(id),
        entity_identifier TEXT NOT NULL,
        identifier_type   TEXT NOT NULL CHECK (identifier_type IN ('afm', 'name', 'ada')),
        status            TEXT NOT NULL CHECK (status IN ('pending', 'completed', 'failed')),
        created_at        TEXT NOT NULL,
        completed_at      TEXT,
        error_message     TEXT,
        report_json       TEXT,
        pdf               BLOB
      );
      CREATE INDEX reports_by_org ON reports (org_id, created_at DESC, id DESC);
      -- Work that must survive a restart: queued or running rows are taken up again at start.
      CREATE TABLE jobs (
        id          TEXT PRIMARY KEY,
        kind        TEXT NOT NULL,
        payload     TEXT NOT NULL,
        status      TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
        attempts    INTEGER NOT NULL DEFAULT 0,
        created_at  TEXT NOT NULL,
        started_at  TEXT,
        finished_at TEXT,
        last_error  TEXT
      );
      CREATE INDEX jobs_open ON jobs (created_at) WHERE status IN ('queued', 'running');
    `,
  },
  {
    version: 4,
    name: 'deliveries share one stored copy of each matched document',
    sql: `
      -- A document matching many profiles was copied into each delivery; now it is kept once.
      CREATE TABLE alert_documents (
        source_id TEXT PRIMARY KEY,
        document  TEXT NOT NULL
      );
      INSERT OR REPLACE INTO alert_documents (source_id, document) SELECT document_source_id, document FROM alert_deliveries;
      CREATE TABLE alert_deliveries_new (
        id                 TEXT PRIMARY KEY,
        org_id             TEXT NOT NULL REFERENCES organizations(id),
        alert_profile_id   TEXT NOT NULL REFERENCES alert_profiles(id),
        document_source_id TEXT NOT NULL REFERENCES alert_documents(source_id),
        channel            TEXT NOT NULL,
        -- '' for a document matching the profile; the event's id for a monitor event sent on its channels.
        monitor_event_id   TEXT NOT NULL DEFAULT '',
        delivery_status    TEXT NOT NULL CHECK (delivery_status IN ('pending', 'sent', 'failed')),
        attempts           INTEGER NOT NULL DEFAULT 0,
        last_error         TEXT,
        next_attempt_at    TEXT NOT NULL,
        created_at         TEXT NOT NULL,
        delivered_at       TEXT,
        UNIQUE (document_source_id, alert_profile_id, channel, monitor_event_id)
      );
      INSERT INTO alert_deliveries_new SELECT id, org_id, alert_profile_id, document_source_id, channel, monitor_event_id,
        delivery_status, attempts, last_error, next_attempt_at, created_at, delivered_at FROM alert_deliveries ORDER BY rowid;
      DROP TABLE alert_deliveries;
      ALTER TABLE alert_deliveries_new RENAME TO alert_deliveries;
      CREATE INDEX alert_deliveries_by_org ON alert_deliveries (org_id, alert_profile_id);
      CREATE INDEX alert_deliveries_due ON alert_deliveries (next_attempt_at) WHERE delivery_status = 'pending';
    `,
  },
  {
    version: 5,
    name: 'deliveries indexed by organization alone',
    sql: `
      -- (org_id, alert_profile_id) put each new delivery at a random place of the index, a third of what
      -- recording a delivery cost; (org_id) grows at its end and gives the newest-first listing in order.
      DROP INDEX alert_deliveries_by_org;
      CREATE INDEX alert_deliveries_by_org ON alert_deliveries (org_id);
    `,
  },
  {
    version: 6,
    name: 'organization names in NFC, without invisible characters',
    sql: '',
    run: canonicalOrgNames,
  },
  {
    version: 7,
    name: 'deliveries of monitor events indexed by event',
    sql: `
      -- An acknowledged event's pending deliveries are dropped by event id: without this, a scan of
      -- every delivery. Partial: most deliveries are of documents matching a profile (id '').
      CREATE INDEX alert_deliveries_by_event ON alert_deliveries (monitor_event_id) WHERE monitor_event_id <> '';
    `,
  },
  {
    version: 8,
    name: 'deliveries sent once per recipient, and taken organization by organization',
    sql: `
      -- A monitor event's delivery to an address another profile of the organization also names is sent
      -- once: the others point at the delivery that is sent (sent_with) and take its outcome.
      ALTER TABLE alert_deliveries ADD COLUMN sent_with TEXT;
      CREATE INDEX alert_deliveries_by_sender ON alert_deliveries (sent_with) WHERE sent_with IS NOT NULL;
      -- The sender takes due deliveries organization by organization (one cannot fill every slot).
      DROP INDEX alert_deliveries_due;
      CREATE INDEX alert_deliveries_due ON alert_deliveries (channel, org_id, next_attempt_at)
        WHERE delivery_status = 'pending' AND sent_with IS NULL;
    `,
  },
  {
    version: 9,
    name: 'a counter of what the watcher matches by',
    sql: `
      -- The watcher keeps its match index between batches while this counter stands still. Triggers
      -- bump it on every write to what it matches by, so no write path (any process) can forget to.
      CREATE TABLE match_generation (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
      INSERT INTO match_generation (id, n) VALUES (1, 0);
      CREATE TRIGGER profile_added AFTER INSERT ON alert_profiles BEGIN UPDATE match_generation SET n = n + 1; END;
      CREATE TRIGGER profile_changed AFTER UPDATE ON alert_profiles BEGIN UPDATE match_generation SET n = n + 1; END;
      CREATE TRIGGER profile_removed AFTER DELETE ON alert_profiles BEGIN UPDATE match_generation SET n = n + 1; END;
      CREATE TRIGGER entity_added AFTER INSERT ON monitored_entities BEGIN UPDATE match_generation SET n = n + 1; END;
      -- Not on last_alert_at, which the watcher itself sets on every event it raises.
      CREATE TRIGGER entity_changed AFTER UPDATE OF org_id, entity_identifier, identifier_type, match_key, label, is_active, created_at
        ON monitored_entities BEGIN UPDATE match_generation SET n = n + 1; END;
      CREATE TRIGGER entity_removed AFTER DELETE ON monitored_entities BEGIN UPDATE match_generation SET n = n + 1; END;
    `,
  },
  {
    version: 10,
    name: "a profile's channel addresses in one column",
    sql: `
      -- Each channel's address under its profile member, as JSON (api/alerts/channels/): a new channel needs
      -- no column. json_patch leaves out the members that were NULL.
      ALTER TABLE alert_profiles ADD COLUMN targets TEXT NOT NULL DEFAULT '{}';
      UPDATE alert_profiles SET targets = json_patch('{}', json_object('notify_email', notify_email, 'webhook_url', webhook_url));
      ALTER TABLE alert_profiles DROP COLUMN webhook_url;
      ALTER TABLE alert_profiles DROP COLUMN notify_email;
    `,
  },
];

/**
 * Migration 6: every organization name as canonicalOrgName stores new ones (trimmed, NFC), with the
 * invisible characters it now refuses removed. Two organizations whose names become equal are never
 * merged (that would pool two tenants' reports, profiles and keys): a name already canonical keeps
 * it, then the oldest takes the shared name and each other one becomes `<name> (<its id>)`, which
 * `pdi keys list` shows. A name of nothing but invisible characters becomes its id.
 */
function canonicalOrgNames(db: Db): void {
  const invisible = new RegExp(INVISIBLE.source, 'gu');
  const orgs = db.prepare('SELECT id, name FROM organizations ORDER BY created_at, id').all() as { id: string; name: string }[];
  const canonical = (name: string) => name.replace(invisible, '').trim().normalize('NFC');
  const taken = new Set(orgs.filter((o) => canonical(o.name) === o.name).map((o) => o.name));
  const rename = db.prepare('UPDATE organizations SET name = ? WHERE id = ?');
  for (const org of orgs) {
    const want = canonical(org.name);
    if (want === org.name) continue;
    let name = want === '' ? org.id : want;
    if (taken.has(name)) name = `${want} (${org.id})`;
    taken.add(name);
    rename.run(name, org.id);
  }
}
