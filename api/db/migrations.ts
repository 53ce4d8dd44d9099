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
];
