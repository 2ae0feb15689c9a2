import type { PostgresDatabase } from './postgres-database.js';

/**
 * Whether pgvector is usable in this database: installed already, or installable now (CREATE
 * EXTENSION needs the privilege; managed PostgreSQL offerings grant it). Servers starting at once
 * take turns, so the extension is created once.
 */
export async function installPgvector(database: PostgresDatabase): Promise<boolean> {
  try {
    return await database.transaction(async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended('engram-pgvector', 0))");
      const [installed] = await client.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'");
      if (installed) return true;
      const [available] = await client.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
      if (!available) return false;
      await client.query('CREATE EXTENSION IF NOT EXISTS vector SCHEMA public');
      return true;
    });
  } catch {
    return false;
  }
}
