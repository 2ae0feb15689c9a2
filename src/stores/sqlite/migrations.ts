import type { Database } from 'better-sqlite3';
import { assertKnownSchema } from '../schema-version.js';
import { migrationsFromV10 } from './migrations-from-v10.js';
import { migrationsV1ToV9 } from './migrations-v1-to-v9.js';

/** One schema change. Versions are increasing (gaps allowed); a released migration is never edited. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /** A data change SQL cannot express (one computed in JS), run after `sql` in the same transaction. */
  run?: (database: Database) => void;
}

/** The schema, oldest change first. Timestamps are epoch milliseconds except message `created_at`. */
export const migrations: readonly Migration[] = [...migrationsV1ToV9, ...migrationsFromV10];

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
    assertKnownSchema(current.version ?? 0, all);
    const pending = all.filter((migration) => migration.version > (current.version ?? 0));
    const record = database.prepare(
      'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
    );
    for (const migration of pending) {
      database.exec(migration.sql);
      migration.run?.(database);
      record.run(migration.version, migration.name, new Date().toISOString());
    }
    return pending.length;
  });
  return run.immediate();
}
