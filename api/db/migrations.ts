// Numbered migrations of the account database. Append only: never edit a shipped migration.
// PRAGMA user_version holds the number of the last one applied.
export interface Migration {
  version: number;
  name: string;
  sql: string;
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
];
