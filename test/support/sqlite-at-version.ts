import Database from 'better-sqlite3';
import { applyMigrations, migrations } from '../../src/stores/sqlite/migrations.js';

/**
 * A SQLite database at `path` as engram left it after migration `version`, for migration tests that
 * write rows the way older code did and then open the file with today's store.
 */
export function openDatabaseAtVersion(path: string, version: number): Database.Database {
  const database = new Database(path);
  database.pragma('journal_mode = WAL');
  database.pragma('foreign_keys = ON');
  applyMigrations(
    database,
    migrations.filter((migration) => migration.version <= version),
  );
  return database;
}

/** Every column of a `memories` row as migrations up to 16 define it, in INSERT order. */
export const MEMORY_COLUMNS = `tenant_id, id, namespace, user_id, session_id, agent_id, document_id, source,
      text, memory_type, topics, entities, event_date, created_at, updated_at, last_accessed, access_count,
      salience, confidence, pinned, supersedes, superseded_by, valid_from, valid_to, memory_hash,
      persisted_at, metadata`;
