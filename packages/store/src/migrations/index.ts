/**
 * Forward-only migrations. Each is applied once, in order, inside one IMMEDIATE transaction
 * (the write lock serialises several processes migrating at once); `PRAGMA user_version` records
 * how far a database has come. Never edit a shipped migration: add the next one.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial',
    sql: `
      CREATE TABLE leases (
        id TEXT PRIMARY KEY,
        request_id TEXT NOT NULL UNIQUE,
        template TEXT NOT NULL,
        provider TEXT NOT NULL,
        adapter TEXT NOT NULL,
        owner TEXT,
        status TEXT NOT NULL,
        identity TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        max_expires_at INTEGER NOT NULL,
        deadline_at INTEGER,
        stages TEXT NOT NULL DEFAULT '[]',
        error_code TEXT,
        error_message TEXT,
        claimed_by TEXT,
        claim_expires_at INTEGER
      ) STRICT;
      CREATE INDEX leases_status_expires ON leases (status, expires_at);
      CREATE INDEX leases_owner ON leases (owner, status);
      CREATE TABLE machines (
        lease_id TEXT PRIMARY KEY REFERENCES leases (id),
        identity TEXT NOT NULL UNIQUE,
        provider TEXT NOT NULL,
        external_id TEXT,
        node TEXT,
        state TEXT NOT NULL,
        details TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX machines_state ON machines (state);
      CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        lease_id TEXT,
        actor TEXT NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL DEFAULT '{}'
      ) STRICT;
      CREATE INDEX events_lease ON events (lease_id, id);
    `,
  },
  {
    version: 2,
    name: 'lease principal',
    // Quotas count who is authenticated (the HTTP token's principal, or the local user on stdio),
    // not the `owner` label an agent writes in its arguments. Older rows have none.
    sql: `
      ALTER TABLE leases ADD COLUMN principal TEXT;
      CREATE INDEX leases_principal ON leases (principal, status);
    `,
  },
  {
    version: 3,
    name: 'locks',
    // Named leases on a role (the reaper's): a holder renews `until` while it works; a lapsed one
    // may be taken over. Lets a server see that a reaper runs for this store, on any host.
    sql: `
      CREATE TABLE locks (
        name TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        until INTEGER NOT NULL
      ) STRICT;
    `,
  },
];
