import type { Database } from 'better-sqlite3';

/** One schema change. Versions are dense and increasing; a released migration is never edited. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The schema, oldest change first. Timestamps are epoch milliseconds except message `created_at`. */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions and messages',
    sql: `
      CREATE TABLE sessions (
        pk INTEGER PRIMARY KEY,
        -- JSON array [tenant, namespace, user, session]: the unique identity of a session. A UNIQUE
        -- over the nullable columns would let two rows with a NULL namespace coexist (NULLs are
        -- distinct in SQL); the JSON form is injective, tells NULL from '' and 'null', and needs
        -- no separator that an id could contain.
        session_key TEXT NOT NULL UNIQUE,
        tenant_id TEXT NOT NULL,
        namespace TEXT,
        user_id TEXT,
        session_id TEXT NOT NULL,
        data TEXT,
        context TEXT,
        memories TEXT NOT NULL,
        strategy TEXT NOT NULL,
        ttl_seconds INTEGER,
        version INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        expires_at INTEGER,
        message_count INTEGER NOT NULL,
        token_count INTEGER NOT NULL,
        last_seq INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX sessions_by_recency ON sessions (tenant_id, updated_at DESC);
      CREATE INDEX sessions_by_expiry ON sessions (expires_at) WHERE expires_at IS NOT NULL;

      -- A rowid table (not WITHOUT ROWID): message content can be large, and rowid tables keep
      -- big rows out of the primary-key b-tree.
      CREATE TABLE messages (
        session_pk INTEGER NOT NULL REFERENCES sessions (pk) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        id TEXT NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        name TEXT,
        tool_calls TEXT,
        tool_call_id TEXT,
        created_at TEXT NOT NULL,
        token_count INTEGER NOT NULL,
        token_encoding TEXT NOT NULL,
        PRIMARY KEY (session_pk, seq),
        UNIQUE (session_pk, id)
      ) STRICT;
    `,
  },
];

/**
 * Brings the schema up to date and returns how many migrations ran. Runs in one IMMEDIATE
 * transaction, so two processes opening the same file at once cannot both apply a migration.
 */
export function applyMigrations(database: Database, all: readonly Migration[] = migrations): number {
  const run = database.transaction((): number => {
    database.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TEXT NOT NULL
    ) STRICT`);
    const current = database.prepare('SELECT max(version) AS version FROM schema_migrations').get() as {
      version: number | null;
    };
    const pending = all.filter((migration) => migration.version > (current.version ?? 0));
    const record = database.prepare(
      'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
    );
    for (const migration of pending) {
      database.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
    }
    return pending.length;
  });
  return run.immediate();
}
